"""A cart's payment sessions: one per payment provider of the cart's
region, each for the cart's total; the shopper selects one, and completion authorizes it.

Every function takes the cart's row lock and runs in one transaction, reads the cart once under
it and answers from what it read and wrote (no read back). Amounts are minor units:
a session is for the cart's total with its taxes computed, even in a region without automatic
taxes. Every change that can move the total re-syncs the sessions (`resync_payment_sessions`),
and the gateway hears of a session only when its amount changed (Medusa v1 calls it on every
change). Two more departures from Medusa v1, both on purpose:
- selecting a provider of the region that has no session yet creates it (Medusa answers 500
  "Could not find payment session");
- refreshing the selected session keeps it selected (Medusa's refresh deselects it).
"""

from __future__ import annotations

from dataclasses import replace

from models import Cart, PaymentSession
from services.carts.locks import lock_cart_rows
from services.carts.reads import read_cart
from services.carts.view import CartView, load_cart_view, stored_tax_lines, view_of, with_forced_taxes
from services.core import clock
from services.core.db import atomic, write_now
from services.core.errors import NotAllowed, NotFound
from services.core.sql import save
from services.payments import get_provider

__all__ = ["set_payment_sessions", "sync_payment_sessions", "resync_payment_sessions", "resync_view",
           "select_session", "update_session", "delete_session", "refresh_session"]

# Medusa's core resolves `system` whatever the region lists.
ALWAYS_AVAILABLE = "system"


async def set_payment_sessions(cart_id: str) -> CartView:
    """Create Payment Sessions: bring the cart's sessions in line with its region and total."""
    async with atomic():
        view = await _locked_view(cart_id)
        return _with_sessions(view, await sync_payment_sessions(view.cart, view))


async def _locked_view(cart_id: str) -> CartView:
    """The editable cart, locked and read once: the view its answer shows (stored tax lines where
    the region's taxes are not automatic); `with_forced_taxes` of it is what a payment is for."""
    return await view_of(await lock_cart_rows(cart_id, stored_tax_lines=stored_tax_lines()))


def _with_sessions(view: CartView, sessions: list[PaymentSession]) -> CartView:
    """The view with the sessions a change left, in the order a read gives them."""
    return replace(view, payment_sessions=sorted(sessions, key=lambda s: (s.created_at, s.id)))


async def sync_payment_sessions(cart: Cart, view: CartView) -> list[PaymentSession]:
    """Medusa's setPaymentSessions, for a cart already locked by the caller: a cart with nothing to pay
    has no session; sessions of providers the region dropped go; the others follow the total; a
    region with one provider gets it initiated and selected, others a local session per provider.
    Answers the cart's sessions afterwards."""
    total = with_forced_taxes(view).totals.total
    sessions = list(view.payment_sessions)
    if total <= 0 or not view.items:
        for session in sessions:
            await _forget(session)
        return []
    offered = [p.id for p in view.region.payment_providers]
    kept: list[PaymentSession] = []
    for session in sessions:
        if session.provider_id not in offered:
            await _forget(session)
            continue
        changed = session.amount != total
        if session.is_selected and session.is_initiated:
            if changed:
                session.data = await get_provider(session.provider_id).update_amount(session, total, cart)
        elif session.is_initiated:
            await get_provider(session.provider_id).delete(session)
            session.status, session.data, session.is_initiated = "pending", {}, False
            changed = True
        if changed:
            session.amount = total
            await session.save()
        kept.append(session)
    have = {s.provider_id for s in kept}
    if len(offered) == 1 and not any(s.is_selected for s in kept):
        existing = next((s for s in kept if s.provider_id == offered[0]), None)
        started = await _initiate(cart, existing, offered[0], total)
        return kept if existing is not None else [*kept, started]
    for provider_id in offered:
        if provider_id not in have:
            kept.append(await PaymentSession.create(
                cart_id=cart.id, provider_id=provider_id, status="pending", data={}, is_initiated=False,
                is_selected=None, amount=total))
    return kept


async def resync_payment_sessions(cart: Cart) -> None:
    """After a change of a locked cart that can move its total: its sessions, if it has any,
    follow it. A cart without sessions costs one statement."""
    if await PaymentSession.filter(cart_id=cart.id).exists():
        await sync_payment_sessions(cart, await load_cart_view(cart.id, force_taxes=True))


async def resync_view(view: CartView) -> CartView:
    """`resync_payment_sessions` for a change that holds the cart's view as it wrote it (read
    under the lock, changed in memory as in the database): no statement without sessions, and
    the view with the sessions that follow."""
    if not view.payment_sessions:
        return view
    await write_now()  # what the change put off goes first: a sync may reach a provider
    return _with_sessions(view, await sync_payment_sessions(view.cart, view))


async def select_session(cart_id: str, provider_id: str) -> CartView:
    """The shopper pays with this provider: its session is initiated for the cart's total and
    becomes the only selected one.

    A storefront selects the session the region's only provider already has selected: a cart
    read in one statement that shows it selected for the total, and no other session selected
    or initiated, is answered from that read without the lock (nothing is written; the answer is
    the cart as it was at one moment of the request). Any other takes the lock and reads again: a
    cart with discounts, gift cards or stored tax lines (which one statement does not read) pays
    one statement more than before this way (3, not 2), a plain one three round trips less."""
    rows = await read_cart(cart_id, stored_tax_lines=stored_tax_lines(), at_once=True)
    if rows is not None and rows.cart.completed_at is None:
        view = await view_of(rows)
        if _already_selected(view, provider_id):
            return _with_sessions(view, view.payment_sessions)
    async with atomic():
        view = await _locked_view(cart_id)
        _, sessions = await _select(view, provider_id)
        return _with_sessions(view, sessions)


async def update_session(cart_id: str, provider_id: str, data: dict) -> CartView:
    """Select the provider's session, then merge what the provider makes of `data` into its data."""
    async with atomic():
        view = await _locked_view(cart_id)
        session, sessions = await _select(view, provider_id)
        changes = await get_provider(provider_id).update(dict(session.data or {}), data)
        session.data = {**(session.data or {}), **changes}
        await session.save(update_fields=["data", "updated_at"])
        return _with_sessions(view, sessions)


async def delete_session(cart_id: str, provider_id: str) -> CartView:
    """Remove the provider's session; none there is not an error."""
    async with atomic():
        view = await _locked_view(cart_id)
        session = next((s for s in view.payment_sessions if s.provider_id == provider_id), None)
        if session is not None:
            await _forget(session)
        return _with_sessions(view, [s for s in view.payment_sessions if s is not session])


async def refresh_session(cart_id: str, provider_id: str) -> CartView:
    """Start the provider's payment again for the current total (e.g. after a gateway timeout).
    A selected session is replaced by a freshly initiated one that stays selected; another only
    takes the new amount."""
    async with atomic():
        view = await _locked_view(cart_id)
        session = next((s for s in view.payment_sessions if s.provider_id == provider_id), None)
        if session is None:
            raise NotFound(f"Could not find payment session for provider {provider_id}")
        total = with_forced_taxes(view).totals.total
        sessions = [s for s in view.payment_sessions if s is not session]
        if session.is_selected:
            await _forget(session)
            sessions.append(await _initiate(view.cart, None, provider_id, total))
        else:
            session.amount = total
            await session.save(update_fields=["amount", "updated_at"])
            sessions.append(session)
        return _with_sessions(view, sessions)


def _already_selected(view: CartView, provider_id: str) -> bool:
    """Whether `_select` would write nothing: the provider's session is initiated and selected for
    the total, and no other is selected or initiated."""
    if provider_id != ALWAYS_AVAILABLE and provider_id not in {p.id for p in view.region.payment_providers}:
        return False
    total = with_forced_taxes(view).totals.total
    return any(s.provider_id == provider_id and s.is_initiated and s.is_selected and s.amount == total
               for s in view.payment_sessions) and not any(
        s.provider_id != provider_id and (s.is_selected or s.is_initiated) for s in view.payment_sessions)


async def _select(view: CartView, provider_id: str) -> tuple[PaymentSession, list[PaymentSession]]:
    """Select the provider's session of the locked cart in `view`; the session and the cart's
    sessions afterwards. A session already selected for the total is not written again."""
    cart = view.cart
    if provider_id != ALWAYS_AVAILABLE and provider_id not in {p.id for p in view.region.payment_providers}:
        raise NotAllowed("The payment method is not available in this region")
    provider = get_provider(provider_id)
    target = None
    for session in view.payment_sessions:
        if session.provider_id == provider_id:
            target = session
        elif session.is_selected or session.is_initiated:
            if session.is_initiated:
                await _provider_of(session).delete(session)
            session.is_selected, session.is_initiated = None, False
            await session.save(update_fields=["is_selected", "is_initiated", "updated_at"])
    total = with_forced_taxes(view).totals.total
    if target is not None and target.is_initiated:
        if target.amount == total and target.is_selected:
            return target, list(view.payment_sessions)
        if target.amount != total:
            target.data = await provider.update_amount(target, total, cart)
        target.amount, target.is_selected = total, True
        await target.save()
        return target, list(view.payment_sessions)
    started = await _initiate(cart, target, provider_id, total)
    return started, list(view.payment_sessions) if target is not None else [*view.payment_sessions, started]


async def _initiate(cart: Cart, session: PaymentSession | None, provider_id: str, total: int) -> PaymentSession:
    """The provider's session, initiated for `total` and selected (made if missing). A session's id
    and last change name this start for the gateway: a retry after a rollback finds the row as it
    was and sends the same key, a later start finds it changed. A missing session gets its new id
    and the time of this start, and is written once, initiated (one INSERT, not an INSERT and an
    UPDATE of every column: a rollback leaves no row either way, and a retry starts afresh)."""
    if session is None:
        session = PaymentSession(cart_id=cart.id, provider_id=provider_id, status="pending", data={},
                                 is_initiated=False, is_selected=None, amount=total)
        key = f"{session.id}:{clock.now().isoformat()}"
    else:
        key = f"{session.id}:{session.updated_at.isoformat()}"
    data = await get_provider(provider_id).initiate(total, cart, idempotency_key=key)
    session.data, session.status, session.amount = data, "pending", total
    session.is_initiated, session.is_selected = True, True
    await save(session)
    return session


async def _forget(session: PaymentSession) -> None:
    # Only the gateway knows of a selected or initiated session; a local one is just a row.
    if session.is_initiated or session.is_selected:
        await _provider_of(session).delete(session)
    await session.delete()


def _provider_of(session: PaymentSession):
    return get_provider(session.provider_id)

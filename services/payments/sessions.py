"""A cart's payment sessions (reference store §1.2, §3.4): one per payment provider of the cart's
region, each for the cart's total; the shopper selects one, and completion authorizes it.

Every function takes the cart's row lock and runs in one transaction. Amounts are minor units:
a session is for the cart's total with its taxes computed, even in a region without automatic
taxes (§3.4). Every change that can move the total re-syncs the sessions (`resync_payment_sessions`,
§3.4's triggers), and the gateway hears of a session only when its amount changed (landscape #13:
Medusa v1 calls it on every change). Two more departures from Medusa v1, both on purpose:
- selecting a provider of the region that has no session yet creates it (Medusa answers 500
  "Could not find payment session");
- refreshing the selected session keeps it selected (Medusa's refresh deselects it).
"""

from __future__ import annotations

from models import Cart, PaymentSession
from services.carts.locks import lock_cart
from services.carts.view import CartView, load_cart_view, with_forced_taxes
from services.core.db import atomic
from services.core.errors import NotAllowed, NotFound
from services.payments import get_provider

__all__ = ["set_payment_sessions", "sync_payment_sessions", "resync_payment_sessions", "select_session",
           "update_session", "delete_session", "refresh_session"]

# Medusa's core resolves `system` whatever the region lists.
ALWAYS_AVAILABLE = "system"


async def set_payment_sessions(cart_id: str) -> CartView:
    """Create Payment Sessions: bring the cart's sessions in line with its region and total."""
    async with atomic():
        cart = await lock_cart(cart_id)
        await sync_payment_sessions(cart, await load_cart_view(cart.id, force_taxes=True))
    return await load_cart_view(cart_id)


async def sync_payment_sessions(cart: Cart, view: CartView) -> None:
    """§3.4 setPaymentSessions, for a cart already locked by the caller: a cart with nothing to pay
    has no session; sessions of providers the region dropped go; the others follow the total; a
    region with one provider gets it initiated and selected, others a local session per provider."""
    total = with_forced_taxes(view).totals.total
    sessions = list(view.payment_sessions)
    if total <= 0 or not view.items:
        for session in sessions:
            await _forget(session)
        return
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
        await _initiate(cart, next((s for s in kept if s.provider_id == offered[0]), None), offered[0], total)
        return
    for provider_id in offered:
        if provider_id not in have:
            await PaymentSession.create(cart_id=cart.id, provider_id=provider_id, status="pending", data={},
                                        is_initiated=False, is_selected=None, amount=total)


async def resync_payment_sessions(cart: Cart) -> None:
    """After a change of a locked cart that can move its total: its sessions, if it has any,
    follow it (§3.4's re-sync triggers). A cart without sessions costs one statement."""
    if await PaymentSession.filter(cart_id=cart.id).exists():
        await sync_payment_sessions(cart, await load_cart_view(cart.id, force_taxes=True))


async def select_session(cart_id: str, provider_id: str) -> CartView:
    """The shopper pays with this provider: its session is initiated for the cart's total and
    becomes the only selected one."""
    async with atomic():
        await _select(cart_id, provider_id)
    return await load_cart_view(cart_id)


async def update_session(cart_id: str, provider_id: str, data: dict) -> CartView:
    """Select the provider's session, then merge what the provider makes of `data` into its data."""
    async with atomic():
        session = await _select(cart_id, provider_id)
        changes = await get_provider(provider_id).update(dict(session.data or {}), data)
        session.data = {**(session.data or {}), **changes}
        await session.save(update_fields=["data", "updated_at"])
    return await load_cart_view(cart_id)


async def delete_session(cart_id: str, provider_id: str) -> CartView:
    """Remove the provider's session; none there is not an error."""
    async with atomic():
        cart = await lock_cart(cart_id)
        session = await PaymentSession.filter(cart_id=cart.id, provider_id=provider_id).first()
        if session is not None:
            await _forget(session)
    return await load_cart_view(cart_id)


async def refresh_session(cart_id: str, provider_id: str) -> CartView:
    """Start the provider's payment again for the current total (e.g. after a gateway timeout).
    A selected session is replaced by a freshly initiated one that stays selected; another only
    takes the new amount."""
    async with atomic():
        cart = await lock_cart(cart_id)
        view = await load_cart_view(cart.id, force_taxes=True)
        session = next((s for s in view.payment_sessions if s.provider_id == provider_id), None)
        if session is None:
            raise NotFound(f"Could not find payment session for provider {provider_id}")
        total = view.totals.total
        if session.is_selected:
            await _forget(session)
            await _initiate(cart, None, provider_id, total)
        else:
            session.amount = total
            await session.save(update_fields=["amount", "updated_at"])
    return await load_cart_view(cart_id)


async def _select(cart_id: str, provider_id: str) -> PaymentSession:
    cart = await lock_cart(cart_id)
    view = await load_cart_view(cart.id, force_taxes=True)
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
    total = view.totals.total
    if target is not None and target.is_initiated:
        if target.amount != total:
            target.data = await provider.update_amount(target, total, cart)
        target.amount, target.is_selected = total, True
        await target.save()
        return target
    return await _initiate(cart, target, provider_id, total)


async def _initiate(cart: Cart, session: PaymentSession | None, provider_id: str, total: int) -> PaymentSession:
    """The provider's session, initiated for `total` and selected (made if missing). The row comes
    first: its id and last change name this start for the gateway (a retry after a rollback finds
    the row as it was and sends the same key; a later start finds it changed)."""
    if session is None:
        session = await PaymentSession.create(cart_id=cart.id, provider_id=provider_id, status="pending", data={},
                                              is_initiated=False, is_selected=None, amount=total)
    key = f"{session.id}:{session.updated_at.isoformat()}"
    data = await get_provider(provider_id).initiate(total, cart, idempotency_key=key)
    session.data, session.status, session.amount = data, "pending", total
    session.is_initiated, session.is_selected = True, True
    await session.save()
    return session


async def _forget(session: PaymentSession) -> None:
    # Only the gateway knows of a selected or initiated session; a local one is just a row.
    if session.is_initiated or session.is_selected:
        await _provider_of(session).delete(session)
    await session.delete()


def _provider_of(session: PaymentSession):
    return get_provider(session.provider_id)

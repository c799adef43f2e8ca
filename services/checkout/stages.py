"""The stages of a cart completion (completion.py runs them), one for each recovery point. A stage
is a function of the key, the cart's id, what the stages before it saw and the answers; it takes
the cart row's lock first, in a transaction of its own, and ends in one `Step`: the recovery
point to go on with, or the answer that ends the run.

    started            → tax_and_authorize: the tax lines stored and the payment authorized
                         (or, chosen once per run, authorize_and_place: see below)
    tax_lines_created  → authorize (a key left there by an earlier version)
    payment_authorized → place: the order placed, or a swap's cart confirming its swap

A stage that refuses raises the domain error; its `Stage` says what a refusal leaves to undo.

authorize_and_place is the one-transaction way, for a cart paying through a provider without a
gateway (`manual`, `system`): authorizing is only rows written, so there is nothing for it to
survive; the payment is authorized, the order placed and the key finished in one transaction
under one read of the cart. Its display id was taken up front, on its own (completion.py), which
is what chose it; a cart that no longer qualifies under the lock goes the staged way."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Awaitable, Callable

from tortoise.expressions import Q

from models import Cart, DraftOrder, IdempotencyKey, Order, Payment, PaymentSession, Swap
from services.carts.locks import lock_cart_rows
from services.carts.view import CartView, view_of
from services.checkout.answers import (
    Answer, Answers, Completion, cart_answer, finish, order_answer, placed_answer, swap_answer,
)
from services.core import clock, idempotency
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed
from services.core.sql import write
from services.orders.display_ids import next_display_id
from services.orders.placement import (
    GiftCardBalanceChanged, StoredTaxLines, drop_tax_lines, place_order, store_tax_lines, write_tax_lines,
)
from services.orders.view import placed_view
from services.payments import authorizes_in_process, get_provider
from services.payments.authorizations import cancel_authorization
from services.swaps.confirmation import confirm_swap

__all__ = [
    "Seen", "Step", "StageFn", "PlacingInterrupted", "tax_and_authorize", "authorize", "authorize_and_place",
    "place", "WAITING_STATUSES",
]

WAITING_STATUSES = ("pending", "requires_more")  # the shopper has more to do at the gateway


@dataclass(frozen=True)
class Seen:
    """What the stages of one run have learnt of the cart, handed from each to the next."""
    numbered: bool = False  # a stage saw it open and not a swap's: placing takes a number unasked
    display_id: int | None = None  # a number taken for this cart and not spent yet


@dataclass(frozen=True)
class Step:
    """How a stage ends: `point`, the recovery point to go on with (with what it saw); or `answer`,
    the answer the key is finished with; or `finished`, the key already finished in the stage's
    own transaction."""
    point: str | None = None
    seen: Seen = Seen()
    answer: Answer | None = None
    finished: Completion | None = None

    @classmethod
    def go_on(cls, point: str, seen: Seen) -> Step:
        return cls(point=point, seen=seen)

    @classmethod
    def ends(cls, answer: Answer) -> Step:
        return cls(answer=answer)


StageFn = Callable[[IdempotencyKey, str, Seen, Answers], Awaitable[Step]]


class PlacingInterrupted(Exception):
    """The cart lost its completion while being placed (another run moved it): not the shopper's
    doing, so the run stops as for any transient failure and its retry finds the cart settled."""


async def _completed(cart: Cart) -> Answer | None:
    if cart.completed_at is None:
        return None
    if cart.type == "swap":
        return swap_answer((await Swap.get(cart_id=cart.id)).id)
    order_id = await Order.filter(cart_id=cart.id).values_list("id", flat=True)
    if not order_id:  # completed by something other than checkout (e.g. a swap): answer the cart
        return cart_answer(cart.id)
    return order_answer(order_id[0])


async def _locked(cart_id: str, seen: Seen) -> tuple[CartView, StoredTaxLines, Payment | None, Seen]:
    """The cart locked, completed or not, and read once under the lock with its taxes computed
    as a payment computes them, with the tax lines it has stored, its live payment, and what the
    run has now seen of it."""
    rows = await lock_cart_rows(cart_id, stored_tax_lines=lambda cart: True, editable=False, with_payment=True)
    cart = rows.cart
    live = rows.payment if cart.payment_authorized_at is not None else None
    seen = replace(seen, numbered=cart.completed_at is None and cart.type != "swap")
    return await view_of(rows, force_taxes=True), (rows.item_tax_lines, rows.method_tax_lines), live, seen


async def tax_and_authorize(key: IdempotencyKey, cart_id: str, seen: Seen, answers: Answers) -> Step:
    """The first stage: the tax lines stored, then the payment authorized, in one transaction
    under one read of the cart."""
    async with atomic():
        view, stored, payment, seen = await _locked(cart_id, seen)
        if done := await _completed(view.cart):
            return Step.ends(done)
        await store_tax_lines(view, stored)
        return await _authorize_locked(view, payment, seen)


async def authorize(key: IdempotencyKey, cart_id: str, seen: Seen, answers: Answers) -> Step:
    """A key left at `tax_lines_created` by an earlier version: the payment authorized."""
    async with atomic():
        view, _, payment, seen = await _locked(cart_id, seen)
        if done := await _completed(view.cart):
            return Step.ends(done)
        return await _authorize_locked(view, payment, seen)


async def authorize_and_place(key: IdempotencyKey, cart_id: str, seen: Seen, answers: Answers) -> Step:
    """Authorize through a provider without a gateway and place the order under the number taken
    up front, in one transaction (the cart locked and read once), and finish the key with the
    answer in it too: one commit makes all of it, a failure rolls all of it back. A cart that no
    longer pays that way (it changed meanwhile) goes on with the staged `tax_and_authorize`."""
    async with atomic():
        view, stored, payment, seen = await _locked(cart_id, seen)
        if done := await _completed(view.cart):
            return Step.ends(done)
        if payment is not None or not _in_one(view):
            return Step.go_on("started", seen)
        cart, session = view.cart, view.payment_session
        if session.amount is not None:
            _refuse_a_changed_total(view, session.amount)
        payment = None
        if view.totals.total > 0:
            status, data = await get_provider(session.provider_id).authorize(session)
            session.status, session.data = status, data
            await _record_authorization(session)
            if status != "authorized":  # not what such a provider answers; as a gateway's answer is taken
                if status in WAITING_STATUSES:
                    return Step.ends(cart_answer(cart.id, payment_status=status))
                raise InvalidData("Cart payment not authorized")
            payment = Payment(
                cart_id=cart.id, amount=view.totals.total, currency_code=cart.region.currency_code,
                provider_id=session.provider_id, data=data,
            )
        _, lines = await write_tax_lines(view, stored, at_end=True)
        draft = await DraftOrder.get_or_none(cart_id=cart.id) if cart.type == "draft_order" else None
        order = await place_order(view, seen.display_id, payment=payment, draft_order=draft, authorized_at=clock.now())
        answer = _placed_order_answer(order, view, payment, lines, draft)
        return Step(finished=await finish(key, answer, answers))


# `session.save(update_fields=["status", "data", "updated_at"])`, written once and sent with the
# placing's other writes at the transaction's end (services/core/db.py `write_at_end`).
_AUTHORIZED = 'UPDATE "payment_session" SET "status" = ?, "data" = ?, "updated_at" = ? WHERE "id" = ?'


async def _record_authorization(session: PaymentSession) -> None:
    fields = PaymentSession._meta.fields_map
    await write(PaymentSession, _AUTHORIZED, [
        session.status, fields["data"].to_db_value(session.data, session),
        fields["updated_at"].to_db_value(session.updated_at, session),  # stamps it, as save() does
        session.id,
    ], at_end=True)


def _in_one(view: CartView) -> bool:
    session = view.payment_session
    return view.cart.type != "swap" and session is not None and authorizes_in_process(session.provider_id)


async def _authorize_locked(view: CartView, payment: Payment | None, seen: Seen) -> Step:
    """Authorize the cart's payment (none when one is live, or when nothing is to pay) and go on
    to placing; a session the shopper must act on answers the cart instead."""
    cart = view.cart
    if payment is None:
        shown = _shown_total(view)
        if shown is not None:
            _refuse_a_changed_total(view, shown)
        if view.totals.total > 0:
            waiting = await _authorize_session(cart, view.payment_session, view.totals.total)
            if waiting is not None:
                await drop_tax_lines(view)
                return Step.ends(cart_answer(cart.id, payment_status=waiting))
        else:
            await Cart.filter(id=cart.id).update(payment_authorized_at=clock.now())
    return Step.go_on("payment_authorized", seen)


async def _authorize_session(cart: Cart, session: PaymentSession | None, total: int) -> str | None:
    """Authorize the selected session for `total`; None when authorized, else the status the
    shopper must act on. The cart row is locked: one gateway call per cart at a time."""
    if session is None:
        raise NotAllowed("You cannot complete a cart without a payment session.")
    status, data = await get_provider(session.provider_id).authorize(session)
    session.status, session.data = status, data
    await session.save(update_fields=["status", "data", "updated_at"])
    if status in WAITING_STATUSES:
        return status
    if status != "authorized":
        raise InvalidData("Cart payment not authorized")
    payment = await Payment.create(
        cart_id=cart.id, amount=total, currency_code=cart.region.currency_code, provider_id=session.provider_id,
        data=data,
    )
    await Cart.filter(id=cart.id).update(payment_id=payment.id, payment_authorized_at=clock.now())
    return None


async def place(key: IdempotencyKey, cart_id: str, seen: Seen, answers: Answers) -> Step:
    """The order placed from the authorized cart (or a swap's cart confirming its swap). A total
    that moved since authorizing is refused when the shopper did not see it; when they did (they
    changed the cart), the payment goes back to be authorized afresh."""
    # No number is spent on a cart that already has its order, nor on a swap's: unless an earlier
    # stage of this run saw it open, it is asked (a rare race may still leave a number unused).
    if seen.display_id is not None:  # taken up front and not spent
        display_id = seen.display_id
    elif seen.numbered or not await Cart.filter(
            Q(id=cart_id) & (Q(completed_at__not_isnull=True) | Q(type="swap"))).exists():
        display_id = await next_display_id()  # outside the transaction: see services/orders/display_ids.py
    else:
        display_id = None
    async with atomic():
        view, stored, payment, seen = await _locked(cart_id, seen)
        cart = view.cart
        if done := await _completed(cart):
            return Step.ends(done)
        if display_id is None and cart.type != "swap":
            raise PlacingInterrupted(f"cart {cart_id} lost its completion while being placed")
        authorized = payment.amount if payment is not None else 0
        if authorized != _payable(view):
            if _shown_total(view) != _payable(view):
                _refuse_a_changed_total(view, authorized)
            # The shopper changed the cart after authorization (or the payment was canceled):
            # authorize what they now see.
            if payment is not None:
                await cancel_authorization(cart.id, payment)
            await idempotency.advance(key, "started")
            return Step.go_on("started", seen)
        kept = await store_tax_lines(view, stored)
        if cart.type == "swap":
            return Step.ends(swap_answer((await confirm_swap(view, payment)).id))
        draft = await DraftOrder.get_or_none(cart_id=cart.id) if cart.type == "draft_order" else None
        order = await place_order(view, display_id, payment=payment, draft_order=draft)
    return Step.ends(_placed_order_answer(order, view, payment, stored if kept else None, draft))


def _placed_order_answer(order, view: CartView, payment: Payment | None, lines: StoredTaxLines | None,
                         draft: DraftOrder | None) -> Answer:
    """A plain cart's order is answered from what placing it held (`lines`: the tax lines the
    cart holds, None when they were rewritten and not kept); one with offers, a gift-card line or
    a draft is read back (rows changed by placing would show stale)."""
    plain = lines is not None and draft is None and not (
        view.discounts or view.gift_cards or any(i.is_giftcard for i in view.items))
    return placed_answer(placed_view(order, view, payment, lines)) if plain else order_answer(order.id)


def _payable(view: CartView) -> int:
    """What the shopper pays: the total, or nothing when it is below zero (a swap's cart whose
    returned items are worth more than the new ones: the difference is given back later)."""
    return max(view.totals.total, 0)


def _shown_total(view: CartView) -> int | None:
    """The total the shopper agreed to pay: the selected session's amount (None: no session)."""
    session = view.payment_session
    return session.amount if session is not None else None


def _refuse_a_changed_total(view: CartView, shown: int) -> None:
    total = _payable(view)
    if total == shown:
        return
    if view.gift_cards and total > shown:
        raise GiftCardBalanceChanged([card.code for card in view.gift_cards])
    raise NotAllowed(
        f"The cart's total is now {total}, not the {shown} its payment was set up for. Refresh the payment "
        "sessions to pay the new total, then complete the cart again.", code="cart_total_changed",
    )

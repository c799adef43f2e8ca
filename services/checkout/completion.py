"""Cart completion with the idempotency contract of docs/architecture.md (Checkout).

A completion moves through recovery points, each stage in its own transaction that first locks
the cart row:

    started            → the provider's tax lines are stored on the cart and the selected
                         payment session is authorized (a Payment row); a key at
                         `tax_lines_created` (stored apart by earlier versions) is authorized
    payment_authorized → the order is placed (services/orders/placement.py), or a swap's
                         cart confirms its swap (services/swaps/confirmation.py)
    finished           → the response is stored and replayed for the key

The cart's live payment is what says a completion got past authorizing: a key resumed at
`started` finds it and goes on to placing. So the move to `payment_authorized` is not written
(placing follows at once, and a statement per checkout is saved); a key left there by an earlier
version goes on with placing.

A payment through a provider without a gateway (`manual`, `system`: services/payments/) is only
the rows written for it, so there is nothing for it to survive: such a cart is authorized and
placed in one transaction under one read of the cart, and the key is finished with the answer in
that same transaction. A failure rolls all of it back (the key stays at `started`, nothing
authorized, nothing placed); a commit answers the order and replays it. The display id is
taken first, on its own, only for a cart that is open, not a swap's, and pays through such a
provider (one statement that checks it); the locked read then checks again.

Every stage first looks at the cart: a completed cart answers its order, an authorized payment
is reused, so stages are safe to repeat, and two requests on one cart (with different keys, or
none) end in one order. A stage that fails for a transient reason (the database or a gateway
went away) lets the key go at its recovery point and asks the retry actor to go on; the client
retrying the key, the actor, or the scheduler's sweep of stalled keys finishes it.

The charge is what the shopper saw: the selected payment session's amount, which every change
the shopper makes re-syncs (services/payments/sessions.py). A total that moved without them (a
gift card's balance spent by another order, say) refuses the completion instead of re-pricing
it, and a refusal at placing cancels the payment authorized for it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import orjson

from tortoise.expressions import Q

from models import Cart, DraftOrder, IdempotencyKey, Order, Payment, PaymentSession, Swap
from services.checkout.answers import Answers
from services.core import idempotency
from services.carts.locks import lock_cart, lock_cart_rows
from services.payments.authorizations import cancel_authorization
from services.carts.view import CartView, load_cart_view, view_of
from services.core import clock
from services.core.db import atomic
from services.orders.display_ids import next_display_id, next_display_id_for_cart
from services.orders.view import OrderView, placed_view
from services.core.errors import DomainError, InvalidData, NotAllowed, UnexpectedState
from services.core.idempotency import Busy, KeyInUse, KeyReused, Mismatch, Replay
from services.orders.placement import (
    GiftCardBalanceChanged, InsufficientInventory, StoredTaxLines, drop_tax_lines, place_order, store_tax_lines,
    write_tax_lines,
)
from services.payments import authorizes_in_process, get_provider, in_process_ids
from services.swaps.confirmation import confirm_swap

__all__ = [
    "Answers", "Completion", "complete_cart", "resume_completion", "hand_over_stalled", "RETRY_ACTOR",
    "TransientFailure", "STALLED_AFTER_SECONDS", "KEY_RETENTION_SECONDS",
]

log = logging.getLogger("commerce.checkout")

RETRY_ACTOR = "retry_cart_completion"
WAITING_STATUSES = ("pending", "requires_more")  # the shopper has more to do at the gateway
STALLED_AFTER_SECONDS = 60.0  # an unfinished key untouched this long goes to the retry actor
KEY_RETENTION_SECONDS = 24 * 3600.0
RETRY_AFTER_SECONDS = 2  # what a client told to retry a stopped completion waits


@dataclass
class Completion:
    key: str
    status: int
    body: Any
    replayed: bool = False


class TransientFailure(UnexpectedState):
    """A stage failed for a reason that is not the shopper's; the key waits at `recovery_point`
    for the retry actor, or the client retrying it after `retry_after` seconds."""

    def __init__(self, key: str, recovery_point: str):
        super().__init__(
            "The order is not placed yet: completion is being retried. Retry with the same Idempotency-Key "
            "or poll the cart.", code="completion_retrying",
        )
        self.idempotency_key = key
        self.recovery_point = recovery_point
        self.retry_after = RETRY_AFTER_SECONDS


@dataclass
class _Run:
    """What one run of a key has seen of its cart."""
    answers: Answers
    numbered: bool = False  # a stage saw it open and not a swap's: placing takes a number unasked
    display_id: int | None = None  # a number taken for this cart and not spent yet
    asked: bool = False  # the number for authorizing and placing in one transaction was asked for
    in_one: bool = False  # authorizing and placing in one transaction: a failure left nothing to undo


@dataclass
class _Final:
    status: int
    build: Callable[[Answers], Awaitable[Any]]


async def complete_cart(
    cart_id: str, key_value: str | None, *, path: str, body: Any, answers: Answers, context: dict | None = None,
) -> Completion:
    """POST /store/carts/{id}/complete. Raises a DomainError naming the key: one the shopper can
    act on (the key is let go, so the same key may be retried after fixing the cart), KeyReused,
    KeyInUse or TransientFailure."""
    if key_value is not None and not 0 < len(key_value) <= idempotency.MAX_KEY_LENGTH:
        refusal = InvalidData(f"Idempotency-Key must be 1 to {idempotency.MAX_KEY_LENGTH} characters")
        refusal.idempotency_key = key_value
        raise refusal
    state = await idempotency.begin(key_value, "POST", path, body, {"cart_id": cart_id, **(context or {})})
    if isinstance(state, Mismatch):
        raise KeyReused(state.key)
    if isinstance(state, Busy):
        raise KeyInUse(state.key, state.retry_after)
    if isinstance(state, Replay):
        return Completion(state.key, state.status, state.body, replayed=True)
    return await _run(state.key, cart_id, answers, ask_for_retry=True)


async def resume_completion(key_id: str, answers: Answers) -> str:
    """The retry actor's work: go on with an unfinished key. Answers what happened."""
    key = await IdempotencyKey.get_or_none(id=key_id)
    if key is None:
        return "gone"
    state = await idempotency.take(key)
    if isinstance(state, Replay):
        return "finished"
    if isinstance(state, Busy):
        return "busy"
    cart_id = (state.key.request_params or {}).get("cart_id")
    try:
        await _run(state.key, cart_id, answers, ask_for_retry=False)
    except TransientFailure:
        raise  # the actor retries
    except DomainError:
        return "refused"
    return "finished"


async def hand_over_stalled(grace_seconds: float = STALLED_AFTER_SECONDS) -> int:
    """The scheduler's sweep: completions left unfinished (their holder died, or every retry
    so far failed) are handed to the retry actor again. Answers how many."""
    from services.core.outbox import enqueue

    keys = await idempotency.stalled(grace_seconds)
    for key in keys:
        await enqueue(RETRY_ACTOR, key.id)
    return len(keys)


async def _run(key: IdempotencyKey, cart_id: str, answers: Answers, *, ask_for_retry: bool) -> Completion:
    stages = {"started": _tax_and_authorize, "tax_lines_created": _authorize, "payment_authorized": _place}
    point, run = key.recovery_point, _Run(answers)
    try:
        while True:
            stage = stages.get(point)
            if stage is None:
                status, body = answers.refused(UnexpectedState("Unknown recovery point"))
                outcome = _Final(status, _const(body))
            else:
                outcome = await stage(key, cart_id, run)
            if isinstance(outcome, Completion):  # finished with the stage's own transaction
                return outcome
            if isinstance(outcome, str):  # the stage to go on with
                point = outcome
                continue
            return await _finish(key, outcome, answers)
    except InsufficientInventory as refusal:
        if not run.in_one:  # else the refused transaction authorized nothing
            await _undo_authorization(cart_id)
        # Medusa answers a stock shortfall as a finished request: the key stores it and replays it.
        status, body = answers.refused(refusal)
        await idempotency.finish(key, status, body)
        return Completion(key.idempotency_key, status, body)
    except DomainError as refusal:
        # The shopper can fix this (select a session, drop a spent code): no answer is stored
        # for the key, so the same key works once the cart is right.
        if run.in_one:
            pass  # the refused transaction stored and authorized nothing
        elif point == "payment_authorized":
            await _undo_refused_placing(key, cart_id)
        else:
            await _forget_tax_lines(cart_id)
        await idempotency.release(key, refused_status=400)
        refusal.idempotency_key = key.idempotency_key
        raise
    except Exception as e:
        log.warning("completion %s stopped at %s: %s", key.idempotency_key, key.recovery_point, e)
        await _let_go(key, ask_for_retry)
        raise TransientFailure(key.idempotency_key, key.recovery_point) from e


def _const(body: Any) -> Callable[[Answers], Awaitable[Any]]:
    async def build(answers: Answers) -> Any:
        return body
    return build


def _order_answer(order_id: str) -> _Final:
    async def build(answers: Answers) -> Any:
        return {"type": "order", "data": await answers.order(order_id)}
    return _Final(200, build)


def _placed_answer(view: OrderView) -> _Final:
    async def build(answers: Answers) -> Any:
        return {"type": "order", "data": await answers.placed_order(view)}
    return _Final(200, build)


def _swap_answer(swap_id: str) -> _Final:
    async def build(answers: Answers) -> Any:
        return {"type": "swap", "data": await answers.swap(swap_id)}
    return _Final(200, build)


async def _completed(cart: Cart) -> _Final | None:
    if cart.completed_at is None:
        return None
    if cart.type == "swap":
        return _swap_answer((await Swap.get(cart_id=cart.id)).id)
    order_id = await Order.filter(cart_id=cart.id).values_list("id", flat=True)
    if not order_id:  # completed by something other than checkout (e.g. a swap): answer the cart
        return _Final(200, lambda answers: _cart_answer(answers, cart.id))
    return _order_answer(order_id[0])


async def _cart_answer(answers: Answers, cart_id: str, **extra: Any) -> dict:
    return {"data": await answers.cart(cart_id), **extra, "type": "cart"}


async def _locked(cart_id: str, run: _Run) -> tuple[CartView, StoredTaxLines, Payment | None]:
    """The cart locked, completed or not, and read once under the lock with its taxes computed
    as a payment computes them, with the tax lines it has stored and its live payment."""
    rows = await lock_cart_rows(cart_id, stored_tax_lines=lambda cart: True, editable=False, with_payment=True)
    cart = rows.cart
    run.numbered = cart.completed_at is None and cart.type != "swap"
    live = rows.payment if cart.payment_authorized_at is not None else None
    return await view_of(rows, force_taxes=True), (rows.item_tax_lines, rows.method_tax_lines), live


async def _tax_and_authorize(key: IdempotencyKey, cart_id: str, run: _Run) -> _Final | str | Completion:
    """The first stage: the tax lines stored, then the payment authorized, in one transaction
    under one read of the cart (a key left at `tax_lines_created` by an earlier version goes on
    with `_authorize`). A cart paying through a provider without a gateway is placed in the same
    transaction (`_authorize_and_place`)."""
    if not run.asked and run.display_id is None:
        run.asked = True
        # A cart that can be authorized and placed in one transaction (checked again under the lock)
        run.display_id = await next_display_id_for_cart(cart_id, in_process_ids())
    async with atomic():
        view, stored, payment = await _locked(cart_id, run)
        if done := await _completed(view.cart):
            return done
        if run.display_id is not None and payment is None and _in_one(view):
            return await _authorize_and_place(key, view, stored, run)
        await store_tax_lines(view, stored)
        return await _authorize_locked(view, payment)


def _in_one(view: CartView) -> bool:
    session = view.payment_session
    return view.cart.type != "swap" and session is not None and authorizes_in_process(session.provider_id)


async def _authorize_and_place(key: IdempotencyKey, view: CartView, stored: StoredTaxLines, run: _Run) -> Completion | _Final:
    """Authorize through a provider without a gateway and place the order, in the caller's
    transaction (the cart locked and read once), and finish the key with the answer in it too:
    one commit makes all of it, a failure rolls all of it back."""
    run.in_one = True
    cart, session = view.cart, view.payment_session
    if session.amount is not None:
        _refuse_a_changed_total(view, session.amount)
    payment = None
    if view.totals.total > 0:
        status, data = await get_provider(session.provider_id).authorize(session)
        session.status, session.data = status, data
        await session.save(update_fields=["status", "data", "updated_at"])
        if status != "authorized":  # not what such a provider answers; as a gateway's answer is taken
            if status in WAITING_STATUSES:
                return _Final(200, lambda answers: _cart_answer(answers, cart.id, payment_status=status))
            raise InvalidData("Cart payment not authorized")
        payment = Payment(
            cart_id=cart.id, amount=view.totals.total, currency_code=cart.region.currency_code,
            provider_id=session.provider_id, data=data,
        )
    _, lines = await write_tax_lines(view, stored)
    draft = await DraftOrder.get_or_none(cart_id=cart.id) if cart.type == "draft_order" else None
    order = await place_order(
        view, run.display_id, payment=payment, draft_order=draft, authorized_at=clock.now())
    run.display_id = None
    return await _finish(key, _placed_order_answer(order, view, payment, lines, draft), run.answers)


async def _authorize(key: IdempotencyKey, cart_id: str, run: _Run) -> _Final | str:
    async with atomic():
        view, _, payment = await _locked(cart_id, run)
        if done := await _completed(view.cart):
            return done
        return await _authorize_locked(view, payment)


async def _authorize_locked(view: CartView, payment: Payment | None) -> _Final | str:
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
                return _Final(200, lambda answers: _cart_answer(answers, cart.id, payment_status=waiting))
        else:
            await Cart.filter(id=cart.id).update(payment_authorized_at=clock.now())
    return "payment_authorized"


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


async def _place(key: IdempotencyKey, cart_id: str, run: _Run) -> _Final | str:
    # No number is spent on a cart that already has its order, nor on a swap's: unless an earlier
    # stage of this run saw it open, it is asked (a rare race may still leave a number unused).
    if run.display_id is not None:  # taken by the first stage and not spent
        display_id = run.display_id
    elif run.numbered or not await Cart.filter(
            Q(id=cart_id) & (Q(completed_at__not_isnull=True) | Q(type="swap"))).exists():
        display_id = await next_display_id()  # outside the transaction: see services/orders/display_ids.py
    else:
        display_id = None
    async with atomic():
        view, stored, payment = await _locked(cart_id, run)
        cart = view.cart
        if done := await _completed(cart):
            return done
        if display_id is None and cart.type != "swap":
            raise RuntimeError("cart lost its completion while being placed")  # transient: retried
        authorized = payment.amount if payment is not None else 0
        if authorized != _payable(view):
            if _shown_total(view) != _payable(view):
                _refuse_a_changed_total(view, authorized)
            # The shopper changed the cart after authorization (or the payment was canceled):
            # authorize what they now see.
            if payment is not None:
                await cancel_authorization(cart.id, payment)
            await idempotency.advance(key, "started")
            return "started"
        kept = await store_tax_lines(view, stored)
        if cart.type == "swap":
            return _swap_answer((await confirm_swap(view, payment)).id)
        draft = await DraftOrder.get_or_none(cart_id=cart.id) if cart.type == "draft_order" else None
        order = await place_order(view, display_id, payment=payment, draft_order=draft)
        run.display_id = None
    return _placed_order_answer(order, view, payment, stored if kept else None, draft)


def _placed_order_answer(order, view: CartView, payment: Payment | None, lines: StoredTaxLines | None,
                         draft: DraftOrder | None) -> _Final:
    """A plain cart's order is answered from what placing it held (`lines`: the tax lines the
    cart holds, None when they were rewritten and not kept); one with offers, a gift-card line or
    a draft is read back (rows changed by placing would show stale)."""
    plain = lines is not None and draft is None and not (
        view.discounts or view.gift_cards or any(i.is_giftcard for i in view.items))
    return _placed_answer(placed_view(order, view, payment, lines)) if plain else _order_answer(order.id)


async def _finish(key: IdempotencyKey, outcome: _Final, answers: Answers) -> Completion:
    """The key finished with the outcome's answer, as JSON text would carry it, so the first
    answer and every replay are the same."""
    body = orjson.loads(orjson.dumps(await outcome.build(answers)))
    await idempotency.finish(key, outcome.status, body)
    return Completion(key.idempotency_key, outcome.status, body)


async def _live_payment(cart: Cart) -> Payment | None:
    if cart.payment_id is None or cart.payment_authorized_at is None:
        return None
    return await Payment.get_or_none(id=cart.payment_id, canceled_at=None)


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


async def _undo_authorization(cart_id: str, key: IdempotencyKey | None = None) -> None:
    """After a refusal at placing: release the payment and the tax lines (as Medusa does). With
    `key`, the key goes back to its start, to authorize afresh once the cart is right."""
    async with atomic():
        cart = await lock_cart(cart_id, editable=False)
        if cart.completed_at is not None:
            return
        payment = await _live_payment(cart)
        if payment is not None:
            await cancel_authorization(cart.id, payment)
        await drop_tax_lines(await load_cart_view(cart.id))
        if key is not None:
            await idempotency.advance(key, "started")


async def _undo_refused_placing(key: IdempotencyKey, cart_id: str) -> None:
    try:
        await _undo_authorization(cart_id, key)
    except DomainError:
        pass  # no such cart: nothing to release
    except Exception as e:  # the gateway or the database is down: the stale-authorization sweep cancels it
        log.warning("completion %s refused; its authorization is left for the sweep: %s", key.idempotency_key, e)


async def _forget_tax_lines(cart_id: str) -> None:
    try:
        async with atomic():
            cart = await lock_cart(cart_id, editable=False)
            if cart.completed_at is None:
                await drop_tax_lines(await load_cart_view(cart.id))
    except DomainError:
        pass  # no such cart: nothing stored


async def _let_go(key: IdempotencyKey, ask_for_retry: bool) -> None:
    from services.core.outbox import enqueue

    try:
        await idempotency.release(key)
        if ask_for_retry:
            await enqueue(RETRY_ACTOR, key.id)
    except Exception as e:  # the database is down too: the scheduler's sweep finds the key later
        log.warning("completion %s left for the sweep: %s", key.idempotency_key, e)

"""Cart completion with the idempotency contract of docs/architecture.md (Checkout).

A completion moves through recovery points, each stage in its own transaction that first locks
the cart row (stages.py):

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
authorized, nothing placed); a commit answers the order and replays it. That way is chosen once
per run, when it reaches `started`: by taking the display id first, on its own, which the orders
area does only for a cart that is open, not a swap's, and pays through such a provider (one
statement that checks it); the locked read then checks again.

Every stage first looks at the cart: a completed cart answers its order, an authorized payment
is reused, so stages are safe to repeat, and two requests on one cart (with different keys, or
none) end in one order. A stage that fails for a transient reason (the database or a gateway
went away) lets the key go at its recovery point and asks the retry actor to go on; the client
retrying the key, the actor, or the scheduler's sweep of stalled keys finishes it.

The charge is what the shopper saw: the selected payment session's amount, which every change
the shopper makes re-syncs (services/carts/payment_sessions.py). A total that moved without them (a
gift card's balance spent by another order, say) refuses the completion instead of re-pricing
it, and a refusal at placing cancels the payment authorized for it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from models import IdempotencyKey, Payment
from services.carts.locks import lock_cart
from services.carts.view import load_cart_view
from services.checkout.answers import Answers, Completion, finish, stored_answer
from services.checkout.stages import (
    Seen, StageFn, Step, authorize, authorize_and_place, place, tax_and_authorize,
)
from services.core import idempotency
from services.core.db import atomic
from services.core.errors import DomainError, InvalidData, UnexpectedState
from services.core.idempotency import Busy, KeyInUse, KeyReused, Mismatch, Replay
from services.orders.display_ids import next_display_id_for_cart
from services.orders.placement import InsufficientInventory, drop_tax_lines
from services.payments import in_process_ids
from services.payments.authorizations import cancel_authorization

__all__ = [
    "Answers", "Completion", "complete_cart", "resume_completion", "hand_over_stalled", "RETRY_ACTOR",
    "TransientFailure", "STALLED_AFTER_SECONDS", "KEY_RETENTION_SECONDS",
]

log = logging.getLogger("commerce.checkout")

RETRY_ACTOR = "retry_cart_completion"
STALLED_AFTER_SECONDS = 60.0  # an unfinished key untouched this long goes to the retry actor
KEY_RETENTION_SECONDS = 24 * 3600.0
RETRY_AFTER_SECONDS = 2  # what a client told to retry a stopped completion waits


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


Undo = Callable[[IdempotencyKey, str], Awaitable[None]]


@dataclass(frozen=True)
class Stage:
    """A stage and what a refusal in it leaves to undo (given the key and the cart's id): after a
    stock shortfall (the key then stores the refusal), and after any other refusal (the key is let
    go, for the shopper to fix the cart and retry it)."""
    run: StageFn
    after_shortfall: Undo
    after_refusal: Undo


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


async def _nothing(key: IdempotencyKey, cart_id: str) -> None:
    """A refused one-transaction stage stored and authorized nothing."""


async def _release_payment(key: IdempotencyKey, cart_id: str) -> None:
    await _undo_authorization(cart_id)


async def _forget_tax_lines(key: IdempotencyKey, cart_id: str) -> None:
    try:
        async with atomic():
            cart = await lock_cart(cart_id, editable=False)
            if cart.completed_at is None:
                await drop_tax_lines(await load_cart_view(cart.id))
    except DomainError:
        pass  # no such cart: nothing stored


async def _undo_refused_placing(key: IdempotencyKey, cart_id: str) -> None:
    try:
        await _undo_authorization(cart_id, key)
    except DomainError:
        pass  # no such cart: nothing to release
    except Exception as e:  # the gateway or the database is down: the stale-authorization sweep cancels it
        log.warning("completion %s refused; its authorization is left for the sweep: %s", key.idempotency_key, e)


STAGES = {
    "started": Stage(tax_and_authorize, after_shortfall=_release_payment, after_refusal=_forget_tax_lines),
    "tax_lines_created": Stage(authorize, after_shortfall=_release_payment, after_refusal=_forget_tax_lines),
    "payment_authorized": Stage(place, after_shortfall=_release_payment, after_refusal=_undo_refused_placing),
}
IN_ONE = Stage(authorize_and_place, after_shortfall=_nothing, after_refusal=_nothing)


async def _strategy(cart_id: str, seen: Seen) -> tuple[Stage, Seen]:
    """How `started` is gone through, chosen once per run: in one transaction with placing when
    the orders area gives the cart its number up front (it pays without a gateway), else staged."""
    display_id = await next_display_id_for_cart(cart_id, in_process_ids())
    if display_id is None:
        return STAGES["started"], seen
    return IN_ONE, Seen(seen.numbered, display_id)


async def _run(key: IdempotencyKey, cart_id: str, answers: Answers, *, ask_for_retry: bool) -> Completion:
    point, seen, chosen, stage = key.recovery_point, Seen(), False, None
    try:
        while True:
            stage = STAGES.get(point)
            if point == "started" and not chosen:  # the way through `started`, once per run
                chosen = True
                stage, seen = await _strategy(cart_id, seen)
            if stage is None:
                status, body = answers.refused(UnexpectedState("Unknown recovery point"))
                step = Step.ends(stored_answer(status, body))
            else:
                step = await stage.run(key, cart_id, seen, answers)
            if step.point is None:
                return step.finished or await finish(key, step.answer, answers)
            point, seen = step.point, step.seen
    except InsufficientInventory as refusal:
        await stage.after_shortfall(key, cart_id)
        # Medusa answers a stock shortfall as a finished request: the key stores it and replays it.
        status, body = answers.refused(refusal)
        await idempotency.finish(key, status, body)
        return Completion(key.idempotency_key, status, body)
    except DomainError as refusal:
        # The shopper can fix this (select a session, drop a spent code): no answer is stored
        # for the key, so the same key works once the cart is right.
        await stage.after_refusal(key, cart_id)
        await idempotency.release(key, refused_status=400)
        refusal.idempotency_key = key.idempotency_key
        raise
    except Exception as e:  # the database or a gateway went away, or PlacingInterrupted
        log.warning("completion %s stopped at %s: %s", key.idempotency_key, key.recovery_point, e)
        await _let_go(key, ask_for_retry)
        raise TransientFailure(key.idempotency_key, key.recovery_point) from e


async def _live_payment(cart) -> Payment | None:
    if cart.payment_id is None or cart.payment_authorized_at is None:
        return None
    return await Payment.get_or_none(id=cart.payment_id, canceled_at=None)


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


async def _let_go(key: IdempotencyKey, ask_for_retry: bool) -> None:
    from services.core.outbox import enqueue

    try:
        await idempotency.release(key)
        if ask_for_retry:
            await enqueue(RETRY_ACTOR, key.id)
    except Exception as e:  # the database is down too: the scheduler's sweep finds the key later
        log.warning("completion %s left for the sweep: %s", key.idempotency_key, e)

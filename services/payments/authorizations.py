"""Authorized cart payments that will not be captured: canceling one through its provider, and
the scheduled reconciler that cancels authorizations left without an order.

An authorization without an order holds the shopper's money at the gateway. Checkout cancels it
when a completion is refused; the reconciler catches what is left (a completion whose client gave
up, rows from before that rule). Money taken without an order is the worse failure,
so the reconciler never touches a payment whose cart has an order, nor one whose completion is
still in flight or waiting for its retry actor.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from tortoise.expressions import Q

from models import Cart, IdempotencyKey, Order, Payment
from services.core import clock
from services.core.db import atomic
from services.core.idempotency import FINISHED
from services.core.purging import past
from services.payments import get_provider

__all__ = [
    "cancel_authorization", "cancel_stale_authorizations", "completion_in_flight", "SWEEP_BATCH", "MAX_CANCELS",
]

log = logging.getLogger("commerce.authorizations")

SWEEP_BATCH = 100  # payments read a statement, along the index `ix_payment_open`
# Cancellations tried a run (each a call to the gateway, well inside the actor's time limit); the
# next run takes the rest. Payments passed over (an order has their cart, a completion still runs)
# do not count: they cost no call.
MAX_CANCELS = 500


async def cancel_authorization(cart_id: str, payment: Payment) -> None:
    """Release `payment` at its provider and on its row, and free its cart of it (the cart's row
    locked by the caller, inside its transaction)."""
    data = await get_provider(payment.provider_id).cancel(payment.data or {})
    await Payment.filter(id=payment.id).update(canceled_at=clock.now(), data=data)
    await Cart.filter(id=cart_id, payment_id=payment.id).update(payment_id=None, payment_authorized_at=None)


def _open_without_order(cutoff) -> Q:
    """Cart payments authorized before `cutoff`, neither canceled nor captured, without an order:
    the first three conditions are the predicate of the index `ix_payment_open`
    (models/migrations/0032_maintenance_indexes.py), which holds the few open payments only."""
    return (Q(canceled_at=None) & Q(captured_at=None) & Q(order_id=None) & Q(cart_id__not_isnull=True)
            & Q(swap_id=None) & Q(payment_collection_id=None) & Q(created_at__lt=cutoff))


async def cancel_stale_authorizations(max_age_seconds: float) -> dict[str, list[dict]]:
    """Cancel cart payments authorized more than `max_age_seconds` ago that have no order, oldest
    first, read SWEEP_BATCH at a time from where the last batch ended (so payments passed over are
    read once a run), each canceled in its own short transaction, until none is left or
    MAX_CANCELS were tried. Answers what was canceled and what failed (the next run tries those
    again); each cancellation is logged too."""
    cutoff = clock.now() - timedelta(seconds=max_age_seconds)
    canceled: list[dict] = []
    failed: list[dict] = []
    after = None
    while True:
        due = Payment.filter(_open_without_order(cutoff))
        if after is not None:
            due = due.filter(past("created_at", after))
        rows = await due.order_by("created_at", "id").limit(SWEEP_BATCH).values_list("created_at", "id")
        for _, payment_id in rows:
            if len(canceled) + len(failed) >= MAX_CANCELS:
                return {"canceled": canceled, "failed": failed}
            try:
                done = await _cancel_if_orphaned(payment_id)
            except Exception as e:  # one gateway's failure does not hold up the others
                log.warning("stale authorization %s not canceled: %s", payment_id, e)
                failed.append({"payment_id": payment_id, "error": f"{type(e).__name__}: {e}"[:500]})
                continue
            if done is not None:
                canceled.append(done)
        if len(rows) < SWEEP_BATCH:
            return {"canceled": canceled, "failed": failed}
        after = rows[-1]


async def _cancel_if_orphaned(payment_id: str) -> dict | None:
    cart_id = (await Payment.filter(id=payment_id).values_list("cart_id", flat=True) or [None])[0]
    async with atomic():
        # The cart's row lock first, as every checkout stage takes it: no completion moves meanwhile.
        await Cart.filter(id=cart_id).select_for_update().first()
        # Then the payment's, still open: a second sweep (another host) waits here and finds it canceled.
        payment = await Payment.filter(
            id=payment_id, canceled_at=None, captured_at=None, order_id=None).select_for_update().first()
        if payment is None or payment.cart_id != cart_id:
            return None
        if await Order.filter(cart_id=cart_id).exists():
            log.warning("authorization %s is not attached to the order of its cart %s: left for review",
                        payment.id, cart_id)
            return None
        if await completion_in_flight(cart_id):
            return None
        await cancel_authorization(cart_id, payment)
    log.info("canceled stale authorization %s of cart %s (%s %s by %s, authorized at %s)", payment.id, cart_id,
             payment.amount, payment.currency_code, payment.provider_id, payment.created_at.isoformat())
    return {"payment_id": payment.id, "cart_id": cart_id, "amount": payment.amount,
            "currency_code": payment.currency_code, "provider_id": payment.provider_id}


async def completion_in_flight(cart_id: str) -> bool:
    """Whether a completion of the cart is running or waiting for its retry: an unfinished key not
    refused back to the shopper (services/checkout/completion.py keeps the cart's id in its parameters).
    Keys not yet answered are the few of the index `ix_idempotency_key_unanswered`
    (models/migrations/0032_maintenance_indexes.py)."""
    params = await IdempotencyKey.filter(
        Q(recovery_point__not=FINISHED) & Q(response_code=None)
    ).values_list("request_params", flat=True)
    return any((p or {}).get("cart_id") == cart_id for p in params)

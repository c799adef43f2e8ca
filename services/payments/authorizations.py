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
from services.payments import get_provider

__all__ = ["cancel_authorization", "cancel_stale_authorizations", "completion_in_flight", "SWEEP_LIMIT"]

log = logging.getLogger("commerce.authorizations")

SWEEP_LIMIT = 100  # payments looked at per run; the next run takes the rest


async def cancel_authorization(cart_id: str, payment: Payment) -> None:
    """Release `payment` at its provider and on its row, and free its cart of it (the cart's row
    locked by the caller, inside its transaction)."""
    data = await get_provider(payment.provider_id).cancel(payment.data or {})
    await Payment.filter(id=payment.id).update(canceled_at=clock.now(), data=data)
    await Cart.filter(id=cart_id, payment_id=payment.id).update(payment_id=None, payment_authorized_at=None)


async def cancel_stale_authorizations(max_age_seconds: float) -> dict[str, list[dict]]:
    """Cancel cart payments authorized more than `max_age_seconds` ago that have no order (up to
    SWEEP_LIMIT a run). Answers what was canceled and what failed (the next run tries those
    again); each cancellation is logged too."""
    cutoff = clock.now() - timedelta(seconds=max_age_seconds)
    ids = await Payment.filter(
        Q(canceled_at=None) & Q(captured_at=None) & Q(order_id=None) & Q(cart_id__not_isnull=True)
        & Q(swap_id=None) & Q(payment_collection_id=None) & Q(created_at__lt=cutoff)
    ).order_by("created_at").limit(SWEEP_LIMIT).values_list("id", flat=True)
    canceled: list[dict] = []
    failed: list[dict] = []
    for payment_id in ids:
        try:
            done = await _cancel_if_orphaned(payment_id)
        except Exception as e:  # one gateway's failure does not hold up the others
            log.warning("stale authorization %s not canceled: %s", payment_id, e)
            failed.append({"payment_id": payment_id, "error": f"{type(e).__name__}: {e}"[:500]})
            continue
        if done is not None:
            canceled.append(done)
    return {"canceled": canceled, "failed": failed}


async def _cancel_if_orphaned(payment_id: str) -> dict | None:
    cart_id = (await Payment.filter(id=payment_id).values_list("cart_id", flat=True) or [None])[0]
    async with atomic():
        # The cart's row lock first, as every checkout stage takes it: no completion moves meanwhile.
        await Cart.filter(id=cart_id).select_for_update().first()
        payment = await Payment.get_or_none(id=payment_id, canceled_at=None, captured_at=None, order_id=None)
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
    refused back to the shopper (services/checkout/completion.py keeps the cart's id in its parameters)."""
    params = await IdempotencyKey.filter(
        Q(recovery_point__not=FINISHED) & Q(response_code=None)
    ).values_list("request_params", flat=True)
    return any((p or {}).get("cart_id") == cart_id for p in params)

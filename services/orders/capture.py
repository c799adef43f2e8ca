"""Capturing an order's payments, through their providers.

Order of work, so that a provider failing midway never leaves the order half-changed and a retry
finishes: each payment is captured in its own transaction that holds the order's row lock, the
provider called first and its capture recorded (`captured_at`, the provider's data) in the same
transaction; `payment_status` moves only after every payment is recorded. A transient failure
rolls back that one payment's transaction: the order still shows its payment status, payments
already recorded stay captured, and the next request skips them (the recovery point is the
payments' `captured_at`). The lock makes concurrent captures wait and then find the work done,
so a payment reaches its provider's capture once.

Unlike Medusa v1: canceled payments are never captured, a repeat after capture (or a refund)
changes nothing, and a provider's refusal (a domain error) is reported on the order as
`requires_action` rather than lost.
"""

from __future__ import annotations

import logging

from models import Order, Payment
from services.core import clock
from services.core.db import atomic
from services.core.errors import DomainError
from services.orders.locks import lock_order, stamped
from services.orders.statuses import plan
from services.payments import get_provider
from services.events import names as ev
from services.events.bus import emit

__all__ = ["capture_order"]

log = logging.getLogger("commerce.orders")


def _uncaptured(order_id: str):
    return Payment.filter(order_id=order_id, captured_at=None, canceled_at=None)


async def capture_order(order_id: str) -> None:
    """Capture every uncaptured, live payment of the order; NotAllowed on a canceled order."""
    async with atomic():
        order = await lock_order(order_id)
        if plan(order, "capture") is None:
            return
        pending = await _uncaptured(order.id).order_by("created_at", "id").values_list("id", flat=True)
    refused = False
    for payment_id in pending:
        refused |= not await _capture_one(order_id, payment_id)
    async with atomic():
        order = await lock_order(order_id)
        if plan(order, "capture") is None:
            return
        if refused or await _uncaptured(order.id).exists():
            changes = plan(order, "capture_refused")
        else:
            changes = plan(order, "capture")
        if changes:
            await Order.filter(id=order.id).update(**stamped(**changes))
            if changes.get("payment_status") == "captured":
                await emit(ev.ORDER_PAYMENT_CAPTURED, id=order.id, no_notification=order.no_notification)


async def _capture_one(order_id: str, payment_id: str) -> bool:
    """False when the provider refused the capture."""
    async with atomic():
        order = await lock_order(order_id)
        if plan(order, "capture") is None:
            return True
        payment = await _uncaptured(order.id).filter(id=payment_id).first()
        if payment is None:  # captured meanwhile
            return True
        try:
            data = await get_provider(payment.provider_id).capture(dict(payment.data or {}))
        except DomainError as refusal:
            log.warning("payment %s of order %s not captured: %s", payment.id, order_id, refusal.message)
            return False
        await Payment.filter(id=payment.id).update(data=data, captured_at=clock.now())
    return True

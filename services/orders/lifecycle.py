"""Completing and archiving an order: status moves only, by the
table of services/orders/statuses.py. A repeat changes nothing."""

from __future__ import annotations

from models import Order
from services.core.db import atomic
from services.orders.locks import lock_order, stamped
from services.orders.statuses import plan
from services.events.bus import emit
from services.events import names as ev

__all__ = ["complete_order", "archive_order"]


async def _move(order_id: str, operation: str, event: str | None = None) -> None:
    async with atomic():
        order = await lock_order(order_id)
        changes = plan(order, operation)
        if changes:
            await Order.filter(id=order.id).update(**stamped(**changes))
            if event:
                await emit(event, id=order.id, no_notification=order.no_notification)


async def complete_order(order_id: str) -> None:
    """`status` completed, from anything but canceled."""
    await _move(order_id, "complete", ev.ORDER_COMPLETED)


async def archive_order(order_id: str) -> None:
    """`status` archived, from completed or canceled."""
    await _move(order_id, "archive")

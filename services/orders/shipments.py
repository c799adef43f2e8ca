"""Shipping a fulfillment: `shipped_at`, its tracking links, and each of
its lines' `shipped_quantity`, in one transaction holding the order's row lock. The fulfillment is
marked shipped by a conditional UPDATE, so it is shipped once however often the request comes.

Unlike Medusa v1: a fulfillment already shipped is refused (Medusa counts its lines again and fails
on the database's check with a 500), and a shipped count never passes the fulfilled one.
"""

from __future__ import annotations

from tortoise.expressions import F

from models import Fulfillment, FulfillmentItem, TrackingLink
from services.core import clock
from services.core.db import atomic
from services.core.errors import NotAllowed
from services.orders.fulfilments import order_fulfillment
from services.orders.line_counts import move_counters, settle_fulfillment_status
from services.orders.locks import lock_order, stamped
from services.orders.statuses import plan
from services.events.bus import emit
from services.events import names as ev

__all__ = ["ship_fulfillment", "send_off"]

ALREADY_SHIPPED = "The fulfillment has already been shipped"


async def ship_fulfillment(
    order_id: str, fulfillment_id: str, tracking_numbers: list[str] | None = None, *,
    no_notification: bool | None = None,
) -> None:
    async with atomic():
        order = await lock_order(order_id)
        fulfillment = await order_fulfillment(order, fulfillment_id, missing="Could not find fulfillment")
        plan(order, "ship")
        await send_off(fulfillment, tracking_numbers, no_notification)
        await settle_fulfillment_status(order)
        await emit(ev.ORDER_SHIPMENT_CREATED, id=order.id, fulfillment_id=fulfillment.id,
                   no_notification=fulfillment.no_notification if no_notification is None else no_notification)


async def send_off(fulfillment: Fulfillment, tracking_numbers: list[str] | None, no_notification: bool | None) -> None:
    """Mark a fulfillment shipped with its tracking links and count its lines shipped. The
    caller holds the order's lock."""
    if fulfillment.canceled_at is not None:
        raise NotAllowed("Fulfillment has been canceled")
    numbers = [n for n in tracking_numbers or [] if n]
    changes: dict = {"shipped_at": clock.now(), "tracking_numbers": numbers}
    if no_notification is not None:
        changes["no_notification"] = no_notification
    shipped = await Fulfillment.filter(id=fulfillment.id, shipped_at=None, canceled_at=None).update(**stamped(**changes))
    if not shipped:
        raise NotAllowed(ALREADY_SHIPPED)
    await TrackingLink.bulk_create([TrackingLink(fulfillment_id=fulfillment.id, tracking_number=n) for n in numbers])
    parts = dict(await FulfillmentItem.filter(fulfillment_id=fulfillment.id).values_list("item_id", "quantity"))
    await move_counters(parts, "shipped_quantity", +1, F("fulfilled_quantity"), ALREADY_SHIPPED)

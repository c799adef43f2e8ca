"""Receiving a return: the items that arrived, each line's
`returned_quantity`, the stock of managed variants, the refund, and the order's fulfillment status.

One transaction holding the order's row lock; the return moves to `received` by a conditional
UPDATE first, so its stock and its refund happen once however often the request comes or races.
Unlike Medusa v1: a line's `returned_quantity` counts the units received, not those asked for; the
refund moves the payment status; a received quantity below one is refused; and a swap's return
gives no refund (its swap's difference settles the money; Medusa skips the refund silently).
"""

from __future__ import annotations

from collections import Counter

from tortoise.expressions import F

from models import LineItem, Order, Return, ReturnItem
from services.orders.placement import restock, variant_quantities
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData
from services.inventory.order_stock import restock_received
from services.orders.line_counts import chosen_quantities, move_counters, settle_fulfillment_status
from services.orders.locks import lock_order, stamped
from services.orders.refunds import refund_order
from services.orders.statuses import plan
from services.orders.view import load_order_view
from services.returns.requests import TOO_MANY
from services.returns.statuses import get_return, move_return
from services.events import names as ev
from services.events.bus import emit

__all__ = ["receive_return"]


async def receive_return(
    return_id: str, items: list[dict], *, refund: int | None = None, location_id: str | None = None,
) -> Return:
    """`items`: {item_id, quantity} that arrived; `refund`: what to give back instead of the
    return's refund amount (below zero: nothing)."""
    received = chosen_quantities(items)
    ret = await get_return(return_id)
    async with atomic():
        order = await lock_order(ret.order_id)
        ret = await get_return(return_id)
        plan(order, "receive_return")
        view = await load_order_view(order.id)
        lines = {i.id: i for i in view.items}
        for item_id, quantity in received.items():
            if item_id not in lines:
                raise InvalidData("Return contains invalid line item")
            if quantity > lines[item_id].quantity - (lines[item_id].returned_quantity or 0):
                raise InvalidData(TOO_MANY)
        amount = ret.refund_amount if refund is None else max(refund, 0)
        if ret.swap_id is not None and amount:
            raise InvalidData("A swap's return gives no refund: the swap's difference settles the money")
        changes = {"received_at": clock.now(), "refund_amount": amount}
        if location_id is not None:
            changes["location_id"] = location_id
        await move_return(ret, "receive", **changes)
        await _record_items(ret, received)
        await move_counters(dict(received), "returned_quantity", +1, F("quantity"), TOO_MANY)
        await restock_received(lines, received, location_id or ret.location_id, order.sales_channel_id)
        await _restock(lines, received)
        if amount > view.totals.refundable_amount:
            await Order.filter(id=order.id).update(**stamped(fulfillment_status="requires_action"))
            await emit(ev.ORDER_RETURN_ACTION_REQUIRED, id=order.id, return_id=ret.id,
                       no_notification=ret.no_notification)
        else:
            if amount > 0:
                await refund_order(order.id, amount, "return", no_notification=ret.no_notification,
                                   idempotency_key=f"return:{ret.id}")
            await settle_fulfillment_status(order)
            if ret.swap_id is not None:
                await emit(ev.SWAP_RECEIVED, id=ret.swap_id, order_id=order.id, no_notification=ret.no_notification)
            else:
                await emit(ev.ORDER_ITEMS_RETURNED, id=order.id, return_id=ret.id, no_notification=ret.no_notification)
    return await get_return(return_id)


async def _record_items(ret: Return, received: Counter[str]) -> None:
    """What arrived against what was asked for: asked-for lines keep their request and show what
    arrived; lines that arrived unasked are added as not requested."""
    asked = {i.item_id: i for i in await ReturnItem.filter(return_id=ret.id)}
    for item_id, row in asked.items():
        got = received.get(item_id, 0)
        await ReturnItem.filter(id=row.id).update(
            quantity=got, requested_quantity=row.requested_quantity or row.quantity, received_quantity=got,
            is_requested=got == (row.requested_quantity or row.quantity),
        )
    await ReturnItem.bulk_create([
        ReturnItem(return_id=ret.id, item_id=item_id, quantity=n, received_quantity=n, is_requested=False)
        for item_id, n in received.items() if item_id not in asked
    ])


async def _restock(lines: dict[str, LineItem], received: Counter[str]) -> None:
    """The received units back on their variants' shelves (those the order counted down)."""
    await restock(variant_quantities((lines[item_id].variant_id, n) for item_id, n in received.items()))

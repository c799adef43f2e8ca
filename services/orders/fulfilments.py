"""Fulfilling an order's lines and calling a fulfillment back: a
Fulfillment per shipping method the chosen lines go out with, made by the method's fulfillment
provider, and each line's `fulfilled_quantity`.

Quantities change once: each line's counter moves by a conditional UPDATE that cannot pass the
line's quantity (or go below zero), in one transaction holding the order's row lock, with the
provider called before anything is written; a provider failing leaves nothing behind and the
request can be sent again. Stock does not move: classic inventory counts it down at placement.

Unlike Medusa v1: an unknown line, a quantity below one or the same line twice are refused (Medusa
skips, accepts or double-counts them), a line whose shipping profile no method of the order
ships is refused rather than dropped, no empty fulfillment is made, a fulfillment is canceled
once, and the order's fulfillment status always describes its lines (statuses.py).
"""

from __future__ import annotations

from tortoise.expressions import F

from models import Fulfillment, FulfillmentItem, LineItem, Order, ShippingMethod
from services.core import clock
from services.core.db import atomic
from services.core.errors import NotAllowed, NotFound
from services.core.ids import fits
from services.fulfillment import get_provider
from services.inventory.order_stock import back_on_shelf, fulfil_reserved
from services.orders.line_counts import chosen_quantities, move_counters, settle_fulfillment_status
from services.orders.locks import lock_order, stamped
from services.orders.statuses import plan
from services.events import names as ev
from services.events.bus import emit

__all__ = [
    "fulfil_order", "fulfil_lines", "cancel_fulfillment", "call_back", "order_fulfillment", "unfulfilled",
    "owned_fulfillment",
]

TOO_MANY = "Cannot fulfill more items than have been purchased"


async def fulfil_order(
    order_id: str, items: list[dict], *, no_notification: bool | None = None, location_id: str | None = None,
    metadata: dict | None = None,
) -> list[Fulfillment]:
    """Fulfil `items` ({item_id, quantity}) of the order: one fulfillment per shipping method."""
    wanted = chosen_quantities(items)
    async with atomic():
        order = await lock_order(order_id)
        plan(order, "fulfil")
        made = await fulfil_lines("order_id", order.id, wanted, "Cannot fulfill an order that lacks shipping methods",
                                  no_notification=no_notification, location_id=location_id, metadata=metadata)
        await settle_fulfillment_status(order)
        for fulfillment in made:
            await emit(ev.ORDER_FULFILLMENT_CREATED, id=order.id, fulfillment_id=fulfillment.id,
                       no_notification=order.no_notification if no_notification is None else no_notification)
    return made


async def fulfil_lines(
    owner: str, owner_id: str, wanted: dict[str, int], no_method: str, *, no_notification: bool | None = None,
    location_id: str | None = None, metadata: dict | None = None,
) -> list[Fulfillment]:
    """Fulfil `wanted` units of lines belonging to `owner` (the column naming an order, a claim
    or a swap) with that owner's shipping methods. The caller holds the order's lock."""
    methods = await ShippingMethod.filter(**{owner: owner_id}).select_related("shipping_option").order_by(
        "created_at", "id")
    if not methods:
        raise NotAllowed(no_method)
    lines = {line.id: line for line in await LineItem.filter(**{owner: owner_id}, id__in=list(wanted))
             .select_related("variant__product")}
    for item_id, quantity in wanted.items():
        line = lines.get(item_id)
        if line is None:
            raise NotFound(f"Line item with id {item_id} was not found in {owner_id}")
        if quantity > line.quantity - (line.fulfilled_quantity or 0):
            raise NotAllowed(TOO_MANY)
    location_id = await fulfil_reserved(lines, wanted, location_id)  # stock per location
    made = []
    for method, group in _by_method(methods, [lines[i] for i in wanted]):
        parts = [{"item_id": line.id, "quantity": wanted[line.id]} for line in group]
        provider = get_provider(method.shipping_option.provider_id)
        data = await provider.create_fulfillment(dict(method.data or {}), parts, owner_id)
        fulfillment = await Fulfillment.create(
            **{owner: owner_id}, provider_id=provider.id, location_id=location_id, data=data,
            no_notification=no_notification, metadata=metadata or {},
        )
        await FulfillmentItem.bulk_create([FulfillmentItem(fulfillment_id=fulfillment.id, **p) for p in parts])
        made.append(fulfillment)
    await move_counters(dict(wanted), "fulfilled_quantity", +1, F("quantity"), TOO_MANY)
    return made


async def unfulfilled(owner: str, owner_id: str) -> dict[str, int]:
    """The units of each line of `owner` (a claim's or a swap's new lines) not yet fulfilled."""
    remaining = {line.id: line.quantity - (line.fulfilled_quantity or 0)
                 for line in await LineItem.filter(**{owner: owner_id})}
    return {item_id: n for item_id, n in remaining.items() if n > 0}


async def owned_fulfillment(owner: str, owner_id: str, fulfillment_id: str, kind: str) -> Fulfillment:
    """The fulfillment with that id made for `owner` (the column naming a claim or a swap):
    Medusa's 404s for an unknown one and for another's (`kind`: claim, swap)."""
    found = await Fulfillment.get_or_none(id=fulfillment_id) if fits(Fulfillment, fulfillment_id) else None
    if found is None:
        raise NotFound(f"Fulfillment with id: {fulfillment_id} was not found")
    if getattr(found, owner) != owner_id:
        raise NotFound(f"no fulfillment was found with the id: {fulfillment_id} related to {kind}: {owner_id}")
    return found


def _by_method(methods: list[ShippingMethod], lines: list[LineItem]) -> list[tuple[ShippingMethod, list[LineItem]]]:
    """The lines each shipping method takes: all of them with one method, else those of the
    method's shipping profile (Medusa's partition)."""
    if len(methods) == 1:
        return [(methods[0], lines)]
    groups: dict[str, list[LineItem]] = {m.id: [] for m in methods}
    by_profile = {}
    for method in methods:
        by_profile.setdefault(method.shipping_option.profile_id, method)
    for line in lines:
        profile = line.variant.product.profile_id if line.variant and line.variant.product else None
        method = by_profile.get(profile)
        if method is None:
            raise NotAllowed(f"No shipping method of the order ships the shipping profile of item {line.id}")
        groups[method.id].append(line)
    return [(m, groups[m.id]) for m in methods if groups[m.id]]


async def order_fulfillment(order: Order, fulfillment_id: str, missing: str | None = None) -> Fulfillment:
    """The order's fulfillment with that id: Medusa's 404s for an unknown one and for another's."""
    fulfillment = await Fulfillment.get_or_none(id=fulfillment_id) if fits(Fulfillment, fulfillment_id) else None
    if fulfillment is None:
        raise NotFound(f"Fulfillment with id: {fulfillment_id} was not found")
    if fulfillment.order_id != order.id:
        raise NotFound(missing or f"no fulfillment was found with the id: {fulfillment_id} related to order: {order.id}")
    return fulfillment


async def cancel_fulfillment(order_id: str, fulfillment_id: str) -> None:
    """Call back a fulfillment not yet shipped; its lines can be fulfilled again. A canceled
    one stays as it is (a repeat changes nothing)."""
    async with atomic():
        order = await lock_order(order_id)
        fulfillment = await order_fulfillment(order, fulfillment_id)
        if fulfillment.canceled_at is not None:
            return
        plan(order, "cancel_fulfillment")
        if await call_back(fulfillment):
            await settle_fulfillment_status(order)
            await emit(ev.ORDER_FULFILLMENT_CANCELED, id=order.id, fulfillment_id=fulfillment.id,
                       no_notification=fulfillment.no_notification)


async def call_back(fulfillment: Fulfillment) -> bool:
    """Cancel a fulfillment at its provider and give its units back to its lines; False when it
    was canceled meanwhile. The caller holds the order's lock."""
    if fulfillment.shipped_at is not None:
        raise NotAllowed("The fulfillment has already been shipped. Shipped fulfillments cannot be canceled")
    data = await get_provider(fulfillment.provider_id).cancel_fulfillment(dict(fulfillment.data or {}))
    canceled = await Fulfillment.filter(id=fulfillment.id, canceled_at=None, shipped_at=None).update(
        **stamped(canceled_at=clock.now(), data=data))
    if not canceled:
        return False
    parts = dict(await FulfillmentItem.filter(fulfillment_id=fulfillment.id).values_list("item_id", "quantity"))
    await move_counters(parts, "fulfilled_quantity", -1, None, "The fulfillment's items were changed meanwhile")
    await back_on_shelf(fulfillment.location_id, parts)  # stock per location
    return True

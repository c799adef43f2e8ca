"""Asking for a return, by the merchant or by the shopper: a Return in
`requested` with its items and their reasons, the refund it will give (computed as Medusa v1
computes it, or given by the merchant), and how it is shipped back (a return shipping method,
taxed, and the provider's return).

One transaction holding the order's row lock: two requests for the same items cannot both take
them. Unlike Medusa v1, units already asked for by a live return count against what can be
returned, a line or quantity below one is refused rather than skipped, the shipping option must be
a live return option of the order's region, and a computed refund never goes below zero.
"""

from __future__ import annotations

from collections import Counter

from models import (
    Order, Return, ReturnItem, ReturnReason, ShippingMethod, ShippingMethodTaxLine, ShippingOption, TaxRate,
)
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed, NotFound
from services.core.ids import fits
from services.fulfillment import get_provider
from services.orders.line_counts import chosen_quantities
from services.orders.locks import lock_order
from services.orders.statuses import LIVE_RETURN, plan
from services.orders.view import OrderView, load_order_view
from services.regions.taxes import TaxLine, load_overrides, option_lines
from services.returns.amounts import items_refund, shipping_cost
from services.events import names as ev
from services.events.bus import emit

__all__ = ["request_return", "TOO_MANY"]

TOO_MANY = "Cannot return more items than have been purchased"


async def _pending(order_id: str) -> Counter[str]:
    """Units of each line already asked for by the order's live returns."""
    live = Return.filter(order_id=order_id, status__in=LIVE_RETURN).values_list("id", flat=True)
    pending: Counter[str] = Counter()
    for item_id, quantity in await ReturnItem.filter(return_id__in=await live).values_list("item_id", "quantity"):
        pending[item_id] += quantity
    return pending


async def _check_reasons(items: list[dict]) -> None:
    ids = {i["reason_id"] for i in items if i.get("reason_id")}
    if not ids:
        return
    found = {r.id for r in await ReturnReason.filter(id__in=list(ids), deleted_at=None)}
    for reason_id in ids - found:
        raise NotFound(f"Return reason with id {reason_id} was not found")
    if await ReturnReason.filter(parent_return_reason_id__in=list(ids), deleted_at=None).exists():
        raise InvalidData("Cannot apply return reason category")


async def check_returnable(view: OrderView, wanted: Counter[str]) -> None:
    lines = {i.id: i for i in view.items}
    pending = await _pending(view.order.id)
    for item_id, quantity in wanted.items():
        line = lines.get(item_id)
        if line is None:
            raise NotFound(f"Line item with {item_id} was not found")
        if quantity > line.quantity - (line.returned_quantity or 0) - pending[item_id]:
            raise NotAllowed(TOO_MANY)


async def _return_option(order: Order, option_id: str) -> ShippingOption:
    option = await ShippingOption.get_or_none(id=option_id, deleted_at=None) if fits(ShippingOption, option_id) else None
    if option is None or not option.is_return or option.region_id != order.region_id:
        raise NotFound(f"Shipping Option with {option_id} was not found")
    return option


async def request_return(
    order_id: str, items: list[dict], *, return_shipping: dict | None = None, refund: int | None = None,
    no_notification: bool | None = None, location_id: str | None = None, idempotency_key: str | None = None,
    announce: bool = True,
) -> Return:
    """`items`: {item_id, quantity, reason_id?, note?}; `return_shipping`: {option_id, price?};
    `refund`: what to give back instead of the computed amount (below zero: nothing). A swap's or
    a claim's return is not `announce`d: their own events say it."""
    wanted = chosen_quantities(items)
    async with atomic():
        order = await lock_order(order_id)
        plan(order, "request_return")
        await _check_reasons(items)
        view = await load_order_view(order.id)
        await check_returnable(view, wanted)
        option = await _return_option(order, return_shipping["option_id"]) if return_shipping else None
        price = return_shipping.get("price") if return_shipping else None
        if option is not None and price is None:
            price = option.amount or 0
        tax_lines = await _shipping_tax_lines(order, option) if option is not None else []
        if refund is not None:
            amount = max(refund, 0)
            if amount > view.totals.refundable_amount:
                raise InvalidData("Cannot refund more than the original payment")
        else:
            cost = shipping_cost(price, [t.rate for t in tax_lines], order.tax_rate, option.includes_tax) \
                if option is not None else 0
            amount = max(items_refund(view, wanted) - cost, 0)
        ret = await Return.create(
            order_id=order.id, refund_amount=amount, location_id=location_id, idempotency_key=idempotency_key,
            no_notification=order.no_notification if no_notification is None else no_notification,
        )
        metadata = {i.id: i.metadata for i in view.items}
        await ReturnItem.bulk_create([
            ReturnItem(return_id=ret.id, item_id=i["item_id"], quantity=i["quantity"], requested_quantity=i["quantity"],
                       reason_id=i.get("reason_id") or None, note=i.get("note"), metadata=metadata[i["item_id"]])
            for i in items
        ])
        if option is not None:
            await _ship_back(ret, option, price, tax_lines)
        if announce:
            await emit(ev.ORDER_RETURN_REQUESTED, id=order.id, return_id=ret.id, no_notification=ret.no_notification)
    return ret


async def _shipping_tax_lines(order: Order, option: ShippingOption) -> list[TaxLine]:
    """The tax lines of the return shipping in the order's region (none when the order has its
    own rate, which taxes it instead)."""
    if order.tax_rate is not None:
        return []
    region = await order.region
    overrides = await load_overrides(await TaxRate.filter(region_id=region.id), option_ids=[option.id])
    return option_lines(region, overrides, option.id)


async def _ship_back(ret: Return, option: ShippingOption, price: int, tax_lines: list[TaxLine]) -> None:
    """The return's shipping method, its tax lines, and the provider's return shipment."""
    method = await ShippingMethod.create(return_id=ret.id, shipping_option_id=option.id, price=price, data={},
                                        includes_tax=option.includes_tax)
    await ShippingMethodTaxLine.bulk_create([
        ShippingMethodTaxLine(shipping_method_id=method.id, rate=line.rate, name=line.name, code=line.code)
        for line in tax_lines
    ])
    data = await get_provider(option.provider_id).create_return(dict(option.data or {}), ret.id)
    await Return.filter(id=ret.id).update(shipping_data=data)

"""The swaps of a page of orders as the order answer shows them (`swaps` and the names below
it), and one swap as `/admin/swaps/{id}` and the store's swap routes show it: a fixed number of
statements, none when the orders have no swaps."""

from __future__ import annotations

from dataclasses import dataclass, field

from models import (
    Address, Fulfillment, FulfillmentItem, LineItem, LineItemAdjustment, LineItemTaxLine, Order, Payment, Return,
    ReturnItem, ShippingMethod, Swap, TrackingLink,
)
from services.core.errors import NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, page_total, rows_by

__all__ = ["SwapParts", "load_swaps", "load_swap_parts", "list_swaps", "swap_of_cart", "swaps_by_id"]


@dataclass
class SwapParts:
    swap: Swap
    additional_items: list[LineItem] = field(default_factory=list)  # with variant, product and profile
    item_tax_lines: dict[str, list[LineItemTaxLine]] = field(default_factory=dict)
    item_adjustments: dict[str, list[LineItemAdjustment]] = field(default_factory=dict)
    fulfillments: list[Fulfillment] = field(default_factory=list)
    fulfillment_items: dict[str, list[FulfillmentItem]] = field(default_factory=dict)
    tracking_links: dict[str, list[TrackingLink]] = field(default_factory=dict)
    return_order: Return | None = None
    return_items: list[ReturnItem] = field(default_factory=list)  # with reason
    return_method: ShippingMethod | None = None  # with option and tax lines
    payment: Payment | None = None
    shipping_address: Address | None = None
    shipping_methods: list[ShippingMethod] = field(default_factory=list)  # with option and tax lines
    order: Order | None = None  # read only when asked for (a swap shown on its own)


async def load_swaps(order_ids: list[str], swaps: list[Swap]) -> dict[str, list[SwapParts]]:
    """The parts of `swaps`, the live swaps of the orders (read with them, services/orders/order_rows.py)."""
    out: dict[str, list[SwapParts]] = {i: [] for i in order_ids}
    for parts in await load_swap_parts(swaps):
        out[parts.swap.order_id].append(parts)
    return out


async def list_swaps(limit: int, offset: int) -> tuple[list[Swap], int]:
    """Live swaps, newest first (Medusa's `/admin/swaps`)."""
    live = Swap.filter(deleted_at=None)
    page = list(await live.order_by("-created_at", "-id").offset(offset).limit(limit))
    return page, await page_total(live, FindConfig(limit=limit, offset=offset), len(page))


async def swap_of_cart(cart_id: str) -> Swap:
    swap = await Swap.get_or_none(cart_id=cart_id, deleted_at=None) if fits(Swap, cart_id, "cart_id") else None
    if swap is None:
        raise NotFound("Swap was not found")
    return swap


async def swaps_by_id(ids: list[str]) -> dict[str, Swap]:
    return {s.id: s for s in await Swap.filter(id__in=ids)} if ids else {}


async def load_swap_parts(swaps: list[Swap], *, with_order: bool = False) -> list[SwapParts]:
    if not swaps:
        return []
    ids = [s.id for s in swaps]
    extras = rows_by(await LineItem.filter(swap_id__in=ids).select_related("variant__product__profile").order_by(
        "created_at", "id"), "swap_id", ids)
    extra_ids = [line.id for rows in extras.values() for line in rows]
    tax_lines = rows_by(await LineItemTaxLine.filter(item_id__in=extra_ids), "item_id", extra_ids) if extra_ids else {}
    adjustments = rows_by(await LineItemAdjustment.filter(item_id__in=extra_ids), "item_id",
                          extra_ids) if extra_ids else {}
    fulfillments = rows_by(await Fulfillment.filter(swap_id__in=ids).order_by("created_at", "id"), "swap_id", ids)
    ful_ids = [f.id for rows in fulfillments.values() for f in rows]
    ful_items = rows_by(await FulfillmentItem.filter(fulfillment_id__in=ful_ids), "fulfillment_id",
                        ful_ids) if ful_ids else {}
    links = rows_by(await TrackingLink.filter(fulfillment_id__in=ful_ids, deleted_at=None), "fulfillment_id",
                    ful_ids) if ful_ids else {}
    returns = {r.swap_id: r for r in await Return.filter(swap_id__in=ids)}
    ret_ids = [r.id for r in returns.values()]
    ret_items = rows_by(await ReturnItem.filter(return_id__in=ret_ids).select_related("reason").order_by("id"),
                        "return_id", ret_ids) if ret_ids else {}
    ret_methods = {m.return_id: m for m in await ShippingMethod.filter(return_id__in=ret_ids).select_related(
        "shipping_option").prefetch_related("tax_lines")} if ret_ids else {}
    payments = {p.swap_id: p for p in await Payment.filter(swap_id__in=ids).order_by("created_at", "id")}
    address_ids = [s.shipping_address_id for s in swaps if s.shipping_address_id]
    addresses = {a.id: a for a in await Address.filter(id__in=address_ids)} if address_ids else {}
    orders = {o.id: o for o in await Order.filter(id__in=list({s.order_id for s in swaps}))} if with_order else {}
    methods = rows_by(await ShippingMethod.filter(swap_id__in=ids).select_related("shipping_option")
                      .prefetch_related("tax_lines").order_by("created_at", "id"), "swap_id", ids)
    out = []
    for swap in swaps:
        ret = returns.get(swap.id)
        out.append(SwapParts(
            swap=swap, additional_items=extras[swap.id],
            item_tax_lines={line.id: tax_lines.get(line.id, []) for line in extras[swap.id]},
            item_adjustments={line.id: adjustments.get(line.id, []) for line in extras[swap.id]},
            fulfillments=fulfillments[swap.id],
            fulfillment_items={f.id: ful_items.get(f.id, []) for f in fulfillments[swap.id]},
            tracking_links={f.id: links.get(f.id, []) for f in fulfillments[swap.id]},
            return_order=ret, return_items=ret_items.get(ret.id, []) if ret else [],
            return_method=ret_methods.get(ret.id) if ret else None, payment=payments.get(swap.id),
            shipping_address=addresses.get(swap.shipping_address_id), shipping_methods=methods[swap.id],
            order=orders.get(swap.order_id),
        ))
    return out

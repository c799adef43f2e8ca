"""What claims and swaps show alike under an order, read for a page of them at once: each one's new
lines (with variant, product and profile, their tax lines and adjustments), its fulfillments
(with their items and live tracking links) and its return (with its items and their reasons, and
its shipping method with option and tax lines). One statement per kind of row, none for a kind
below rows that do not exist.

It lives in orders, below both claims and swaps, because the rows are the order's own kinds
(lines, fulfillments, returns) owned by the after-sale's column (`claim_order_id`, `swap_id`);
each after-sale's view adds what is its own (services/claims/view.py, services/swaps/view.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from models import (
    Fulfillment, FulfillmentItem, LineItem, LineItemAdjustment, LineItemTaxLine, Return, ReturnItem, ShippingMethod,
    TrackingLink,
)
from services.core.listing import rows_by

__all__ = ["NewLinesAndParcels", "load_new_lines_and_parcels"]


@dataclass
class NewLinesAndParcels:
    """One after-sale's rows; the names are those of its parts (ClaimParts, SwapParts)."""

    additional_items: list[LineItem] = field(default_factory=list)  # with variant, product and profile
    item_tax_lines: dict[str, list[LineItemTaxLine]] = field(default_factory=dict)  # by line id
    item_adjustments: dict[str, list[LineItemAdjustment]] = field(default_factory=dict)  # by line id
    fulfillments: list[Fulfillment] = field(default_factory=list)
    fulfillment_items: dict[str, list[FulfillmentItem]] = field(default_factory=dict)  # by fulfillment id
    tracking_links: dict[str, list[TrackingLink]] = field(default_factory=dict)  # by fulfillment id
    return_order: Return | None = None
    return_items: list[ReturnItem] = field(default_factory=list)  # with reason
    return_method: ShippingMethod | None = None  # with option and tax lines


async def load_new_lines_and_parcels(owner: str, ids: list[str]) -> dict[str, NewLinesAndParcels]:
    """The rows of the after-sales `ids` (not empty), by id; `owner` is the column naming them."""
    extras = rows_by(await LineItem.filter(**{f"{owner}__in": ids}).select_related(
        "variant__product__profile").order_by("created_at", "id"), owner, ids)
    extra_ids = [line.id for rows in extras.values() for line in rows]
    tax_lines = rows_by(await LineItemTaxLine.filter(item_id__in=extra_ids), "item_id", extra_ids) if extra_ids else {}
    adjustments = rows_by(await LineItemAdjustment.filter(item_id__in=extra_ids), "item_id",
                          extra_ids) if extra_ids else {}
    fulfillments = rows_by(await Fulfillment.filter(**{f"{owner}__in": ids}).order_by("created_at", "id"), owner, ids)
    ful_ids = [f.id for rows in fulfillments.values() for f in rows]
    ful_items = rows_by(await FulfillmentItem.filter(fulfillment_id__in=ful_ids), "fulfillment_id",
                        ful_ids) if ful_ids else {}
    links = rows_by(await TrackingLink.filter(fulfillment_id__in=ful_ids, deleted_at=None), "fulfillment_id",
                    ful_ids) if ful_ids else {}
    returns = {getattr(r, owner): r for r in await Return.filter(**{f"{owner}__in": ids})}
    ret_ids = [r.id for r in returns.values()]
    ret_items = rows_by(await ReturnItem.filter(return_id__in=ret_ids).select_related("reason").order_by("id"),
                        "return_id", ret_ids) if ret_ids else {}
    ret_methods = {m.return_id: m for m in await ShippingMethod.filter(return_id__in=ret_ids).select_related(
        "shipping_option").prefetch_related("tax_lines")} if ret_ids else {}
    out = {}
    for owner_id in ids:
        ret = returns.get(owner_id)
        out[owner_id] = NewLinesAndParcels(
            additional_items=extras[owner_id],
            item_tax_lines={line.id: tax_lines.get(line.id, []) for line in extras[owner_id]},
            item_adjustments={line.id: adjustments.get(line.id, []) for line in extras[owner_id]},
            fulfillments=fulfillments[owner_id],
            fulfillment_items={f.id: ful_items.get(f.id, []) for f in fulfillments[owner_id]},
            tracking_links={f.id: links.get(f.id, []) for f in fulfillments[owner_id]},
            return_order=ret, return_items=ret_items.get(ret.id, []) if ret else [],
            return_method=ret_methods.get(ret.id) if ret else None,
        )
    return out

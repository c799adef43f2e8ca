"""The claims of a page of orders as the order answer shows them (`claims` and the names below
it): a fixed number of statements, none when the orders have no claims."""

from __future__ import annotations

from dataclasses import dataclass, field

from tortoise.query_utils import Prefetch

from models import (
    Address, ClaimImage, ClaimItem, ClaimOrder, Fulfillment, FulfillmentItem, LineItem, LineItemAdjustment,
    LineItemTaxLine, Return, ReturnItem, ShippingMethod, TrackingLink,
)
from services.core.listing import rows_by

__all__ = ["ClaimParts", "load_claims"]


@dataclass
class ClaimParts:
    claim: ClaimOrder
    claim_items: list[ClaimItem] = field(default_factory=list)  # with images, tags, and item (with variant)
    additional_items: list[LineItem] = field(default_factory=list)  # with variant (and product)
    item_tax_lines: dict[str, list[LineItemTaxLine]] = field(default_factory=dict)
    item_adjustments: dict[str, list[LineItemAdjustment]] = field(default_factory=dict)
    fulfillments: list[Fulfillment] = field(default_factory=list)
    fulfillment_items: dict[str, list[FulfillmentItem]] = field(default_factory=dict)
    tracking_links: dict[str, list[TrackingLink]] = field(default_factory=dict)
    return_order: Return | None = None
    return_items: list[ReturnItem] = field(default_factory=list)
    return_method: ShippingMethod | None = None  # with option and tax lines
    shipping_address: Address | None = None
    shipping_methods: list[ShippingMethod] = field(default_factory=list)  # with option and tax lines


async def load_claims(order_ids: list[str], claims: list[ClaimOrder]) -> dict[str, list[ClaimParts]]:
    """The parts of `claims`, the live claims of the orders (read with them, services/orders/order_rows.py)."""
    out: dict[str, list[ClaimParts]] = {i: [] for i in order_ids}
    if not claims:
        return out
    ids = [c.id for c in claims]
    items = rows_by(await ClaimItem.filter(claim_order_id__in=ids, deleted_at=None).prefetch_related(
        Prefetch("images", queryset=ClaimImage.filter(deleted_at=None).order_by("created_at", "id")), "tags",
    ).order_by("created_at", "id"), "claim_order_id", ids)
    claimed = {line.id: line for line in await LineItem.filter(
        id__in=list({i.item_id for rows in items.values() for i in rows})).select_related("variant")}
    extras = rows_by(await LineItem.filter(claim_order_id__in=ids).select_related("variant__product__profile").order_by(
        "created_at", "id"), "claim_order_id", ids)
    extra_ids = [line.id for rows in extras.values() for line in rows]
    tax_lines = rows_by(await LineItemTaxLine.filter(item_id__in=extra_ids), "item_id", extra_ids) if extra_ids else {}
    adjustments = rows_by(await LineItemAdjustment.filter(item_id__in=extra_ids), "item_id",
                          extra_ids) if extra_ids else {}
    fulfillments = rows_by(await Fulfillment.filter(claim_order_id__in=ids).order_by("created_at", "id"),
                           "claim_order_id", ids)
    ful_ids = [f.id for rows in fulfillments.values() for f in rows]
    ful_items = rows_by(await FulfillmentItem.filter(fulfillment_id__in=ful_ids), "fulfillment_id", ful_ids) if ful_ids else {}
    links = rows_by(await TrackingLink.filter(fulfillment_id__in=ful_ids, deleted_at=None), "fulfillment_id",
                    ful_ids) if ful_ids else {}
    returns = {r.claim_order_id: r for r in await Return.filter(claim_order_id__in=ids)}
    ret_ids = [r.id for r in returns.values()]
    ret_items = rows_by(await ReturnItem.filter(return_id__in=ret_ids).select_related("reason").order_by("id"),
                        "return_id", ret_ids) if ret_ids else {}
    ret_methods = {m.return_id: m for m in await ShippingMethod.filter(return_id__in=ret_ids).select_related(
        "shipping_option").prefetch_related("tax_lines")} if ret_ids else {}
    addresses = {a.id: a for a in await Address.filter(id__in=[c.shipping_address_id for c in claims if c.shipping_address_id])}
    methods = rows_by(await ShippingMethod.filter(claim_order_id__in=ids).select_related("shipping_option")
                      .prefetch_related("tax_lines"), "claim_order_id", ids)
    for claim in claims:
        for item in items[claim.id]:
            item.item = claimed.get(item.item_id)
        ret = returns.get(claim.id)
        out[claim.order_id].append(ClaimParts(
            claim=claim, claim_items=items[claim.id], additional_items=extras[claim.id],
            item_tax_lines={line.id: tax_lines.get(line.id, []) for line in extras[claim.id]},
            item_adjustments={line.id: adjustments.get(line.id, []) for line in extras[claim.id]},
            fulfillments=fulfillments[claim.id],
            fulfillment_items={f.id: ful_items.get(f.id, []) for f in fulfillments[claim.id]},
            tracking_links={f.id: links.get(f.id, []) for f in fulfillments[claim.id]},
            return_order=ret, return_items=ret_items.get(ret.id, []) if ret else [],
            return_method=ret_methods.get(ret.id) if ret else None, shipping_address=addresses.get(claim.shipping_address_id), shipping_methods=methods[claim.id],
        ))
    return out

"""The claims of a page of orders as the order answer shows them (`claims` and the names below
it): a fixed number of statements, none when the orders have no claims."""

from __future__ import annotations

from dataclasses import dataclass, field

from tortoise.query_utils import Prefetch

from models import Address, ClaimImage, ClaimItem, ClaimOrder, LineItem, ShippingMethod
from services.core.listing import rows_by
from services.orders.after_sale_rows import NewLinesAndParcels, load_new_lines_and_parcels

__all__ = ["ClaimParts", "load_claims"]


@dataclass(kw_only=True)
class ClaimParts(NewLinesAndParcels):
    """A claim with its replacements (`additional_items`), parcels and return, as a swap shows
    them (services/orders/after_sale_rows.py), and what is a claim's own."""

    claim: ClaimOrder
    claim_items: list[ClaimItem] = field(default_factory=list)  # with images, tags, and item (with variant)
    shipping_address: Address | None = None
    shipping_methods: list[ShippingMethod] = field(default_factory=list)  # with option and tax lines


async def load_claims(order_ids: list[str], claims: list[ClaimOrder]) -> dict[str, list[ClaimParts]]:
    """The parts of `claims`, the live claims of the orders (read with them, services/orders/order_reads.py)."""
    out: dict[str, list[ClaimParts]] = {i: [] for i in order_ids}
    if not claims:
        return out
    ids = [c.id for c in claims]
    items = rows_by(await ClaimItem.filter(claim_order_id__in=ids, deleted_at=None).prefetch_related(
        Prefetch("images", queryset=ClaimImage.filter(deleted_at=None).order_by("created_at", "id")), "tags",
    ).order_by("created_at", "id"), "claim_order_id", ids)
    claimed = {line.id: line for line in await LineItem.filter(
        id__in=list({i.item_id for rows in items.values() for i in rows})).select_related("variant")}
    shown = await load_new_lines_and_parcels("claim_order_id", ids)
    addresses = {a.id: a for a in await Address.filter(
        id__in=[c.shipping_address_id for c in claims if c.shipping_address_id])}
    methods = rows_by(await ShippingMethod.filter(claim_order_id__in=ids).select_related("shipping_option")
                      .prefetch_related("tax_lines"), "claim_order_id", ids)
    for claim in claims:
        for item in items[claim.id]:
            item.item = claimed.get(item.item_id)
        out[claim.order_id].append(ClaimParts(
            **vars(shown[claim.id]), claim=claim, claim_items=items[claim.id],
            shipping_address=addresses.get(claim.shipping_address_id), shipping_methods=methods[claim.id],
        ))
    return out

"""The inventory area's hand-written read: what variants have available at some locations, in one
grouped statement (a variant's items, each with the units of its levels there), where the ORM
would read the links, then the levels, and sum in Python. tests/services/inventory/test_reads.py
shows its answer equals what the ORM's reads give, on both backends."""

from __future__ import annotations

from models import InventoryLevel
from services.core.sql import execute, question_marks

__all__ = ["available_by_variant"]


async def available_by_variant(variant_ids: list[str], location_ids: list[str] | None = None) -> dict[str, int]:
    """What each variant has available at these locations (all when None): for each of its items
    the units available there divided by the link's required quantity, the fewest of them.
    Variants with no inventory item are left out (their stock is not counted by location)."""
    if not variant_ids:
        return {}
    at = "" if location_ids is None else f" AND l.location_id IN ({question_marks(len(location_ids))})"
    found = await execute(
        InventoryLevel._meta.db,
        "SELECT pvi.variant_id, pvi.required_quantity,"
        " COALESCE(SUM(l.stocked_quantity - l.reserved_quantity), 0) AS available"
        " FROM product_variant_inventory_item pvi"
        f" LEFT JOIN inventory_level l ON l.inventory_item_id = pvi.inventory_item_id{at}"
        f" WHERE pvi.variant_id IN ({question_marks(len(variant_ids))})"
        " GROUP BY pvi.variant_id, pvi.inventory_item_id, pvi.required_quantity",
        [*(location_ids or []), *variant_ids],
    )
    out: dict[str, int] = {}
    for row in found:
        units = int(row["available"]) // max(int(row["required_quantity"]), 1)
        out[row["variant_id"]] = min(out.get(row["variant_id"], units), units)
    return out

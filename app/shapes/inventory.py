"""Stock locations, inventory items with their levels, and reservations as Medusa's admin shows
them (`admin.oas.json`: StockLocationExpandedDTO, DecoratedInventoryItemDTO, ReservationItemDTO)."""

from __future__ import annotations

from app.shapes.orders import ORDER_COLUMNS
from app.web.serialize import dump
from models import InventoryItem, InventoryLevel, ReservationItem, StockLocation
from services.inventory.items import variants_by_item
from services.inventory.levels import list_levels

__all__ = ["dump_locations", "dump_items_with_levels", "dump_level", "dump_reservations", "dump_item"]


def dump_locations(locations: list[StockLocation], relations: tuple[str, ...], fields=None) -> list[dict]:
    out = []
    for loc in locations:
        row = dump(loc, None, fields)
        if "address" in relations:
            row["address"] = dump(getattr(loc, "address", None))
        if "sales_channels" in relations:
            row["sales_channels"] = [dump(c) for c in getattr(loc, "sales_channels", [])]
        out.append(row)
    return out


def dump_item(item: InventoryItem, fields=None) -> dict:
    return dump(item, None, fields)


def dump_level(level: InventoryLevel) -> dict:
    row = dump(level)
    row["available_quantity"] = level.stocked_quantity - level.reserved_quantity
    return row


async def dump_items_with_levels(
    items: list[InventoryItem], location_ids: list[str] | None = None, *, with_variants: bool = False,
    fields=None,
) -> list[dict]:
    """Each item with its levels (at `location_ids` when given), each level's available units,
    and the sums of stocked and reserved units over those levels; with its variants for lists."""
    levels = await list_levels([i.id for i in items], location_ids or None)
    by_item: dict[str, list[InventoryLevel]] = {}
    for level in levels:
        by_item.setdefault(level.inventory_item_id, []).append(level)
    variants = await variants_by_item([i.id for i in items]) if with_variants else {}
    out = []
    for item in items:
        mine = by_item.get(item.id, [])
        row = dump(item, None, fields)
        row["reserved_quantity"] = sum(level.reserved_quantity for level in mine)
        row["stocked_quantity"] = sum(level.stocked_quantity for level in mine)
        row["location_levels"] = [dump_level(level) for level in mine]
        if with_variants:  # with their product, as Medusa joins it (the dashboard shows its title)
            row["variants"] = [dump(v, {"product": {}}) for v in variants.get(item.id, [])]
        out.append(row)
    return out


def dump_reservations(reservations: list[ReservationItem], fields=None, extra: dict | None = None) -> list[dict]:
    """`extra`: {relation: {reservation id: row}} joined on request (`inventory_item`, `line_item`
    and its `line_item.order`, nested in the line as Medusa answers it)."""
    out = []
    for reservation in reservations:
        row = dump(reservation, None, fields)
        for name, joined in (extra or {}).items():
            parent, _, child = name.partition(".")
            if not child:
                row[name] = dump(joined.get(reservation.id))
            elif row.get(parent) is not None:  # the line's order: its own columns, as Medusa's entity
                order = joined.get(reservation.id)
                row[parent][child] = order and {**{c: getattr(order, c) for c in ORDER_COLUMNS}, "object": "order"}
        out.append(row)
    return out

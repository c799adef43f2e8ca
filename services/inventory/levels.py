"""An inventory item's stock at each location, in units: stocked (on the shelf), reserved (held
for orders not yet shipped) and incoming; available = stocked - reserved.

Every change is one conditional UPDATE of the level's row (so two requests never both take the
last unit), then the variants made of the item get their `inventory_quantity` rewritten from
the levels, in the same transaction. Callers that change several levels in one transaction take
them in (inventory_item_id, location_id) order, so two such changes never deadlock."""

from __future__ import annotations

from models import InventoryLevel
from services.core.clock import now
from services.core.db import atomic
from services.core.errors import Duplicate, InvalidData, NotAllowed, NotFound
from services.core.sql import execute, question_marks
from services.inventory.reads import available_by_variant

__all__ = [
    "NotEnoughStock", "adjust", "create_level", "set_level", "delete_level", "get_level", "list_levels",
    "sync_variants", "available_by_variant", "level_not_found",
]


class NotEnoughStock(NotAllowed):
    """A change would leave a level with less than nothing available (or reserve less than nothing)."""

    def __init__(self, inventory_item_id: str, location_id: str, available: int):
        super().__init__(
            f"Inventory item {inventory_item_id} has only {available} available at location {location_id}"
        )
        self.inventory_item_id = inventory_item_id
        self.location_id = location_id
        self.available = available


def level_not_found(inventory_item_id: str, location_id: str) -> NotFound:
    return NotFound(f"Inventory level for item {inventory_item_id} and location {location_id} not found")


async def get_level(inventory_item_id: str, location_id: str) -> InventoryLevel:
    level = await InventoryLevel.get_or_none(inventory_item_id=inventory_item_id, location_id=location_id)
    if level is None:
        raise level_not_found(inventory_item_id, location_id)
    return level


async def list_levels(inventory_item_ids: list[str], location_ids: list[str] | None = None) -> list[InventoryLevel]:
    if not inventory_item_ids:
        return []
    qs = InventoryLevel.filter(inventory_item_id__in=inventory_item_ids)
    if location_ids is not None:
        qs = qs.filter(location_id__in=location_ids)
    return await qs.order_by("created_at", "id")


async def adjust(
    inventory_item_id: str, location_id: str, *, stocked: int = 0, reserved: int = 0, incoming: int = 0,
    allow_negative: bool = False,
) -> InventoryLevel:
    """Add these (signed) units to the level. Refused with NotEnoughStock when the change would
    lower what is available below zero, unless `allow_negative` (a backorder, a fulfilment of
    stock that was never counted); reserved and incoming never go below zero. NotFound when the
    item is not stocked at the location."""
    guard = "" if allow_negative else (
        " AND (stocked_quantity + ? - reserved_quantity - ? >= 0 OR CAST(? AS INTEGER) - CAST(? AS INTEGER) >= 0)"
    )
    values = [stocked, reserved, incoming, now(), inventory_item_id, location_id, reserved, incoming]
    if not allow_negative:
        values += [stocked, reserved, stocked, reserved]
    async with atomic():
        changed = await execute(
            InventoryLevel._meta.db,
            "UPDATE inventory_level SET stocked_quantity = stocked_quantity + ?, "
            "reserved_quantity = reserved_quantity + ?, incoming_quantity = incoming_quantity + ?, updated_at = ? "
            "WHERE inventory_item_id = ? AND location_id = ? AND reserved_quantity + ? >= 0 "
            f"AND incoming_quantity + ? >= 0{guard} RETURNING id",
            values,
        )
        if not changed:
            level = await get_level(inventory_item_id, location_id)
            if level.reserved_quantity + reserved < 0:
                raise NotAllowed(
                    f"Cannot release {-reserved} of inventory item {inventory_item_id} at location {location_id}: "
                    f"only {level.reserved_quantity} reserved"
                )
            if level.incoming_quantity + incoming < 0:
                raise InvalidData("incoming_quantity cannot be below 0")
            raise NotEnoughStock(inventory_item_id, location_id, level.stocked_quantity - level.reserved_quantity)
        await sync_variants([inventory_item_id])
        return await InventoryLevel.get(id=changed[0]["id"])


async def create_level(
    inventory_item_id: str, location_id: str, *, stocked_quantity: int = 0, incoming_quantity: int = 0,
) -> InventoryLevel:
    """Stock the item at a location (the caller has checked that both exist)."""
    _not_negative(stocked_quantity=stocked_quantity, incoming_quantity=incoming_quantity)
    async with atomic():
        if await InventoryLevel.exists(inventory_item_id=inventory_item_id, location_id=location_id):
            raise Duplicate(
                f"Inventory level for item {inventory_item_id} and location {location_id} already exists"
            )
        level = await InventoryLevel.create(
            inventory_item_id=inventory_item_id, location_id=location_id,
            stocked_quantity=stocked_quantity, incoming_quantity=incoming_quantity,
        )
        await sync_variants([inventory_item_id])
    return level


async def set_level(
    inventory_item_id: str, location_id: str, *, stocked_quantity: int | None = None,
    incoming_quantity: int | None = None,
) -> InventoryLevel:
    """The admin's count: stocked and incoming as given (absolute). A count below what is
    reserved is taken as counted: the level shows less than nothing available until restocked."""
    _not_negative(stocked_quantity=stocked_quantity, incoming_quantity=incoming_quantity)
    async with atomic():
        sets, values = ["updated_at = ?"], [now()]
        for column, value in (("stocked_quantity", stocked_quantity), ("incoming_quantity", incoming_quantity)):
            if value is not None:
                sets.append(f"{column} = ?")
                values.append(value)
        changed = await execute(
            InventoryLevel._meta.db,
            f"UPDATE inventory_level SET {', '.join(sets)} WHERE inventory_item_id = ? AND location_id = ?"
            " RETURNING id",
            [*values, inventory_item_id, location_id],
        )
        if not changed:
            raise level_not_found(inventory_item_id, location_id)
        await sync_variants([inventory_item_id])
        return await InventoryLevel.get(id=changed[0]["id"])


async def delete_level(inventory_item_id: str, location_id: str) -> None:
    """Stop stocking the item at the location; refused while units there are reserved."""
    async with atomic():
        gone = await execute(
            InventoryLevel._meta.db,
            "DELETE FROM inventory_level WHERE inventory_item_id = ? AND location_id = ? AND reserved_quantity = 0 "
            "RETURNING id",
            [inventory_item_id, location_id],
        )
        if not gone:
            await get_level(inventory_item_id, location_id)  # NotFound when there is none
            raise NotAllowed(
                f"Cannot remove Inventory Level {inventory_item_id} at Location {location_id} "
                "because there are reserved items."
            )
        await sync_variants([inventory_item_id])


async def sync_variants(inventory_item_ids: list[str] | None) -> None:
    """Rewrite `inventory_quantity` of the variants (tracking stock) made of these items (None:
    of any item, as after a move brought levels in wholesale): for each, the fewest whole variants
    its items make from what they have available at all locations (stocked - reserved, divided by
    the link's required quantity). A variant already right is not written."""
    if inventory_item_ids is not None and not inventory_item_ids:
        return
    ids = sorted(set(inventory_item_ids or ()))
    counted = (
        "(SELECT MIN(COALESCE((SELECT SUM(l.stocked_quantity - l.reserved_quantity) FROM inventory_level l"
        "  WHERE l.inventory_item_id = pvi.inventory_item_id), 0) / pvi.required_quantity)"
        " FROM product_variant_inventory_item pvi WHERE pvi.variant_id = product_variant.id)"
    )
    of_items = f" WHERE inventory_item_id IN ({question_marks(len(ids))})" if inventory_item_ids is not None else ""
    await execute(
        InventoryLevel._meta.db,
        f"UPDATE product_variant SET inventory_quantity = {counted}"
        " WHERE manage_inventory AND id IN (SELECT variant_id FROM product_variant_inventory_item"
        f"{of_items}) AND inventory_quantity <> {counted}",
        ids,
    )


def _not_negative(**quantities: int | None) -> None:
    for name, value in quantities.items():
        if value is not None and value < 0:
            raise InvalidData(f"{name} must not be less than 0")

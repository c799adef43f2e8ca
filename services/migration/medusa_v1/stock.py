"""Stock per location in a move (Medusa 1.20's inventory and stock-location modules, our setting
INVENTORY_LOCATIONS): what the copy of their tables (entities.py) leaves to be done so the store
is coherent afterwards, whichever way the setting is.

- Before the copy, into a store that holds no shop yet: the locations our own switch-on made
  when the store was set up with the setting on (a "Default location" sold from by the channels
  the move replaces) go, so the shop's locations are the only ones and a later switch-on makes
  a default location only for a shop that had none, linked to the shop's own channels.
- After the copy, on a re-run: the links and levels Medusa deleted go here too, but only among the
  shop's own items and locations. What our switch-on added after an earlier run (with the setting
  on, `commerce import` runs it after each move) stays: the item it gave a variant Medusa counted
  no item for, with its level, and the channel links of a default location it made for a shop
  that had none; taking them away would have the next switch-on make them again, and leave a
  location no channel sells from.
- After the copy, when the shop had the modules: under them Medusa no longer keeps a variant's
  `inventory_quantity` (it may be stale); the real stock is in the levels. Each variant made of
  inventory items gets what its items have available across all locations (stocked - reserved,
  in whole variants), the rule the levels keep while the setting is on (services/inventory/
  levels.py). So with the setting on, switch-on finds every such variant already counted and
  changes nothing; with it off, the store sells the stock the warehouses hold, all locations
  together (there is no location to choose from then).
"""

from __future__ import annotations

from models import InventoryLevel, ProductVariantInventoryItem, SalesChannelLocation, StockLocation, StockLocationAddress
from services.inventory.levels import sync_variants
from services.migration.medusa_v1.entities import ENTITIES
from services.migration.medusa_v1.writer import Target

__all__ = ["clear_own_locations", "settle_stock"]

# entity name -> our model, and the column naming the shop's item or location the row is of
_PRUNED = {
    "variant inventory items": (ProductVariantInventoryItem, "inventory_item_id", "inventory_item"),
    "inventory levels": (InventoryLevel, "inventory_item_id", "inventory_item"),
    "sales channel locations": (SalesChannelLocation, "location_id", "stock_location"),
}
_KEY_BATCH = 10_000


async def clear_own_locations() -> None:
    """In a store about to take a shop in (no products, customers or orders: no stock is counted
    anywhere), the locations made before it and their channel links."""
    await SalesChannelLocation.all().delete()
    await StockLocation.all().delete()
    await StockLocationAddress.all().delete()


async def settle_stock(source, report) -> None:
    """After the copy: what Medusa deleted of the links and levels goes, then the variants count
    what the moved levels hold (a shop with the modules)."""
    await _prune(source, report)
    if await _counts_by_location(source):
        await sync_variants(None)


async def _counts_by_location(source) -> bool:
    """The shop kept its stock in the modules' levels: it has some. Tables without a live level
    (the modules' migrations ran, the shop never stocked a location) leave the variants' own
    quantities as the stock, as Medusa could sell nothing of an item without a level."""
    if not (source.has("inventory_level") and source.has("product_variant_inventory_item")):
        return False
    live = " WHERE deleted_at IS NULL" if source.has("inventory_level", "deleted_at") else ""
    return await source.conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM inventory_level{live})")


async def _prune(source, report) -> None:
    owned: dict[str, set] = {}  # the shop's own items and locations (deleted ones too)
    for entity in ENTITIES:
        if entity.name not in _PRUNED or not source.has(entity.source):
            continue
        model, column, parent = _PRUNED[entity.name]
        if parent not in owned:
            owned[parent] = {k for k, in await _keys(source, f'SELECT id FROM "{parent}"', ("id",))} \
                if source.has(parent) else set()
        if not owned[parent]:
            continue  # a shop without the modules: every row here is our own
        live = await _keys(source, entity.select(source), entity.key)
        ours = await model.all().values_list(*entity.key, column)
        keep = sorted(live | {tuple(row[:-1]) for row in ours if row[-1] not in owned[parent]})
        report.entity(entity.name).removed = await Target().prune(entity.target, entity.key, _batches(keep), _KEY_BATCH)


async def _keys(source, sql: str, key: tuple[str, ...]) -> set[tuple]:
    return {k async for batch in source.keys(sql, key, _KEY_BATCH) for k in batch}


async def _batches(keys: list[tuple]):
    """`keys` (in Python's order of strings: the byte order Target.prune walks in) a batch at a time."""
    for i in range(0, len(keys), _KEY_BATCH):
        yield keys[i:i + _KEY_BATCH]

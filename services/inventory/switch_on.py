"""Turning INVENTORY_LOCATIONS on for a shop that already has stock, and keeping variants that
are written through the variant routes counted by location.

`switch_on` runs in `commerce migrate` (and `commerce start`) whenever the setting is on. It
gives each variant that manages inventory an item, makes sure there is a default location
(the store's `default_location_id`; the first time, a new "Default location" sold from by every
sales channel), and reconciles: a variant whose `inventory_quantity` differs from what its item
has available across all locations gets the difference stocked (or taken) at the default
location. The first run so moves each variant's current quantity there; every later run finds
nothing to do, unless the setting was off meanwhile and orders or edits changed the variants'
quantities: then those changes are carried over, so the totals stay what the shop saw."""

from __future__ import annotations

from models import (
    InventoryLevel, ProductVariant, ProductVariantInventoryItem, SalesChannel, SalesChannelLocation, StockLocation,
    Store,
)
from services.core.db import atomic
from services.inventory import enabled, levels
from services.inventory.items import ensure_variant_items

__all__ = ["switch_on", "variants_changed", "default_location_id", "DEFAULT_LOCATION_NAME"]

DEFAULT_LOCATION_NAME = "Default location"


async def switch_on() -> dict:
    """Idempotent; answers what it did: {"items": n new, "location_id": ..., "location_made": bool,
    "reconciled": n variants whose stock was set at the location}."""
    made = await ensure_variant_items()
    had_location = await StockLocation.filter(deleted_at=None).exists()
    location_id = await default_location_id()
    reconciled = await _reconcile(None, location_id)
    return {"items": len(made), "location_id": location_id, "location_made": not had_location,
            "reconciled": reconciled}


async def variants_changed(variant_ids: list[str]) -> None:
    """After variants were created or edited through the variant routes while the setting is
    on: each that manages inventory has an item, and a changed `inventory_quantity` is taken as
    the new total, the difference stocked at the default location."""
    if not enabled() or not variant_ids:
        return
    await ensure_variant_items(variant_ids)
    await _reconcile(variant_ids, await default_location_id())


async def default_location_id() -> str:
    """The store's default location; none (or deleted): the oldest live location becomes it;
    none at all: a new one that every live sales channel sells from."""
    async with atomic():
        store = await Store.all().select_for_update().first()
        current = store.default_location_id if store else None
        if current and await StockLocation.exists(id=current, deleted_at=None):
            return current
        location = await StockLocation.filter(deleted_at=None).order_by("created_at", "id").first()
        if location is None:
            location = await StockLocation.create(name=DEFAULT_LOCATION_NAME)
            for channel_id in await SalesChannel.filter(deleted_at=None).order_by("created_at").values_list("id", flat=True):
                await SalesChannelLocation.create(sales_channel_id=channel_id, location_id=location.id)
        if store is not None:
            await Store.filter(id=store.id).update(default_location_id=location.id)
        return location.id


async def _reconcile(variant_ids: list[str] | None, location_id: str) -> int:
    """Stock the difference between each variant's quantity and its item's available units at
    the location. Only variants made of one unit of one item not shared with another variant:
    for any other, no single item's count follows from the variant's."""
    links = ProductVariantInventoryItem.all()
    if variant_ids is not None:
        links = links.filter(variant_id__in=variant_ids)
    found = await links.values("variant_id", "inventory_item_id", "required_quantity")
    items_of: dict[str, list[dict]] = {}
    variants_of: dict[str, int] = {}
    for link in found:
        items_of.setdefault(link["variant_id"], []).append(link)
    all_item_ids = list({link["inventory_item_id"] for link in found})
    for item_id in await ProductVariantInventoryItem.filter(inventory_item_id__in=all_item_ids).values_list(
            "inventory_item_id", flat=True) if all_item_ids else []:
        variants_of[item_id] = variants_of.get(item_id, 0) + 1
    simple = {
        v: links_[0]["inventory_item_id"] for v, links_ in items_of.items()
        if len(links_) == 1 and links_[0]["required_quantity"] == 1 and variants_of[links_[0]["inventory_item_id"]] == 1
    }
    if not simple:
        return 0
    quantities = dict(await ProductVariant.filter(
        id__in=list(simple), manage_inventory=True, deleted_at=None).values_list("id", "inventory_quantity"))
    available = await levels.available_by_variant(list(quantities))
    changed = 0
    for variant_id in sorted(quantities):
        difference = quantities[variant_id] - available.get(variant_id, 0)
        if difference == 0:
            continue
        item_id = simple[variant_id]
        async with atomic():
            if not await InventoryLevel.exists(inventory_item_id=item_id, location_id=location_id):
                await levels.create_level(item_id, location_id)
            await levels.adjust(item_id, location_id, stocked=difference, allow_negative=True)
        changed += 1
    return changed

"""Inventory items (what is stocked, with its customs details) and their links to variants.

While INVENTORY_LOCATIONS is on, every variant that manages inventory is made of at least one
item: `ensure_variant_items` gives one to each that has none (at switch-on, and when a variant
is created or starts managing inventory)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from tortoise.expressions import Q

from models import InventoryItem, InventoryLevel, ProductVariant, ProductVariantInventoryItem
from services.core.clock import now
from services.core.db import atomic
from services.core.errors import Duplicate, NotAllowed, NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, find_page
from services.core.metadata import merge_metadata

__all__ = [
    "ItemFields", "ITEM_COLUMNS", "list_items", "get_item", "create_item", "update_item", "delete_item",
    "ensure_variant_items", "variants_deleted", "variant_item_ids", "variants_by_item", "not_found",
]

ITEM_COLUMNS = (
    "sku", "origin_country", "hs_code", "mid_code", "material", "weight", "length", "height", "width",
    "requires_shipping", "description", "title", "thumbnail",
)
_FROM_VARIANT = ("sku", "origin_country", "hs_code", "mid_code", "material", "weight", "length", "height", "width")


@dataclass
class ItemFields:
    """An item's own columns; None: not given."""

    sku: str | None = None
    origin_country: str | None = None
    hs_code: str | None = None
    mid_code: str | None = None
    material: str | None = None
    weight: int | None = None
    length: int | None = None
    height: int | None = None
    width: int | None = None
    requires_shipping: bool | None = None
    description: str | None = None
    title: str | None = None
    thumbnail: str | None = None
    metadata: dict | None = None

    def given(self) -> dict:
        return {c: getattr(self, c) for c in ITEM_COLUMNS if getattr(self, c) is not None}


def not_found(item_id: str) -> NotFound:
    return NotFound(f"InventoryItem with id {item_id} was not found")


def _live():
    return InventoryItem.filter(deleted_at=None)


async def list_items(
    config: FindConfig, *, q: str | None = None, id: list[str] | None = None, location_id: list[str] | None = None,
    exact: dict | None = None,
) -> tuple[list[InventoryItem], int]:
    """One page of live items. `q` finds a part of the SKU, title or description (any case);
    `location_id` keeps the items stocked at one of those locations; `exact` holds the other
    filters (column: value or list of values). The relations a client may name (levels,
    variants) are read for every page anyway, apart: none is prefetched here."""
    config = replace(config, relations=())
    qs = _live()
    if q:
        qs = qs.filter(Q(sku__icontains=q) | Q(title__icontains=q) | Q(description__icontains=q))
    if id:
        qs = qs.filter(id__in=id)
    if location_id:
        stocked = await InventoryLevel.filter(location_id__in=location_id).values_list("inventory_item_id", flat=True)
        qs = qs.filter(id__in=list(set(stocked)))
    for column, value in (exact or {}).items():
        if value is not None:
            qs = qs.filter(**{f"{column}__in" if isinstance(value, list) else column: value})
    return await find_page(qs, config)


async def get_item(item_id: str) -> InventoryItem:
    found = fits(InventoryItem, item_id) and await _live().get_or_none(id=item_id)
    if not found:
        raise not_found(item_id)
    return found


async def create_item(variant_id: str, fields: ItemFields) -> InventoryItem:
    """A new item, attached to the variant (one unit of it makes one variant)."""
    async with atomic():
        variant = fits(ProductVariant, variant_id) and await ProductVariant.get_or_none(id=variant_id, deleted_at=None)
        if not variant:
            raise NotFound(f"Variant with id: {variant_id} was not found")
        await _check_sku(fields.sku)
        item = await InventoryItem.create(**fields.given(), metadata=fields.metadata)
        await ProductVariantInventoryItem.create(variant_id=variant_id, inventory_item_id=item.id)
    return item


async def update_item(item_id: str, fields: ItemFields) -> InventoryItem:
    async with atomic():
        item = await _locked(item_id)
        values = fields.given()
        if "sku" in values and values["sku"] != item.sku:
            await _check_sku(values["sku"])
        for column, value in values.items():
            setattr(item, column, value)
        if fields.metadata is not None:
            item.metadata = merge_metadata(item.metadata, fields.metadata)
        await item.save()
    return item


async def delete_item(item_id: str) -> None:
    """Soft-delete the item with its levels and variant links. Refused while units of it are
    reserved; unknown or deleted: no error."""
    if not fits(InventoryItem, item_id):
        return
    async with atomic():
        item = await _live().select_for_update().get_or_none(id=item_id)
        if item is None:
            return
        reserved = sum(await InventoryLevel.filter(inventory_item_id=item_id).values_list("reserved_quantity", flat=True))
        if reserved:
            raise NotAllowed(
                f"Cannot delete inventory item {item_id}: {reserved} units are reserved. Delete its reservations first."
            )
        await InventoryLevel.filter(inventory_item_id=item_id).delete()
        await ProductVariantInventoryItem.filter(inventory_item_id=item_id).delete()
        stamp = now()
        await InventoryItem.filter(id=item_id).update(deleted_at=stamp, updated_at=stamp)


async def ensure_variant_items(variant_ids: list[str] | None = None) -> list[str]:
    """Give every live variant that manages inventory (of `variant_ids`, or all) an item made
    from its SKU and customs details, where it has none. Answers the new items' ids."""
    qs = ProductVariant.filter(deleted_at=None, manage_inventory=True)
    if variant_ids is not None:
        if not variant_ids:
            return []
        qs = qs.filter(id__in=variant_ids)
    linked = set(await ProductVariantInventoryItem.all().values_list("variant_id", flat=True))
    bare = [v for v in await qs.order_by("id") if v.id not in linked]
    made = []
    for variant in bare:
        async with atomic():
            values = {c: getattr(variant, c) for c in _FROM_VARIANT}
            if values["sku"] and await _live().filter(sku=values["sku"]).exists():
                values["sku"] = None  # the SKU names another item already: the variant's stays on the variant
            item = await InventoryItem.create(**values, title=variant.title)
            await ProductVariantInventoryItem.create(variant_id=variant.id, inventory_item_id=item.id)
            made.append(item.id)
    return made


async def variants_deleted(variant_ids: list[str]) -> None:
    """Deleted variants let go of their items: an item no other variant is made of goes with its
    levels, unless units of it are still reserved (an order waits for them: it stays, and the
    merchant deletes it once they are shipped or released)."""
    if not variant_ids:
        return
    item_ids = set(await ProductVariantInventoryItem.filter(variant_id__in=variant_ids).values_list(
        "inventory_item_id", flat=True))
    await ProductVariantInventoryItem.filter(variant_id__in=variant_ids).delete()
    still_used = set(await ProductVariantInventoryItem.filter(inventory_item_id__in=list(item_ids)).values_list(
        "inventory_item_id", flat=True)) if item_ids else set()
    for item_id in sorted(item_ids - still_used):
        try:
            await delete_item(item_id)
        except NotAllowed:
            pass  # reserved units: kept for the orders that hold them


async def variant_item_ids(variant_id: str) -> list[str]:
    return list(await ProductVariantInventoryItem.filter(variant_id=variant_id).order_by("created_at", "id")
                .values_list("inventory_item_id", flat=True))


async def variants_by_item(item_ids: list[str]) -> dict[str, list[ProductVariant]]:
    """The live variants made of each item, each with its product loaded (one statement)."""
    links = await ProductVariantInventoryItem.filter(inventory_item_id__in=item_ids).order_by("created_at", "id")
    variants = {v.id: v for v in await ProductVariant.filter(
        id__in=list({link.variant_id for link in links}), deleted_at=None).select_related("product")} if links else {}
    out: dict[str, list[ProductVariant]] = {i: [] for i in item_ids}
    for link in links:
        if link.variant_id in variants:
            out[link.inventory_item_id].append(variants[link.variant_id])
    return out


async def _check_sku(sku: str | None) -> None:
    if sku and await _live().filter(sku=sku).exists():
        raise Duplicate(f"Inventory item with sku: {sku} already exists")


async def _locked(item_id: str) -> InventoryItem:
    found = fits(InventoryItem, item_id) and await _live().select_for_update().get_or_none(id=item_id)
    if not found:
        raise not_found(item_id)
    return found


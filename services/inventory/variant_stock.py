"""What a variant has in stock, item by item and sales channel by sales channel
(`GET /admin/variants/{id}/inventory`)."""

from __future__ import annotations

from models import InventoryItem, ProductVariant, SalesChannel
from services.core.errors import NotFound
from services.core.ids import fits
from services.inventory.items import variant_item_ids
from services.inventory.levels import available_by_variant
from services.inventory.locations import channel_location_ids

__all__ = ["variant_inventory", "available_in_channel"]


async def available_in_channel(variant_ids: list[str], sales_channel_id: str | None) -> dict[str, int]:
    """What each variant made of inventory items has available at the locations of a sales
    channel (none linked: 0); variants without items are left out."""
    return await available_by_variant(variant_ids, await channel_location_ids(sales_channel_id))


async def variant_inventory(variant_id: str) -> tuple[list[InventoryItem], list[dict]]:
    """The variant's live items, and for every live sales channel what the variant has available
    at its locations (`{channel_name, channel_id, available_quantity}`); no items: no channels,
    as Medusa answers."""
    if not fits(ProductVariant, variant_id) or not await ProductVariant.exists(id=variant_id, deleted_at=None):
        raise NotFound(f"Variant with id: {variant_id} was not found")
    item_ids = await variant_item_ids(variant_id)
    items = await InventoryItem.filter(id__in=item_ids, deleted_at=None).order_by("created_at", "id") if item_ids else []
    if not items:
        return [], []
    channels = await SalesChannel.filter(deleted_at=None).order_by("created_at", "id")
    availability = []
    for channel in channels:
        available = await available_in_channel([variant_id], channel.id)
        availability.append({
            "channel_name": channel.name, "channel_id": channel.id, "available_quantity": available.get(variant_id, 0),
        })
    return list(items), availability

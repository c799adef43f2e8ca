"""What a storefront sees as a variant's `inventory_quantity` when INVENTORY_LOCATIONS is on
(Medusa's setVariantAvailability): the units available (stocked - reserved) at the stock
locations of the request's sales channels, summed. A variant made of several inventory items
shows the whole units its scarcest item allows. Variants that do not track stock, or that have
no inventory item, keep their own column."""

from __future__ import annotations

from models import InventoryLevel
from services.inventory.order_stock import locations_of_channels, variant_parts
from services.inventory.switch import enabled
from services.store.defaults import default_channel_id

__all__ = ["show_channel_stock"]


async def show_channel_stock(variants: list, channel_ids: list[str]) -> None:
    """Set `inventory_quantity` on the (loaded) variants to what the channels' locations (the
    store's default channel's for none) have available; nothing is written."""
    if not enabled():
        return
    channel_ids = channel_ids or [c for c in [await default_channel_id()] if c]
    managed = [v for v in variants if v.manage_inventory]
    if not managed:
        return
    parts = await variant_parts(v.id for v in managed)
    if not parts:
        return
    locations = await locations_of_channels(channel_ids)
    available: dict[str, int] = {}
    if locations:
        rows = await InventoryLevel.filter(
            inventory_item_id__in=list({item for p in parts.values() for item, _ in p}), location_id__in=locations,
        ).values_list("inventory_item_id", "stocked_quantity", "reserved_quantity")
        for item_id, stocked, reserved in rows:
            available[item_id] = available.get(item_id, 0) + stocked - reserved
    for variant in managed:
        items = parts.get(variant.id)
        if items:
            variant.inventory_quantity = min(max(available.get(item, 0), 0) // required for item, required in items)

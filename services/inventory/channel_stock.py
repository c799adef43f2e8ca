"""What a storefront sees as a variant's `inventory_quantity` when INVENTORY_LOCATIONS is on
(Medusa's setVariantAvailability): what the stock locations of the request's sales channels have
available (stocked - reserved), summed, as `levels.available_by_variant` counts it (a variant
made of several items: the whole units its scarcest item allows). Variants that do not track
stock, or that have no inventory item, keep their own column."""

from __future__ import annotations

from services.inventory import enabled
from services.inventory.levels import available_by_variant
from services.inventory.order_stock import locations_of_channels
from services.store.defaults import default_channel_id

__all__ = ["show_channel_stock"]


async def show_channel_stock(variants: list, channel_ids: list[str]) -> None:
    """Set `inventory_quantity` on the (loaded) variants to what the channels' locations (the
    store's default channel's for none) have available; nothing is written."""
    if not enabled():
        return
    managed = [v for v in variants if v.manage_inventory]
    if not managed:
        return
    channel_ids = channel_ids or [c for c in [await default_channel_id()] if c]
    available = await available_by_variant([v.id for v in managed], await locations_of_channels(channel_ids))
    for variant in managed:
        if variant.id in available:
            variant.inventory_quantity = available[variant.id]

"""Factories for the order flow of stock per location (INVENTORY_LOCATIONS): the setting
switched on for one test, locations linked to a sales channel, and a variant stocked at them."""

from __future__ import annotations

import pytest

from models import (
    InventoryItem, InventoryLevel, ProductVariant, ProductVariantInventoryItem, ReservationItem, SalesChannelLocation,
    StockLocation, Store,
)
import services.inventory
from services.inventory.levels import available_by_variant

__all__ = ["locations_on", "location", "stock_at", "levels", "reservations", "default_channel", "in_step"]


@pytest.fixture
def locations_on(monkeypatch):
    """INVENTORY_LOCATIONS on for this test (the server runs in the test's process)."""
    monkeypatch.setattr(services.inventory, "_enabled", True)
    yield


async def default_channel() -> str:
    return (await Store.first()).default_sales_channel_id


async def location(name: str, channel_id: str | None = "default") -> str:
    """A stock location, linked to the channel (the store's default unless None)."""
    loc = await StockLocation.create(name=name)
    if channel_id is not None:
        channel = await default_channel() if channel_id == "default" else channel_id
        await SalesChannelLocation.create(sales_channel_id=channel, location_id=loc.id)
    return loc.id


async def stock_at(variant_id: str, quantities: dict[str, int], *, backorder: bool = False) -> str:
    """The variant's inventory item stocked `quantities` ({location id: units}); the variant's own
    column holds the total available, as it is kept with the setting on."""
    item = await InventoryItem.create(sku=f"sku-{variant_id}")
    await ProductVariantInventoryItem.create(variant_id=variant_id, inventory_item_id=item.id, required_quantity=1)
    for location_id, n in quantities.items():
        await InventoryLevel.create(inventory_item_id=item.id, location_id=location_id, stocked_quantity=n)
    await ProductVariant.filter(id=variant_id).update(
        manage_inventory=True, allow_backorder=backorder, inventory_quantity=sum(quantities.values()))
    return item.id


async def levels(item_id: str) -> dict[str, tuple[int, int]]:
    """{location id: (stocked, reserved)} of an item."""
    return {lev.location_id: (lev.stocked_quantity, lev.reserved_quantity)
            for lev in await InventoryLevel.filter(inventory_item_id=item_id)}


async def reservations(**filters) -> list[tuple[str, str, int]]:
    """(line id, location id, quantity) of the reservations, by location then line."""
    rows = await ReservationItem.filter(**filters).values_list("line_item_id", "location_id", "quantity")
    return sorted(rows, key=lambda r: (r[1], r[0] or ""))


async def in_step(variant_id: str) -> int:
    """The variant's own total, checked equal to what its items have available at every location
    (how services/inventory/levels.py keeps it with the setting on)."""
    total = (await ProductVariant.get(id=variant_id)).inventory_quantity
    assert total == (await available_by_variant([variant_id]))[variant_id], (total, variant_id)
    return total

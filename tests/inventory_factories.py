"""Factories for inventory-location tests: variants with stock, the setting switched on for a
test, locations with levels."""

from __future__ import annotations

from contextlib import contextmanager
from itertools import count

import pytest

from models import (
    InventoryItem, InventoryLevel, Product, ProductVariant, ProductVariantInventoryItem, SalesChannelLocation,
    StockLocation,
)
from app.shapes.completion import ApiAnswers
from services import inventory, setup
from services.inventory.levels import create_level

__all__ = ["switched_on", "variant", "item_of", "location", "stocked_item", "sold_from", "levels_of", "inv"]

_handles = count()


@contextmanager
def switched_on():
    """INVENTORY_LOCATIONS on for the services, as a web process with it on has it."""
    was = inventory.enabled()
    inventory._enabled = True
    try:
        yield
    finally:
        inventory._enabled = was


async def variant(title: str = "Shirt", *, quantity: int = 0, sku: str | None = None, **columns) -> ProductVariant:
    product = await Product.create(title=f"{title} product", handle=f"{title.lower()}-{next(_handles)}",
                                   status="published")
    return await ProductVariant.create(product_id=product.id, title=title, inventory_quantity=quantity, sku=sku,
                                       **columns)


async def item_of(variant_id: str) -> InventoryItem:
    link = await ProductVariantInventoryItem.get(variant_id=variant_id)
    return await InventoryItem.get(id=link.inventory_item_id)


async def location(name: str = "Warehouse") -> StockLocation:
    return await StockLocation.create(name=name)


async def stocked_item(stock: dict[str, int], *, title: str = "Mug") -> tuple[ProductVariant, InventoryItem]:
    """A variant with one item, stocked {location_id: units}."""
    v = await variant(title)
    item = await InventoryItem.create(sku=f"sku-{v.id}", title=title)
    await ProductVariantInventoryItem.create(variant_id=v.id, inventory_item_id=item.id)
    for location_id, units in stock.items():
        await create_level(item.id, location_id, stocked_quantity=units)
    return v, item


async def sold_from(sales_channel_id: str, *locations: StockLocation) -> None:
    """The channel sells from these locations."""
    for loc in locations:
        await SalesChannelLocation.create(sales_channel_id=sales_channel_id, location_id=loc.id)


async def levels_of(item_id: str) -> dict[str, tuple[int, int]]:
    """{location_id: (stocked, reserved)} of an item: what a race test checks is never negative."""
    return {level.location_id: (level.stocked_quantity, level.reserved_quantity)
            for level in await InventoryLevel.filter(inventory_item_id=item_id)}


@pytest.fixture
async def inv(server, admin_headers):
    """A client of a server with INVENTORY_LOCATIONS on (the shared one has it off), signed in."""
    from app.server import create_app
    from tests.conftest import SETTINGS, running, settings

    app = create_app(settings(inventory_locations=True), manage_orm=False)
    try:
        async with running(app) as client:
            client.headers.update(admin_headers)
            yield client
    finally:
        setup.configure(SETTINGS, answers=ApiAnswers())  # the session's own settings again

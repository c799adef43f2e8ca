"""Where placing reserves a line (services/inventory/order_stock.py): one location of the channel
that holds the whole line, the most available first; else the line split over the channel's
locations; a variant made of several items (a kit) reserves every item at the same location, in
units times its required quantity."""

from __future__ import annotations

from types import SimpleNamespace

from models import InventoryItem, InventoryLevel, ProductVariantInventoryItem, ReservationItem, SalesChannel
from services.core.db import atomic
from services.inventory.order_stock import _allocate, _Level, release_lines, reserve_lines
from tests.stock_location_factories import location, locations_on

__all__ = ["locations_on"]


def at(**available: int) -> dict:
    return {("item", loc): _Level(f"ilev_{loc}", n, 0) for loc, n in available.items()}


def test_one_location_that_holds_the_whole_line_is_chosen_the_most_available_first():
    parts = [("item", 1)]
    assert _allocate(parts, at(a=3, b=5), ["a", "b"], 2) == [("b", 2)]
    assert _allocate(parts, at(a=5, b=5), ["a", "b"], 5) == [("a", 5)]  # a tie: the first location


def test_a_line_no_location_holds_is_split_or_refused():
    parts = [("item", 1)]
    assert _allocate(parts, at(a=3, b=2, c=0), ["a", "b", "c"], 4) == [("a", 3), ("b", 1)]
    assert _allocate(parts, at(a=3, b=2), ["a", "b"], 6) is None
    assert _allocate(parts, {}, [], 1) is None


def test_a_kit_counts_the_whole_units_its_scarcest_item_allows():
    levels = {("x", "a"): _Level("1", 9, 1), ("y", "a"): _Level("2", 1, 0), ("x", "b"): _Level("3", 4, 0),
              ("y", "b"): _Level("4", 5, 0)}
    parts = [("x", 2), ("y", 1)]
    # a: x makes 4 kits, y makes 1; b: x makes 2, y makes 5
    assert _allocate(parts, levels, ["a", "b"], 2) == [("b", 2)]
    assert _allocate(parts, levels, ["a", "b"], 3) == [("b", 2), ("a", 1)]
    assert _allocate(parts, levels, ["a", "b"], 4) is None


async def test_a_kit_line_is_reserved_item_by_item_and_released_whole(locations_on):
    channel = await SalesChannel.create(name="Shop")
    a, b = await location("A", channel.id), await location("B", channel.id)
    x, y = await InventoryItem.create(sku="x"), await InventoryItem.create(sku="y")
    for item, loc, n in ((x, a, 9), (y, a, 1), (x, b, 4), (y, b, 5)):
        await InventoryLevel.create(inventory_item_id=item.id, location_id=loc, stocked_quantity=n)
    for item, required in ((x, 2), (y, 1)):
        await ProductVariantInventoryItem.create(variant_id="variant_kit", inventory_item_id=item.id,
                                                 required_quantity=required)
    kit = SimpleNamespace(id="variant_kit", manage_inventory=True, allow_backorder=False)
    line = SimpleNamespace(id="item_line", quantity=2, variant=kit)
    async with atomic():
        assert await reserve_lines([line], channel.id) == []
    held = sorted(await ReservationItem.all().values_list("inventory_item_id", "location_id", "quantity"))
    assert held == sorted([(x.id, b, 4), (y.id, b, 2)])
    # a third kit no location can serve (a: one y left; b: no x left): refused, nothing written
    async with atomic():
        assert await reserve_lines([SimpleNamespace(id="item_2", quantity=2, variant=kit)], channel.id) == [
            "variant_kit"]
    assert await ReservationItem.all().count() == 2
    async with atomic():
        await release_lines(["item_line"])
    assert await ReservationItem.all().count() == 0
    assert set(await InventoryLevel.all().values_list("reserved_quantity", flat=True)) == {0}

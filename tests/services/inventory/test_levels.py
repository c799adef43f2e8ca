"""Level changes are conditional updates: a reservation never takes more than a location has
available, the variants' totals follow every change, and a channel sees only its locations."""

import asyncio

import pytest

from models import InventoryLevel, ProductVariant, ReservationItem, SalesChannelLocation
from services.core.errors import NotAllowed, NotFound
from services.inventory import levels
from services.inventory.levels import NotEnoughStock
from services.inventory.variant_stock import available_in_channel
from services.inventory.reservations import delete_reservation, release_lines, reserve, update_reservation
from services.store.defaults import get_store
from tests.conftest import requires_postgres
from tests.inventory_factories import location, stocked_item


async def _level(item_id: str, location_id: str) -> tuple[int, int]:
    level = await InventoryLevel.get(inventory_item_id=item_id, location_id=location_id)
    return level.stocked_quantity, level.reserved_quantity


async def _variant_quantity(variant_id: str) -> int:
    return (await ProductVariant.get(id=variant_id)).inventory_quantity


async def test_the_variants_quantity_is_what_all_locations_have_available():
    a, b = await location("A"), await location("B")
    shirt, item = await stocked_item({a.id: 4, b.id: 6})
    assert await _variant_quantity(shirt.id) == 10
    await reserve(inventory_item_id=item.id, location_id=a.id, quantity=3)
    assert await _level(item.id, a.id) == (4, 3)
    assert await _variant_quantity(shirt.id) == 7
    await levels.set_level(item.id, b.id, stocked_quantity=1)
    assert await _variant_quantity(shirt.id) == 2


async def test_a_reservation_cannot_take_more_than_the_location_has_available():
    a, b = await location("A"), await location("B")
    _, item = await stocked_item({a.id: 2, b.id: 9})
    with pytest.raises(NotEnoughStock) as refused:
        await reserve(inventory_item_id=item.id, location_id=a.id, quantity=3)
    assert refused.value.available == 2
    assert await _level(item.id, a.id) == (2, 0)
    assert not await ReservationItem.exists()
    # allowed as a backorder
    await reserve(inventory_item_id=item.id, location_id=a.id, quantity=3, allow_negative=True)
    assert await _level(item.id, a.id) == (2, 3)


async def test_moving_a_reservation_releases_it_where_it_was_and_takes_it_where_it_goes():
    a, b = await location("A"), await location("B")
    _, item = await stocked_item({a.id: 5, b.id: 2})
    held = await reserve(inventory_item_id=item.id, location_id=a.id, quantity=2)
    await update_reservation(held.id, location_id=b.id)
    assert (await _level(item.id, a.id), await _level(item.id, b.id)) == ((5, 0), (2, 2))
    with pytest.raises(NotEnoughStock):
        await update_reservation(held.id, quantity=3)
    assert await _level(item.id, b.id) == (2, 2)
    await delete_reservation(held.id)
    assert await _level(item.id, b.id) == (2, 0)


async def test_releasing_an_orders_lines_gives_their_units_back():
    a = await location("A")
    _, item = await stocked_item({a.id: 5})
    await reserve(inventory_item_id=item.id, location_id=a.id, quantity=2, line_item_id="item_1")
    await reserve(inventory_item_id=item.id, location_id=a.id, quantity=1, line_item_id="item_2")
    assert await release_lines(["item_1", "item_2"]) == 2
    assert await _level(item.id, a.id) == (5, 0)


async def test_a_level_with_reserved_units_cannot_be_removed():
    a = await location("A")
    _, item = await stocked_item({a.id: 5})
    await reserve(inventory_item_id=item.id, location_id=a.id, quantity=1)
    with pytest.raises(NotAllowed, match="reserved items"):
        await levels.delete_level(item.id, a.id)
    with pytest.raises(NotFound):
        await levels.delete_level(item.id, "sloc_unknown")


async def test_a_channel_sees_what_its_own_locations_have_available():
    a, b = await location("A"), await location("B")
    shirt, item = await stocked_item({a.id: 4, b.id: 6})
    channel_id = (await get_store()).default_sales_channel_id
    assert await available_in_channel([shirt.id], channel_id) == {shirt.id: 0}
    await SalesChannelLocation.create(sales_channel_id=channel_id, location_id=b.id)
    await reserve(inventory_item_id=item.id, location_id=b.id, quantity=1)
    assert await available_in_channel([shirt.id], channel_id) == {shirt.id: 5}


@requires_postgres()
async def test_eight_concurrent_reservations_of_four_units_make_exactly_four():
    a = await location("A")
    shirt, item = await stocked_item({a.id: 4})

    async def one():
        try:
            await reserve(inventory_item_id=item.id, location_id=a.id, quantity=1)
            return True
        except NotEnoughStock:
            return False

    results = await asyncio.gather(*(one() for _ in range(8)))
    assert results.count(True) == 4
    assert await ReservationItem.filter(inventory_item_id=item.id).count() == 4
    assert await _level(item.id, a.id) == (4, 4)
    assert await _variant_quantity(shirt.id) == 0

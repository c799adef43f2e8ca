"""Turning INVENTORY_LOCATIONS on for a shop with stock: one default location holding each
variant's quantity, once; what changed while the setting was off is carried over."""

from models import (
    InventoryLevel, ProductVariant, ProductVariantInventoryItem, SalesChannel, SalesChannelLocation, StockLocation,
)
from services.inventory.switch_on import DEFAULT_LOCATION_NAME, switch_on, variants_changed
from services.store.defaults import get_store
from tests.inventory_factories import item_of, switched_on, variant


async def _levels() -> dict[str, tuple[str, int, int]]:
    """{variant_id: (location_id, stocked, reserved)} through the variant's one item."""
    out = {}
    for link in await ProductVariantInventoryItem.all():
        for level in await InventoryLevel.filter(inventory_item_id=link.inventory_item_id):
            out[link.variant_id] = (level.location_id, level.stocked_quantity, level.reserved_quantity)
    return out


async def test_switch_on_moves_each_variants_quantity_into_one_default_location():
    # Given a shop with stock kept per variant, and one variant that does not track stock
    shirt, mug = await variant("Shirt", quantity=5, sku="SHIRT"), await variant("Mug", quantity=3)
    untracked = await variant("Ebook", quantity=0, manage_inventory=False)
    # When the setting is switched on
    done = await switch_on()
    # I expect one default location, the store's, that every live sales channel sells from
    locations = await StockLocation.all()
    assert [loc.name for loc in locations] == [DEFAULT_LOCATION_NAME]
    assert (await get_store()).default_location_id == locations[0].id == done["location_id"]
    channels = set(await SalesChannel.filter(deleted_at=None).values_list("id", flat=True))
    assert set(await SalesChannelLocation.filter(location_id=locations[0].id).values_list(
        "sales_channel_id", flat=True)) == channels
    # and each tracked variant's quantity stocked there through its new item, SKU carried over
    assert await _levels() == {shirt.id: (locations[0].id, 5, 0), mug.id: (locations[0].id, 3, 0)}
    assert (await item_of(shirt.id)).sku == "SHIRT"
    assert not await ProductVariantInventoryItem.filter(variant_id=untracked.id).exists()
    assert done == {"items": 2, "location_id": locations[0].id, "location_made": True, "reconciled": 2}
    # and the variants' own quantities unchanged
    assert (await ProductVariant.get(id=shirt.id)).inventory_quantity == 5


async def test_switching_on_twice_changes_nothing_the_second_time():
    shirt = await variant("Shirt", quantity=5)
    first = await switch_on()
    again = await switch_on()
    assert again == {"items": 0, "location_id": first["location_id"], "location_made": False, "reconciled": 0}
    assert await StockLocation.all().count() == 1
    assert await _levels() == {shirt.id: (first["location_id"], 5, 0)}


async def test_what_changed_while_switched_off_is_carried_over_at_the_next_switch_on():
    # Given a shop switched on, then off while two orders sold 2 units (the variant counted down)
    shirt = await variant("Shirt", quantity=5)
    first = await switch_on()
    await ProductVariant.filter(id=shirt.id).update(inventory_quantity=3)
    # When it is switched on again
    again = await switch_on()
    # I expect the default location to hold what the shop sold from, not the old count
    assert again["reconciled"] == 1
    assert await _levels() == {shirt.id: (first["location_id"], 3, 0)}
    assert (await ProductVariant.get(id=shirt.id)).inventory_quantity == 3


async def test_a_variant_created_while_on_gets_an_item_and_its_quantity_at_the_default_location():
    with switched_on():
        location_id = (await switch_on())["location_id"]
        shirt = await variant("Shirt", quantity=4)
        await variants_changed([shirt.id])
        # When the merchant sets a new quantity through the variant
        await ProductVariant.filter(id=shirt.id).update(inventory_quantity=10)
        await variants_changed([shirt.id])
    assert await _levels() == {shirt.id: (location_id, 10, 0)}


async def test_variants_changed_does_nothing_while_the_setting_is_off():
    shirt = await variant("Shirt", quantity=4)
    await variants_changed([shirt.id])
    assert not await ProductVariantInventoryItem.exists()
    assert not await StockLocation.exists()

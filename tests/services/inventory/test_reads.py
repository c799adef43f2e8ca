"""The inventory area's hand-written read answers what the ORM's reads give, on both backends."""

from __future__ import annotations

from models import InventoryItem, InventoryLevel, ProductVariantInventoryItem
from services.inventory.levels import create_level
from services.inventory.reads import available_by_variant
from services.inventory.reservations import reserve
from tests.inventory_factories import location, stocked_item, variant


async def _by_the_orm(variant_ids: list[str], location_ids: list[str] | None) -> dict[str, int]:
    """The same figure read relation by relation: each variant's links, each link's levels."""
    out: dict[str, int] = {}
    for link in await ProductVariantInventoryItem.filter(variant_id__in=variant_ids):
        levels = InventoryLevel.filter(inventory_item_id=link.inventory_item_id)
        if location_ids is not None:
            levels = levels.filter(location_id__in=location_ids)
        units = sum(level.stocked_quantity - level.reserved_quantity for level in await levels)
        units //= max(link.required_quantity, 1)
        out[link.variant_id] = min(out.get(link.variant_id, units), units)
    return out


async def test_what_variants_have_available_is_what_the_orm_reads():
    # Given a variant stocked at two locations with some reserved, one made of two items (one
    # needed twice), one whose item is stocked nowhere, and one with no item at all
    a, b, c = await location("A"), await location("B"), await location("C")
    mug, mug_item = await stocked_item({a.id: 5, b.id: 7}, title="Mug")
    await reserve(inventory_item_id=mug_item.id, location_id=b.id, quantity=3)
    kit, _ = await stocked_item({a.id: 9}, title="Kit")
    part = await InventoryItem.create(sku="sku-part", title="Part")
    await ProductVariantInventoryItem.create(variant_id=kit.id, inventory_item_id=part.id, required_quantity=2)
    await create_level(part.id, a.id, stocked_quantity=8)
    await create_level(part.id, b.id, stocked_quantity=4)
    bare, _ = await stocked_item({}, title="Bare")
    loose = await variant("Loose")
    ids = [mug.id, kit.id, bare.id, loose.id]
    # When it is read in one statement, at every location, at some, and at one that stocks nothing
    for location_ids in (None, [a.id], [b.id, c.id], [c.id]):
        # I expect the ORM's figures
        assert await available_by_variant(ids, location_ids) == await _by_the_orm(ids, location_ids), location_ids
    assert await available_by_variant(ids) == {mug.id: 9, kit.id: 6, bare.id: 0}

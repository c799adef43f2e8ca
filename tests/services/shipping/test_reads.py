"""The shipping area's hand-written reads (services/shipping/reads.py: live options with their live
requirements, and a storefront's with their profile, in one statement) build what the ORM reads,
on both backends."""

from __future__ import annotations

from datetime import datetime, timezone

from models import ShippingOption, ShippingOptionRequirement, ShippingProfile
from services.shipping.reads import live_option, outbound_options
from tests.cart_factories import region_id, shipping_option
from tests.row_values import all_column_values as _all, column_values as _values


async def _requirements(option_id: str) -> list:
    return _all(await ShippingOptionRequirement.filter(shipping_option_id=option_id, deleted_at=None).order_by("id"))


async def test_an_option_read_by_hand_is_the_option_the_orm_reads(seeded):
    # Given an option with two requirements, one of them deleted, and one deleted option
    option = await shipping_option("Bounded", requirements={"min_subtotal": 1000, "max_subtotal": 90000},
                                   metadata={"k": "v"})
    await ShippingOptionRequirement.filter(shipping_option_id=option.id, type="max_subtotal").update(
        deleted_at=datetime(2024, 5, 1, tzinfo=timezone.utc))
    gone = await shipping_option("Gone", deleted_at=datetime(2024, 5, 1, tzinfo=timezone.utc))
    # When they are read by hand
    mine = await live_option(option.id)
    # I expect the ORM's option with its live requirements only
    assert _values(mine) == _values(await ShippingOption.get(id=option.id))
    assert _all(mine.requirements) == await _requirements(option.id) and len(mine.requirements) == 1
    # and none for a deleted option or an unknown id
    assert await live_option(gone.id) is None and await live_option("so_nope") is None


async def test_a_regions_outbound_options_read_by_hand_are_those_the_orm_reads(seeded):
    # Given the seeded region's options, one more with a requirement, and options the storefront
    # must not see there (admin-only, a return, another profile)
    await shipping_option("Required", requirements={"min_subtotal": 1000})
    await shipping_option("Admin only", admin_only=True)
    await shipping_option("Return", is_return=True)
    await shipping_option("Gift cards", profile="gift_card")
    default = (await ShippingProfile.get(type="default")).id
    region = await region_id("NA")
    # When the region's outbound options of the default profile are read by hand
    found = await outbound_options(region, [default])
    # I expect the ORM's, in creation order, each with its live requirements and its profile
    theirs = await ShippingOption.filter(
        region_id=region, profile_id=default, admin_only=False, is_return=False, deleted_at=None,
    ).select_related("profile").order_by("created_at", "id")
    assert _all(found) == _all(theirs) and len(theirs) >= 2
    for mine, orm in zip(found, theirs):
        assert _all(mine.requirements) == await _requirements(orm.id)
        assert _values(mine.profile) == _values(orm.profile)
    assert sum(len(o.requirements) for o in found) >= 1

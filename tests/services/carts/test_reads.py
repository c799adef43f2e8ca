"""The carts area's hand-written reads (services/carts/reads.py, services/carts/variant_reads.py,
services/carts/lock_reads.py) build what the ORM reads, relation by relation, with the same values
on the same owners, on both backends."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from models import (
    Cart, LineItem, LineItemAdjustment, LineItemTaxLine, MoneyAmount, PaymentSession,
    ProductVariant, Region, SalesChannel, ShippingMethod, ShippingMethodTaxLine, Store,
)
from services.carts.lock_reads import read_locked_cart, read_locked_variants
from services.carts.reads import read_cart, read_cart_lines, read_region_with_default_channel
from services.carts.variant_reads import read_variants
from services.core.db import atomic
from services.core.errors import NotFound
from tests.cart_factories import discount, gift_card, update_cart
from tests.checkout_factories import ready_cart
from tests.row_values import all_column_values as _all, column_values as _values


async def _ordered(qs) -> list:
    return await qs.order_by("created_at", "id")


async def test_a_cart_read_by_hand_is_the_cart_the_orm_reads(client, seeded):
    # Given a shipped, paid cart in a taxed region with two lines, a percentage discount
    # (adjustments) and a gift card
    await discount("TENOFF")
    card = await gift_card(500, region="EU")
    cart = await ready_cart(client, "EU", {"variant_cap_black": 2, "variant_t_shirt_s": 1})
    cart = await update_cart(client, cart, discounts=[{"code": "TENOFF"}], gift_cards=[{"code": card.code}])
    # When it is read by hand, stored tax lines and payment wanted
    rows = await read_cart(cart["id"], stored_tax_lines=lambda c: True, with_payment=True)
    # I expect what the ORM reads, relation by relation, in creation order
    theirs = await Cart.get(id=cart["id"]).select_related("region", "shipping_address", "billing_address",
                                                          "sales_channel")
    assert _values(rows.cart) == _values(theirs)
    for relation in ("region", "shipping_address", "billing_address", "sales_channel"):
        assert _values(getattr(rows.cart, relation)) == _values(getattr(theirs, relation)), relation
    assert _all(rows.payment_sessions) == _all(await _ordered(PaymentSession.filter(cart_id=cart["id"])))
    discounts = await _ordered(theirs.discounts.all().select_related("rule"))
    assert _all(rows.discounts) == _all(discounts) and len(discounts) == 1
    assert [_values(d.rule) for d in rows.discounts] == [_values(d.rule) for d in discounts]
    assert _all(rows.gift_cards) == _all(await _ordered(theirs.gift_cards.all())) != []
    items = await _ordered(LineItem.filter(cart_id=cart["id"]).select_related("variant__product__profile"))
    assert _all(rows.items) == _all(items) and len(items) == 2
    for mine, orm in zip(rows.items, items):
        assert _values(mine.variant) == _values(orm.variant)
        assert _values(mine.variant.product) == _values(orm.variant.product)
        assert _values(mine.variant.product.profile) == _values(orm.variant.product.profile)
        assert _all(rows.adjustments[mine.id]) == _all(await _ordered(LineItemAdjustment.filter(item_id=mine.id)))
        assert _all(rows.item_tax_lines[mine.id]) == _all(await _ordered(LineItemTaxLine.filter(item_id=mine.id)))
    assert sum(len(a) for a in rows.adjustments.values()) >= 2
    methods = await _ordered(ShippingMethod.filter(cart_id=cart["id"]).select_related("shipping_option"))
    assert _all(rows.shipping_methods) == _all(methods) and len(methods) == 1
    for mine, orm in zip(rows.shipping_methods, methods):
        assert _values(mine.shipping_option) == _values(orm.shipping_option)
        assert _all(rows.method_tax_lines[mine.id]) == _all(
            await _ordered(ShippingMethodTaxLine.filter(shipping_method_id=mine.id)))
    # and its first statement alone reads the same cart and lines
    cart_only, lines, _ = await read_cart_lines(cart["id"])
    assert _values(cart_only) == _values(theirs) and _values(cart_only.region) == _values(theirs.region)
    assert _all(lines) == _all(items)


async def test_variants_read_by_hand_are_those_the_orm_reads(client, seeded):
    # Given variants of the demo store, one of them unknown
    ids = ["variant_cap_black", "variant_t_shirt_s", "variant_nope"]
    channel = (await Store.first()).default_sales_channel_id
    for channel_id in (None, channel, "sc_elsewhere"):
        # When they are read by hand for a shopper
        found = await read_variants(ids, for_sale=True, channel_id=channel_id)
        # I expect the ORM's variants, products, profiles and live prices, and their channel
        variants = await ProductVariant.filter(id__in=ids).select_related("product__profile").order_by("id")
        assert sorted(found) == [v.id for v in variants]
        for orm in variants:
            mine, in_channel = found[orm.id]
            assert _values(mine) == _values(orm)
            assert _values(mine.product) == _values(orm.product)
            assert _values(mine.product.profile) == _values(orm.product.profile)
            prices = await _ordered(MoneyAmount.filter(variant_id=orm.id, deleted_at=None))
            assert _all(mine.prices) == _all(prices) != []
            sold_there = channel_id is None or await orm.product.sales_channels.filter(id=channel_id).exists()
            assert in_channel == sold_there


async def test_a_region_and_the_default_channel_read_by_hand_are_the_orms(seeded):
    region = await Region.filter(name="EU").first()
    mine, channel = await read_region_with_default_channel(region.id)
    assert _values(mine) == _values(region)
    store = await Store.first()
    assert _values(channel) == _values(await SalesChannel.get(id=store.default_sales_channel_id))
    assert await read_region_with_default_channel("reg_nope") == (None, None)


async def test_a_cart_read_by_its_lock_is_the_cart_the_orm_reads(client, seeded):
    # Given a cart with a line, and a deleted one
    cart = await ready_cart(client, "EU", {"variant_cap_black": 1})
    gone = await ready_cart(client, "NA", {"variant_cap_black": 1})
    await Cart.filter(id=gone["id"]).update(deleted_at=datetime(2024, 5, 1, tzinfo=timezone.utc))
    # When its row is read by the statement that locks it, alone and with variants a shopper adds
    async with atomic():
        mine = await read_locked_cart(cart["id"])
        locked = await read_locked_variants(cart["id"], ["variant_cap_black", "variant_nope"])
    # I expect the ORM's cart, and the variants as they are read without the lock
    assert _values(mine) == _values(await Cart.get(id=cart["id"]))
    channel = (await Cart.get(id=cart["id"])).sales_channel_id
    assert locked.channel_id == channel
    found = await read_variants(["variant_cap_black", "variant_nope"], for_sale=True, channel_id=channel)
    assert sorted(locked.found) == sorted(found) == ["variant_cap_black"]
    for variant_id, (variant, in_channel) in locked.found.items():
        theirs, sold_there = found[variant_id]
        assert (_values(variant), _values(variant.product), _values(variant.product.profile), in_channel) == (
            _values(theirs), _values(theirs.product), _values(theirs.product.profile), sold_there)
        assert _all(variant.prices) == _all(theirs.prices) != []
    # and a deleted or unknown cart is not found
    for missing in (gone["id"], "cart_nope"):
        with pytest.raises(NotFound):
            await read_locked_cart(missing)
        with pytest.raises(NotFound):
            await read_locked_variants(missing, ["variant_cap_black"])

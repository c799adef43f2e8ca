"""Store cart line items: add, update, delete."""

from __future__ import annotations

import asyncio

import pytest

from models import LineItem, MoneyAmount, Product, ProductVariant, SalesChannel
from tests.cart_factories import add_item, line, new_cart, ship
from tests.conftest import count_queries, requires_postgres

INSUFFICIENT = {"type": "not_allowed", "code": "insufficient_inventory"}


async def post_item(client, cart: dict, **body):
    return await client.post(f"/store/carts/{cart['id']}/line-items", json=body)


async def change_item(client, cart: dict, item: dict, **body):
    return await client.post(f"/store/carts/{cart['id']}/line-items/{item['id']}", json=body)


async def with_shipping(client, cart: dict) -> dict:
    cart = await ship(client, cart)
    assert cart["shipping_total"] == 1000
    return cart


# ---------------------------------------------------------------- add

async def _add_counts(client, carts: list[dict], variant_id: str) -> tuple[list[int], list[dict]]:
    counts, answers = [], []
    for cart in carts:
        async with count_queries() as statements:
            r = await post_item(client, cart, variant_id=variant_id, quantity=1)
        assert r.status_code == 200, r.text
        counts.append(len(statements))
        answers.append(r.json()["cart"])
    return counts, answers


async def test_adding_a_line_takes_at_most_three_statements_for_a_cart_of_one_line_or_twenty(client, seeded):
    # Given carts of one line and of twenty (the region's parts remembered, as in a running shop)
    variants = await ProductVariant.filter(product__is_giftcard=False).order_by("id").limit(21).values_list(
        "id", flat=True)
    carts = [await new_cart(client, "NA", {v: 1 for v in chosen}) for chosen in (variants[:1], variants[:20])]
    await client.get(f"/store/carts/{carts[0]['id']}")
    # When a line is added to each
    counts, answers = await _add_counts(client, carts, variants[20])
    # I expect the same few statements for both (the lock with the variant's read, the cart, the
    # line; 4 when the variant was read by a statement of its own), and the answer a read gives
    assert counts[0] == counts[1] <= 3, counts
    assert [len(a["items"]) for a in answers] == [2, 21]
    for answer in answers:
        assert answer == (await client.get(f"/store/carts/{answer['id']}")).json()["cart"]


async def test_adding_a_line_to_a_shipped_cart_drops_its_method_in_five_statements_at_most(client, seeded):
    # Given shipped carts of one line and of twenty
    variants = await ProductVariant.filter(product__is_giftcard=False).order_by("id").limit(21).values_list(
        "id", flat=True)
    carts = [await ship(client, await new_cart(client, "NA", {v: 1 for v in chosen}))
             for chosen in (variants[:1], variants[:20])]
    assert all(c["shipping_methods"] and all(i["has_shipping"] for i in c["items"]) for c in carts)
    # When a line is added to each
    counts, answers = await _add_counts(client, carts, variants[20])
    # I expect the methods gone, no line shipped any more, and what a read gives
    assert counts[0] == counts[1] <= 5, counts  # 3 + the methods deleted, the lines unshipped
    for answer in answers:
        assert not answer["shipping_methods"] and not any(i["has_shipping"] for i in answer["items"])
        assert answer["shipping_total"] == 0
        assert answer == (await client.get(f"/store/carts/{answer['id']}")).json()["cart"]



async def test_a_line_is_added_at_the_regions_price(client, seeded):
    cart = await add_item(client, await new_cart(client), "variant_cap_black", 2)
    item = line(cart, "variant_cap_black")
    assert (item["unit_price"], item["quantity"], item["subtotal"], item["total"]) == (1500, 2, 3000, 3000)
    assert item["adjustments"] == [] and item["has_shipping"] is False and item["should_merge"] is True
    assert item["allow_discounts"] is True and item["is_giftcard"] is False and item["metadata"] == {}
    assert cart["subtotal"] == cart["total"] == 3000


async def test_adding_a_variant_already_in_the_cart_adds_to_its_line(client, seeded):
    cart = await add_item(client, await new_cart(client), "variant_cap_black", 1)
    cart = await add_item(client, cart, "variant_cap_black", 2)
    assert [(i["variant_id"], i["quantity"]) for i in cart["items"]] == [("variant_cap_black", 3)]
    # A line with other metadata is another line
    cart = await add_item(client, cart, "variant_cap_black", 1, metadata={"engraving": "J"})
    assert sorted(i["quantity"] for i in cart["items"]) == [1, 3]


async def test_quantity_tiers_price_the_merged_quantity(client, seeded):
    await MoneyAmount.create(variant_id="variant_cap_black", currency_code="usd", amount=10, min_quantity=5)
    cart = await add_item(client, await new_cart(client), "variant_cap_black", 1)
    assert line(cart, "variant_cap_black")["unit_price"] == 1500
    cart = await add_item(client, cart, "variant_cap_black", 4)
    assert (line(cart, "variant_cap_black")["quantity"], line(cart, "variant_cap_black")["unit_price"]) == (5, 10)
    assert len(cart["items"]) == 1


@pytest.mark.parametrize("body,message", [
    ({"variant_id": "variant_cap_black", "quantity": 0},
     "Unable to generate the line item because one or more required argument(s) are missing. Ensure quantity, "
     "regionId, and variantId are passed"),
    ({"variant_id": "variant_cap_black", "quantity": -1}, "quantity must not be less than 1"),
    ({"variant_id": "variant_nope", "quantity": 1},
     "Unable to generate the line items, some variant has not been found: variant_nope"),
    ({"variant_id": "variant_cap_black"}, "quantity should not be empty"),
    ({"quantity": 1}, "variant_id should not be empty"),
    ({"variant_id": "variant_cap_black", "quantity": 1.5}, "quantity must be an integer number"),
    ({"variant_id": "variant_cap_black", "quantity": 1, "metadata": []}, "metadata must be an object"),
    ({"variant_id": "variant_cap_black", "quantity": 1, "price": 1}, "property price should not exist"),
])
async def test_a_malformed_line_is_refused(client, seeded, body, message):
    cart = await new_cart(client)
    r = await post_item(client, cart, **body)
    assert (r.status_code, r.json()) == (400, {"type": "invalid_data", "message": message})
    assert await LineItem.all().count() == 0


async def test_a_variant_without_a_price_in_the_region_cannot_be_added(client, seeded):
    await MoneyAmount.filter(variant_id="variant_cap_black", currency_code="eur").delete()
    r = await post_item(client, await new_cart(client, "EU"), variant_id="variant_cap_black", quantity=1)
    assert r.status_code == 400
    assert r.json()["message"] == 'Cannot generate line item for variant "Black" without a price'


async def test_a_product_that_is_not_published_cannot_be_added(client, seeded):
    await Product.filter(id="prod_cap").update(status="draft")
    r = await post_item(client, await new_cart(client), variant_id="variant_cap_black", quantity=1)
    assert r.status_code == 400 and "some variant has not been found" in r.json()["message"]


async def test_a_product_outside_the_carts_sales_channel_cannot_be_added(client, seeded):
    other = await SalesChannel.create(name="Pop-up")
    cart = await new_cart(client, sales_channel_id=other.id)
    r = await post_item(client, cart, variant_id="variant_cap_black", quantity=1)
    assert (r.status_code, r.json()["message"]) == (
        400, "The products [Medusa Cap] must belongs to the sales channel on which the cart has been created.",
    )


async def test_a_variant_read_before_the_carts_channel_changed_is_read_again(client, seeded, monkeypatch):
    # Given a cart of another channel, and the statement that locks it reading the variant as if
    # the cart were still in the default channel (its channel changed while the lock was awaited)
    import services.carts.items as items

    other = await SalesChannel.create(name="Pop-up")
    cart = await new_cart(client, sales_channel_id=other.id)
    default = await new_cart(client)
    locked = items.lock_reading_variants

    async def stale(cart_id, variant_ids):
        early = await locked(cart_id, variant_ids)
        seen = await items.read_variants(variant_ids, for_sale=True, channel_id=default["sales_channel_id"])
        return type(early)(seen, default["sales_channel_id"])

    monkeypatch.setattr(items, "lock_reading_variants", stale)
    # When the shopper adds a product the cart's channel does not sell
    r = await post_item(client, cart, variant_id="variant_cap_black", quantity=1)
    # I expect it checked against the channel the cart has under the lock
    assert (r.status_code, r.json()["message"]) == (
        400, "The products [Medusa Cap] must belongs to the sales channel on which the cart has been created.",
    )


async def test_a_line_needs_the_whole_quantity_in_stock(client, seeded):
    await ProductVariant.filter(id="variant_cap_black").update(inventory_quantity=3)
    cart = await add_item(client, await new_cart(client), "variant_cap_black", 2)
    # Merging counts the line's whole new quantity
    r = await post_item(client, cart, variant_id="variant_cap_black", quantity=2)
    assert r.status_code == 400
    message = "Variant with id: variant_cap_black does not have the required inventory"
    assert r.json() == {**INSUFFICIENT, "message": message}
    assert line((await client.get(f"/store/carts/{cart['id']}")).json()["cart"], "variant_cap_black")["quantity"] == 2


@pytest.mark.parametrize("columns", [{"allow_backorder": True}, {"manage_inventory": False}])
async def test_back_orders_or_untracked_inventory_need_no_stock(client, seeded, columns):
    await ProductVariant.filter(id="variant_cap_black").update(inventory_quantity=0, **columns)
    cart = await add_item(client, await new_cart(client), "variant_cap_black", 5)
    assert line(cart, "variant_cap_black")["quantity"] == 5


async def test_adding_a_line_removes_the_shipping_methods(client, seeded):
    cart = await with_shipping(client, await new_cart(client, "NA", {"variant_cap_black": 1}))
    cart = await add_item(client, cart, "variant_mug_white")
    assert cart["shipping_methods"] == [] and cart["shipping_total"] == 0
    assert all(i["has_shipping"] is False for i in cart["items"])


# ---------------------------------------------------------------- update


async def test_a_lines_quantity_and_metadata_are_updated_and_its_price_follows(client, seeded):
    await MoneyAmount.create(variant_id="variant_cap_black", currency_code="usd", amount=10, min_quantity=5)
    cart = await add_item(client, await new_cart(client), "variant_cap_black", 1,
                          metadata={"some-existing": "value", "gone": "soon"})
    item = line(cart, "variant_cap_black")
    r = await change_item(client, cart, item, quantity=5, metadata={"another": "one", "gone": ""})
    assert r.status_code == 200
    item = line(r.json()["cart"], "variant_cap_black")
    assert (item["quantity"], item["unit_price"]) == (5, 10)
    assert item["metadata"] == {"some-existing": "value", "another": "one"}


async def test_a_quantity_of_zero_removes_the_line(client, seeded):
    cart = await new_cart(client, "NA", {"variant_cap_black": 1, "variant_mug_white": 1})
    r = await change_item(client, cart, line(cart, "variant_cap_black"), quantity=0)
    assert [i["variant_id"] for i in r.json()["cart"]["items"]] == ["variant_mug_white"]


async def test_a_line_of_another_cart_cannot_be_updated(client, seeded):
    mine = await new_cart(client, "NA", {"variant_cap_black": 1})
    theirs = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await change_item(client, mine, theirs["items"][0], quantity=3)
    assert (r.status_code, r.json()) == (400, {"type": "invalid_data", "message": "Could not find the line item"})
    assert (await LineItem.get(id=theirs["items"][0]["id"])).quantity == 1


async def test_an_update_beyond_the_stock_is_refused(client, seeded):
    await ProductVariant.filter(id="variant_cap_black").update(inventory_quantity=3)
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await change_item(client, cart, cart["items"][0], quantity=4)
    assert r.status_code == 400
    assert r.json() == {**INSUFFICIENT, "message": "Inventory doesn't cover the desired quantity"}


@pytest.mark.parametrize("body,message", [
    ({}, "quantity should not be empty"),
    ({"quantity": -2}, "quantity must not be less than 0"),
    ({"quantity": 1, "note": "x"}, "property note should not exist"),
])
async def test_a_malformed_line_update_is_refused(client, seeded, body, message):
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await change_item(client, cart, cart["items"][0], **body)
    assert (r.status_code, r.json()["message"]) == (400, message)


async def test_updating_a_line_removes_the_shipping_methods(client, seeded):
    cart = await with_shipping(client, await new_cart(client, "NA", {"variant_cap_black": 1}))
    r = await change_item(client, cart, cart["items"][0], quantity=2)
    assert r.json()["cart"]["shipping_methods"] == []


# ---------------------------------------------------------------- delete


async def test_a_line_is_deleted_and_the_shipping_methods_with_it(client, seeded):
    cart = await with_shipping(client, await new_cart(client, "NA", {"variant_cap_black": 1, "variant_mug_white": 1}))
    r = await client.delete(f"/store/carts/{cart['id']}/line-items/{line(cart, 'variant_cap_black')['id']}")
    cart = r.json()["cart"]
    assert [i["variant_id"] for i in cart["items"]] == ["variant_mug_white"] and cart["shipping_methods"] == []


async def test_deleting_a_line_that_is_not_in_the_cart_changes_nothing(client, seeded):
    cart = await with_shipping(client, await new_cart(client, "NA", {"variant_cap_black": 1}))
    r = await client.delete(f"/store/carts/{cart['id']}/line-items/item_missing")
    assert r.status_code == 200 and len(r.json()["cart"]["items"]) == 1 and r.json()["cart"]["shipping_methods"]


async def test_line_routes_of_an_unknown_cart_are_not_found(client, seeded):
    r = await post_item(client, {"id": "cart_missing"}, variant_id="variant_cap_black", quantity=1)
    assert (r.status_code, r.json()["message"]) == (404, "Cart with cart_missing was not found")
    assert (await client.delete("/store/carts/cart_missing/line-items/item_1")).status_code == 404


# ---------------------------------------------------------------- concurrency


@requires_postgres()
async def test_parallel_adds_to_one_cart_lose_no_line_and_no_unit(client, seeded):
    # Given an empty cart
    cart = await new_cart(client)
    variants = ["variant_cap_black", "variant_mug_white", "variant_socks_s"]
    # When twelve requests add to it at once, four of each variant
    responses = await asyncio.gather(*[
        post_item(client, cart, variant_id=variants[i % 3], quantity=1) for i in range(12)
    ])
    # I expect every request to succeed and the cart to hold exactly four of each, one line each
    assert [r.status_code for r in responses] == [200] * 12
    items = await LineItem.filter(cart_id=cart["id"]).order_by("variant_id")
    assert [(i.variant_id, i.quantity) for i in items] == [
        ("variant_cap_black", 4), ("variant_mug_white", 4), ("variant_socks_s", 4),
    ]

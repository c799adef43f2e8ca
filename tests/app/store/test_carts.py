"""Store carts: create and get; updates are in
test_store_cart_updates.py."""

from __future__ import annotations

import pytest

from models import (
    Cart, Country, Customer, LineItemTaxLine, Product, ProductType, ProductVariant, Region, SalesChannel,
    ShippingOption, TaxRate,
)
from services.store.defaults import get_store
from tests.cart_factories import (
    CART_COLUMNS, TOTAL_KEYS, discount, gift_card, line, new_cart, region_id, ship, shopper, update_cart,
)
from tests.conftest import count_queries

ITEM_TOTALS = {"subtotal", "discount_total", "total", "original_total", "original_tax_total", "tax_total"}
RELATIONS = {
    "gift_cards", "region", "items", "payment", "shipping_address", "billing_address", "shipping_methods",
    "payment_sessions", "discounts", "sales_channel",
}


def has_key(value, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(has_key(v, key) for v in value)
    return False


# ---------------------------------------------------------------- create


async def test_a_cart_created_without_a_body_is_in_the_first_region_and_the_default_channel(client, seeded):
    # When a shopper creates a cart with no body
    r = await client.post("/store/carts")
    # I expect Medusa's cart: every column, `object`, the default relations and zero totals
    assert r.status_code == 200
    cart = r.json()["cart"]
    assert set(cart) == CART_COLUMNS | RELATIONS | TOTAL_KEYS | {"object", "payment_session"}
    assert cart["object"] == "cart" and cart["type"] == "default" and cart["payment_session"] is None
    first = await Region.filter(deleted_at=None).order_by("created_at", "id").first()
    assert cart["region_id"] == first.id and cart["region"]["id"] == first.id
    assert {c["iso_2"] for c in cart["region"]["countries"]} == {"us", "ca"}
    assert [p["id"] for p in cart["region"]["payment_providers"]] == ["manual"]
    assert cart["region"]["tax_rates"] == [] and cart["region"]["fulfillment_providers"][0]["id"] == "manual"
    assert cart["sales_channel_id"] == (await get_store()).default_sales_channel_id == cart["sales_channel"]["id"]
    assert cart["items"] == [] and cart["shipping_methods"] == [] and cart["discounts"] == []
    assert cart["payment"] is None and cart["shipping_address"] is None
    assert all(cart[k] == 0 for k in TOTAL_KEYS)
    assert cart["context"]["ip"] == "127.0.0.1" and "user_agent" in cart["context"]


async def test_without_any_region_a_cart_cannot_be_created(client):
    r = await client.post("/store/carts", json={})
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": "A region is required to create a cart"}


async def test_an_unknown_region_is_not_found(client, seeded):
    r = await client.post("/store/carts", json={"region_id": "reg_missing"})
    assert (r.status_code, r.json()["message"]) == (404, "Region with reg_missing was not found")


async def test_a_cart_created_with_items_prices_them_for_its_region(client, seeded):
    cart = await new_cart(client, "EU", {"variant_cap_black": 1, "variant_t_shirt_s": 2})
    assert [(i["variant_id"], i["unit_price"], i["quantity"]) for i in cart["items"]] == [
        ("variant_cap_black", 1400, 1), ("variant_t_shirt_s", 1800, 2),
    ]
    cap = line(cart, "variant_cap_black")
    assert cap["title"] == "Medusa Cap" and cap["description"] == "Black" and cap["adjustments"] == []
    assert cap["variant"]["product"]["id"] == "prod_cap" and len(cap["variant"]["product"]["profiles"]) == 1
    assert ITEM_TOTALS <= set(cap) and not has_key(cart, "raw_discount_total")
    # EU taxes 25 %: computed live, one line per item
    assert cap["tax_lines"] == [{"rate": 25.0, "name": "default", "code": "default", "item_id": cap["id"]}]
    assert (cart["subtotal"], cart["tax_total"], cart["total"]) == (5000, 1250, 6250)


async def test_a_failing_item_creates_no_cart(client, seeded):
    r = await client.post("/store/carts", json={
        "region_id": await region_id("NA"),
        "items": [{"variant_id": "variant_cap_black", "quantity": 1}, {"variant_id": "variant_nope", "quantity": 1}],
    })
    assert r.status_code == 400
    assert r.json()["message"] == "Unable to generate the line items, some variant has not been found: variant_nope"
    assert await Cart.all().count() == 0


async def test_a_country_code_becomes_the_shipping_country_if_the_region_has_it(client, seeded):
    cart = await new_cart(client, "NA", country_code="US")
    assert cart["shipping_address"]["country_code"] == "us"
    r = await client.post("/store/carts", json={"region_id": await region_id("NA"), "country_code": "dk"})
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed", "message": "Shipping country not in region"})


async def test_a_region_with_one_country_gives_the_cart_that_shipping_country(client, seeded):
    solo = await Region.create(name="Solo", currency_code="usd")
    await Country.filter(iso_2="se").update(region_id=solo.id)
    r = await client.post("/store/carts", json={"region_id": solo.id})
    assert r.json()["cart"]["shipping_address"]["country_code"] == "se"


async def test_the_body_context_is_merged_over_the_request_context(client, seeded):
    cart = await new_cart(client, context={"test_id": "abc", "ip": "10.0.0.1"})
    assert cart["context"]["test_id"] == "abc" and cart["context"]["ip"] == "10.0.0.1"
    assert cart["context"]["user_agent"].startswith("python-httpx")


async def test_a_cart_cannot_be_created_in_a_disabled_or_unknown_sales_channel(client, seeded):
    closed = await SalesChannel.create(name="Closed", is_disabled=True)
    r = await client.post("/store/carts", json={"sales_channel_id": closed.id})
    assert r.status_code == 400
    assert r.json()["message"] == 'Unable to assign the cart to a disabled Sales Channel "Closed"'
    r = await client.post("/store/carts", json={"sales_channel_id": "sc_missing"})
    assert r.status_code == 404


@pytest.mark.parametrize("body,message", [
    ({"colour": "red"}, "property colour should not exist"),
    ({"items": [{"variant_id": "variant_cap_black", "quantity": "2"}]}, "quantity must be an integer number"),
    ({"items": [{"variant_id": "", "quantity": 1}]}, "variant_id should not be empty"),
    ({"items": [{"quantity": 1}]}, "variant_id should not be empty"),
    ({"items": [{"variant_id": "variant_cap_black", "quantity": 0}]},
     "Unable to generate the line item because one or more required argument(s) are missing. Ensure quantity, "
     "regionId, and variantId are passed"),
    ({"context": "x"}, "context must be an object"),
    ({"region_id": 5}, "region_id must be a string"),
])
async def test_a_malformed_create_is_refused_with_medusas_message(client, seeded, body, message):
    r = await client.post("/store/carts", json=body)
    assert (r.status_code, r.json()) == (400, {"type": "invalid_data", "message": message})
    assert await Cart.all().count() == 0


async def test_a_cart_created_while_signed_in_belongs_to_the_customer(client, seeded):
    jane, headers = await shopper(client)
    r = await client.post("/store/carts", json={}, headers=headers)
    cart = r.json()["cart"]
    assert (cart["customer_id"], cart["email"]) == (jane.id, "jane@example.com")


# ---------------------------------------------------------------- get


async def test_an_unknown_cart_is_not_found(client, seeded):
    for cart_id in ("cart_missing", "x" * 300):
        r = await client.get(f"/store/carts/{cart_id}")
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"Cart with {cart_id} was not found"}


async def test_get_honours_fields_and_expand_and_keeps_the_totals_relations(client, seeded):
    cart = await new_cart(client, "NA", {"variant_cap_black": 2})
    r = await client.get(f"/store/carts/{cart['id']}?fields=id,email&expand=items")
    body = r.json()["cart"]
    assert r.status_code == 200
    # Only the columns asked for, the relations asked for plus those the totals are made of
    assert {"id", "email"} <= set(body) and "region_id" not in body and "context" not in body
    assert "payment_sessions" not in body and "sales_channel" not in body
    assert {"items", "region", "discounts", "gift_cards", "shipping_methods", "shipping_address"} <= set(body)
    assert body["total"] == 3000 and body["items"][0]["total"] == 3000


@pytest.mark.parametrize("query,message", [
    ("limit=10", "property limit should not exist"),
    ("expand=customer", "Requested relations [customer] are not valid"),
    ("fields=secret", "Requested fields [secret] are not valid"),
])
async def test_get_refuses_unknown_query_keys_and_relations(client, seeded, query, message):
    cart = await new_cart(client)
    r = await client.get(f"/store/carts/{cart['id']}?{query}")
    assert (r.status_code, r.json()["message"]) == (400, message)


async def test_a_signed_in_customer_reading_a_cart_makes_it_theirs(client, seeded):
    # Given a guest's cart
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    cart = await update_cart(client, cart, email="guest@example.com")
    # When Jane, signed in, reads it
    jane, headers = await shopper(client)
    r = await client.get(f"/store/carts/{cart['id']}", headers=headers)
    # I expect the cart to be hers, and to stay so without further writes
    assert (r.json()["cart"]["customer_id"], r.json()["cart"]["email"]) == (jane.id, jane.email)
    async with count_queries() as statements:
        again = await client.get(f"/store/carts/{cart['id']}", headers=headers)
    assert again.json()["cart"]["customer_id"] == jane.id
    assert not [s for s in statements if s.lstrip().upper().startswith(("UPDATE", "INSERT", "DELETE"))]


async def test_a_cart_read_by_its_id_shows_its_customer_only_as_id_and_email(client, seeded):
    # Given Jane's cart, with her name, phone and a saved address on her account
    jane, headers = await shopper(client)
    await Customer.filter(id=jane.id).update(phone="+1 555 0100")
    cart = (await client.post("/store/carts", json={}, headers=headers)).json()["cart"]
    # When someone holding only the cart id reads it
    r = await client.get(f"/store/carts/{cart['id']}")
    # I expect her id and email on the cart, and nothing else of her account
    assert (r.json()["cart"]["customer_id"], r.json()["cart"]["email"]) == (jane.id, jane.email)
    assert "customer" not in r.json()["cart"]
    assert b"Jane" not in r.content and b"+1 555 0100" not in r.content and b"password" not in r.content


async def test_reading_a_cart_takes_the_same_statements_for_one_line_or_twenty(client, seeded):
    # Given two carts with a discount, a gift card and a shipping method, one line and twenty
    await discount("TENOFF")
    card = await gift_card(500)
    variants = await ProductVariant.all().order_by("id").limit(20).values_list("id", flat=True)
    carts = []
    for chosen in (variants[:1], variants):
        cart = await new_cart(client, "NA", {v: 1 for v in chosen})
        await ship(client, cart)
        carts.append(await update_cart(client, cart, discounts=[{"code": "TENOFF"}], gift_cards=[{"code": card.code}]))
    # When each is read
    counts = []
    for cart in carts:
        async with count_queries() as statements:
            r = await client.get(f"/store/carts/{cart['id']}")
        assert r.status_code == 200
        counts.append(len(statements))
    body = r.json()["cart"]
    # I expect the same statements for both, and everything in the answer
    assert len(body["items"]) == 20 and all(i["adjustments"] for i in body["items"])
    assert body["shipping_methods"] and body["gift_card_total"] == 500 and body["discounts"]
    assert counts[0] == counts[1] <= 11, counts


async def _read_counts(client, carts: list[dict]) -> tuple[list[int], dict]:
    counts, body = [], None
    for cart in carts:
        async with count_queries() as statements:
            r = await client.get(f"/store/carts/{cart['id']}")
        assert r.status_code == 200
        counts.append(len(statements))
        body = r.json()["cart"]
    return counts, body


@pytest.mark.parametrize("with_offers", [False, True], ids=["plain", "discount-and-gift-card"])
async def test_a_cart_is_read_in_at_most_five_statements_for_one_line_or_twenty(client, seeded, with_offers):
    # Given carts of one line and of twenty, shipped, with payment sessions (and a discount and a gift card)
    await discount("TENOFF")
    card = await gift_card(500)
    variants = await ProductVariant.all().order_by("id").limit(20).values_list("id", flat=True)
    carts = []
    for chosen in (variants[:1], variants):
        cart = await new_cart(client, "NA", {v: 1 for v in chosen})
        await ship(client, cart)
        if with_offers:
            await update_cart(client, cart, discounts=[{"code": "TENOFF"}], gift_cards=[{"code": card.code}])
        r = await client.post(f"/store/carts/{cart['id']}/payment-sessions")
        carts.append(r.json()["cart"])
    # When each is read
    counts, body = await _read_counts(client, carts)
    # I expect at most five statements, the same for both, and everything in the answer
    assert counts[0] == counts[1] <= 5, counts
    assert len(body["items"]) == 20 and body["shipping_methods"] and body["payment_session"]["amount"] == body["total"]
    assert bool(body["discounts"]) == with_offers and all(bool(i["adjustments"]) == with_offers for i in body["items"])
    assert body["gift_card_total"] == (500 if with_offers else 0)


async def test_a_plain_cart_is_read_in_one_statement_and_a_shipped_one_too(client, seeded):
    # Given carts of one line and of twenty, without discount or gift card, in a region computing its taxes
    variants = await ProductVariant.all().order_by("id").limit(20).values_list("id", flat=True)
    carts = [await new_cart(client, "NA", {v: 1 for v in chosen}) for chosen in (variants[:1], variants)]
    # When each is read, then read again once shipped
    plain, body = await _read_counts(client, carts)
    assert len(body["items"]) == 20 and all(i["variant"]["product"]["id"] for i in body["items"])
    assert [i["variant_id"] for i in body["items"]] == list(variants)  # in the order they were added
    shipped, body = await _read_counts(client, [await ship(client, cart) for cart in carts])
    # I expect the cart, its lines and its shipping methods in one statement (two when the methods were a second)
    assert (plain, shipped) == ([1, 1], [1, 1])
    assert body["shipping_methods"] and body["total"] == body["subtotal"] + body["shipping_total"] + body["tax_total"]


async def test_a_cart_with_tax_rate_overrides_and_stored_tax_lines_is_read_in_five_statements(client, seeded):
    # Given EU rates on a product, a product type and the shipping option, and carts of one line and of three
    eu = await Region.get(name="EU")
    hats = await ProductType.create(value="Hats")
    await Product.filter(id="prod_cap").update(type_id=hats.id)
    for owner, relation in ((await Product.get(id="prod_cap"), "products"), (hats, "product_types"),
                            (await ShippingOption.get(name="EU Flat Rate"), "shipping_options")):
        rate = await TaxRate.create(region_id=eu.id, rate=10, name="Reduced", code="R")
        await getattr(rate, relation).add(owner)
    carts = []
    for lines in ({"variant_cap_black": 1}, {"variant_cap_black": 1, "variant_mug_white": 1, "variant_t_shirt_s": 2}):
        cart = await new_cart(client, "EU", lines)
        carts.append(await ship(client, cart, "EU Flat Rate"))
    counts, body = await _read_counts(client, carts)
    assert counts[0] == counts[1] <= 5, counts
    assert body["items"][0]["tax_lines"][0]["name"] == "Reduced"
    assert body["shipping_methods"][0]["tax_lines"][0]["name"] == "Reduced"
    # When the region's taxes are no longer automatic and the lines have stored tax lines
    await Region.filter(id=eu.id).update(automatic_taxes=False)
    for cart in carts:
        for item in cart["items"]:
            await LineItemTaxLine.create(item_id=item["id"], rate=12, name="Stored", code="S")
    counts, body = await _read_counts(client, carts)
    # I expect the stored lines, still within five statements
    assert counts[0] == counts[1] <= 5, counts
    assert [t["name"] for i in body["items"] for t in i["tax_lines"]] == ["Stored"] * 3


async def test_a_new_cart_answers_exactly_what_reading_it_back_answers(client, seeded):
    # Given carts created with no lines: one region with several countries, one with a country
    # given (so an address is made), one whose region has a single country
    from models import Country, Region

    solo = await Region.create(name="Solo", currency_code="usd", tax_rate=0)
    await Country.filter(iso_2="se").update(region_id=solo.id)
    for body in ({"region_id": await region_id("NA")}, {"region_id": await region_id("EU"), "country_code": "DK"},
                 {"region_id": solo.id}, {}):
        # When one is created, then read back
        created = await client.post("/store/carts", json=body)
        assert created.status_code == 200, created.text
        cart = created.json()["cart"]
        read = await client.get(f"/store/carts/{cart['id']}")
        # I expect the two answers to be the same, key for key
        assert read.json() == created.json(), body
        if body.get("region_id") == solo.id:
            assert cart["shipping_address"]["country_code"] == "se"


async def test_creating_a_cart_without_lines_takes_two_statements(client, seeded):
    na = await region_id("NA")
    await client.post("/store/carts", json={"region_id": na})  # the region's parts are now remembered
    async with count_queries() as queries:
        r = await client.post("/store/carts", json={"region_id": na})
    assert r.status_code == 200
    assert len(queries) == 2, queries

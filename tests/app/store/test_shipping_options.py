"""Store shipping options and a cart's shipping methods."""

from __future__ import annotations

import pytest

from models import LineItem, ShippingOption, TaxRate
from tests.cart_factories import new_cart, option_id, region_id, shipping_option

OPTION_KEYS = {
    "id", "name", "region_id", "profile_id", "provider_id", "price_type", "amount", "is_return", "admin_only",
    "data", "metadata", "created_at", "updated_at", "deleted_at", "includes_tax", "requirements", "price_incl_tax",
    "tax_rates", "tax_amount",
}


def names(r) -> set[str]:
    return {o["name"] for o in r.json()["shipping_options"]}


async def ship(client, cart: dict, option: str, **body):
    return await client.post(f"/store/carts/{cart['id']}/shipping-methods", json={"option_id": option, **body})


# ---------------------------------------------------------------- GET /store/shipping-options


async def test_the_list_shows_every_option_a_customer_may_use_with_its_taxes(client, seeded):
    await shipping_option("Staff pickup", admin_only=True)
    await shipping_option("NA Returns", is_return=True)
    r = await client.get("/store/shipping-options")
    assert r.status_code == 200
    assert names(r) == {"NA Flat Rate", "EU Flat Rate", "NA Gift Card Delivery", "EU Gift Card Delivery", "NA Returns"}
    by_name = {o["name"]: o for o in r.json()["shipping_options"]}
    eu = by_name["EU Flat Rate"]
    assert set(eu) == OPTION_KEYS and eu["requirements"] == []
    assert eu["tax_rates"] == [{"rate": 25.0, "name": "default", "code": "default"}]
    assert (eu["amount"], eu["tax_amount"], eu["price_incl_tax"]) == (1000, 250, 1250)
    assert by_name["NA Flat Rate"]["tax_amount"] == 0


async def test_the_list_narrows_to_a_region_to_returns_and_to_products_profiles(client, seeded):
    await shipping_option("NA Returns", is_return=True)
    assert names(await client.get(f"/store/shipping-options?region_id={await region_id('EU')}")) == {
        "EU Flat Rate", "EU Gift Card Delivery",
    }
    assert names(await client.get("/store/shipping-options?is_return=true")) == {"NA Returns"}
    assert names(await client.get("/store/shipping-options?is_return=1")) == {"NA Returns"}
    assert "NA Returns" not in names(await client.get("/store/shipping-options?is_return=false"))
    r = await client.get(f"/store/shipping-options?product_ids=prod_cap,prod_mug&region_id={await region_id('NA')}")
    assert names(r) == {"NA Flat Rate", "NA Returns"}  # not the gift-card profile's


async def test_an_options_own_tax_rates_replace_the_regions(client, seeded):
    eu = await option_id("EU Flat Rate")
    rate = await TaxRate.create(region_id=await region_id("EU"), rate=10, name="Reduced", code="RED")
    await rate.shipping_options.add(await ShippingOption.get(id=eu))
    r = await client.get(f"/store/shipping-options?region_id={await region_id('EU')}")
    option = next(o for o in r.json()["shipping_options"] if o["id"] == eu)
    assert option["tax_rates"] == [{"rate": 10.0, "name": "Reduced", "code": "RED"}] and option["tax_amount"] == 100


@pytest.mark.parametrize("query,message", [
    ("is_return=yes", "is_return must be a boolean string"),
    ("limit=5", "property limit should not exist"),
])
async def test_the_list_refuses_a_bad_query(client, seeded, query, message):
    r = await client.get(f"/store/shipping-options?{query}")
    assert (r.status_code, r.json()) == (400, {"type": "invalid_data", "message": message})


# ---------------------------------------------------------------- GET /store/shipping-options/{cart_id}


async def test_a_cart_sees_the_outbound_options_of_its_region_and_products_it_qualifies_for(client, seeded):
    await shipping_option("Express", amount=2500, requirements={"min_subtotal": 1000})
    await shipping_option("Small orders", amount=300, requirements={"max_subtotal": 1500})
    await shipping_option("NA Returns", is_return=True)
    await shipping_option("Staff pickup", admin_only=True)
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})  # subtotal 1 500
    r = await client.get(f"/store/shipping-options/{cart['id']}")
    assert r.status_code == 200
    assert names(r) == {"NA Flat Rate", "Express"}  # no gift-card profile line, max is strict
    express = next(o for o in r.json()["shipping_options"] if o["name"] == "Express")
    assert express["requirements"][0]["type"] == "min_subtotal" and express["profile"]["type"] == "default"


async def test_an_empty_or_unknown_cart_has_no_options(client, seeded):
    cart = await new_cart(client)
    assert (await client.get(f"/store/shipping-options/{cart['id']}")).json() == {"shipping_options": []}
    r = await client.get("/store/shipping-options/cart_missing")
    assert (r.status_code, r.json()["message"]) == (404, "Cart with cart_missing was not found")


async def test_an_option_whose_price_cannot_be_calculated_is_left_out(client, seeded):
    await shipping_option("Carrier rates", price_type="calculated", amount=None)
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    assert "Carrier rates" not in names(await client.get(f"/store/shipping-options/{cart['id']}"))


# ---------------------------------------------------------------- POST /store/carts/{id}/shipping-methods


async def test_a_shipping_method_prices_shipping_and_taxes_it(client, seeded):
    cart = await new_cart(client, "EU", {"variant_cap_black": 1})
    r = await ship(client, cart, await option_id("EU Flat Rate"), data={"note": "leave at door"})
    assert r.status_code == 200
    cart = r.json()["cart"]
    method = cart["shipping_methods"][0]
    assert method["shipping_option"]["name"] == "EU Flat Rate" and method["data"] == {"note": "leave at door"}
    assert (method["price"], method["subtotal"], method["tax_total"], method["total"]) == (1000, 1000, 250, 1250)
    assert method["tax_lines"] == [
        {"rate": 25.0, "name": "default", "code": "default", "shipping_method_id": method["id"]},
    ]
    assert (cart["shipping_total"], cart["shipping_tax_total"]) == (1000, 250)
    assert (cart["tax_total"], cart["total"]) == (350 + 250, 1400 + 1000 + 600)
    assert cart["items"][0]["has_shipping"] is True


async def test_one_method_per_shipping_profile(client, seeded):
    cheap = await shipping_option("Cheap", amount=500)
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    await ship(client, cart, await option_id("NA Flat Rate"))
    cart = (await ship(client, cart, cheap.id)).json()["cart"]
    assert [(m["shipping_option_id"], m["price"]) for m in cart["shipping_methods"]] == [(cheap.id, 500)]


async def test_a_method_of_another_profile_is_added_alongside(client, seeded):
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    await ship(client, cart, await option_id("NA Flat Rate"))
    cart = (await ship(client, cart, await option_id("NA Gift Card Delivery"))).json()["cart"]
    assert len(cart["shipping_methods"]) == 2 and cart["shipping_total"] == 1000


@pytest.mark.parametrize("make,status,message", [
    (lambda: option_id("EU Flat Rate"), 400, "The shipping option is not available in the cart's region"),
    (lambda: _id(shipping_option("Express", requirements={"min_subtotal": 5000})), 400,
     "The Cart does not satisfy the shipping option's requirements"),
    (lambda: _id(shipping_option("Small", requirements={"max_subtotal": 1500})), 400,
     "The Cart does not satisfy the shipping option's requirements"),
    (lambda: _id(shipping_option("Staff", admin_only=True)), 400, "The shipping option is not available for this cart"),
    (lambda: _id(shipping_option("Carrier", price_type="calculated", amount=None)), 400,
     "The fulfillment provider manual cannot calculate the price of this option"),
])
async def test_an_option_the_cart_cannot_use_is_refused(client, seeded, make, status, message):
    option = await make()
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await ship(client, cart, option)
    assert (r.status_code, r.json()["message"]) == (status, message)
    assert (await client.get(f"/store/carts/{cart['id']}")).json()["cart"]["shipping_methods"] == []


async def _id(made) -> str:
    return (await made).id


async def test_an_unknown_option_is_not_found_and_a_missing_one_is_invalid(client, seeded):
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await ship(client, cart, "so_missing")
    assert (r.status_code, r.json()["message"]) == (404, "Shipping Option with so_missing was not found")
    r = await client.post(f"/store/carts/{cart['id']}/shipping-methods", json={})
    assert (r.status_code, r.json()["message"]) == (400, "option_id should not be empty")
    r = await client.post(f"/store/carts/{cart['id']}/shipping-methods", json={"option_id": "x", "data": 3})
    assert (r.status_code, r.json()["message"]) == (400, "data must be an object")


async def test_a_line_without_a_method_of_its_profile_has_no_shipping(client, seeded):
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    await ship(client, cart, await option_id("NA Gift Card Delivery"))
    assert (await LineItem.get(cart_id=cart["id"])).has_shipping is False

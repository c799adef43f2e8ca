"""Price lists in the store: what a customer group's member and a guest see on product pages, in
their cart and at checkout."""

from __future__ import annotations

import pytest

from models import Customer, CustomerGroup, LineItem, MoneyAmount, PriceList, ProductVariant, Region
from tests.cart_factories import line, region_id, shopper
from tests.checkout_factories import ADDRESS
from tests.conftest import count_queries

CAP = "variant_cap_black"  # usd 1500 in the demo store


@pytest.fixture
async def vip_sale(seeded):
    """An active sale list for the VIP group: the black cap at 1200 usd, 900 from 3 units."""
    vip = await CustomerGroup.create(name="VIP")
    sale = await PriceList.create(name="VIP sale", type="sale", status="active")
    await sale.customer_groups.add(vip)
    await MoneyAmount.create(variant_id=CAP, currency_code="usd", amount=1200, price_list_id=sale.id)
    await MoneyAmount.create(variant_id=CAP, currency_code="usd", amount=900, price_list_id=sale.id, min_quantity=3)
    return vip


async def member(client, vip: CustomerGroup) -> tuple[Customer, dict]:
    customer, headers = await shopper(client)
    await customer.groups.add(vip)
    return customer, headers


async def cap_as_seen(client, headers: dict | None = None) -> dict:
    na = await region_id("NA")
    r = await client.get(f"/store/products?region_id={na}&id[]=prod_cap", headers=headers or {})
    assert r.status_code == 200, r.text
    listed = next(v for v in r.json()["products"][0]["variants"] if v["id"] == CAP)
    r = await client.get(f"/store/products/prod_cap?region_id={na}", headers=headers or {})
    assert next(v for v in r.json()["product"]["variants"] if v["id"] == CAP) == listed
    return listed


async def test_a_group_member_sees_and_pays_the_sale_price_a_guest_does_not(client, vip_sale):
    customer, headers = await member(client, vip_sale)
    # A guest sees the normal price
    guest = await cap_as_seen(client)
    assert (guest["original_price"], guest["calculated_price"], guest["calculated_price_type"]) == (
        1500, 1500, "default")
    assert [p["price_list"] for p in guest["prices"]] == [None]
    # The member sees the sale price, and the list it comes from
    seen = await cap_as_seen(client, headers)
    assert (seen["original_price"], seen["calculated_price"], seen["calculated_price_type"]) == (1500, 1200, "sale")
    sale = next(p for p in seen["prices"] if p["amount"] == 1200)
    assert sale["price_list"]["name"] == "VIP sale" and sale["price_list"]["type"] == "sale"

    # The member's cart takes the sale price, and its tier at 3 units
    r = await client.post("/store/carts", headers=headers,
                          json={"region_id": await region_id("NA"), "items": [{"variant_id": CAP, "quantity": 1}]})
    cart = r.json()["cart"]
    assert cart["customer_id"] == customer.id and line(cart, CAP)["unit_price"] == 1200
    r = await client.post(f"/store/carts/{cart['id']}/line-items/{line(cart, CAP)['id']}", headers=headers,
                          json={"quantity": 3})
    assert line(r.json()["cart"], CAP)["unit_price"] == 900
    # ... and it is what the order charges
    na_option = (await client.get(f"/store/shipping-options/{cart['id']}")).json()["shipping_options"][0]["id"]
    for path, payload in ((f"/store/carts/{cart['id']}", {"shipping_address": ADDRESS}),
                          (f"/store/carts/{cart['id']}/shipping-methods", {"option_id": na_option}),
                          (f"/store/carts/{cart['id']}/payment-sessions", {}),
                          (f"/store/carts/{cart['id']}/payment-session", {"provider_id": "manual"})):
        r = await client.post(path, json=payload, headers=headers)
        assert r.status_code == 200, r.text
    r = await client.post(f"/store/carts/{cart['id']}/complete", headers=headers)
    assert r.status_code == 200, r.text
    order = r.json()["data"]
    assert r.json()["type"] == "order" and [(i["unit_price"], i["quantity"]) for i in order["items"]] == [(900, 3)]
    assert order["subtotal"] == 2700


async def test_a_guest_cart_is_repriced_when_the_member_signs_in(client, vip_sale):
    _, headers = await member(client, vip_sale)
    r = await client.post("/store/carts", json={"region_id": await region_id("NA"),
                                                "items": [{"variant_id": CAP, "quantity": 1}]})
    cart = r.json()["cart"]
    assert line(cart, CAP)["unit_price"] == 1500
    r = await client.get(f"/store/carts/{cart['id']}", headers=headers)
    assert line(r.json()["cart"], CAP)["unit_price"] == 1200
    # The group's list closed: the next change of customer or region prices it normally again
    await PriceList.filter(name="VIP sale").update(status="draft")
    r = await client.post(f"/store/carts/{cart['id']}", headers=headers, json={"region_id": await region_id("NA")})
    assert line(r.json()["cart"], CAP)["unit_price"] == 1500


async def test_a_public_list_prices_a_guest_but_a_draft_list_does_not(client, seeded):
    public = await PriceList.create(name="Summer", type="override", status="active")
    draft = await PriceList.create(name="Later", type="sale", status="draft")
    await MoneyAmount.create(variant_id=CAP, currency_code="usd", amount=1400, price_list_id=public.id)
    await MoneyAmount.create(variant_id=CAP, currency_code="usd", amount=100, price_list_id=draft.id)
    seen = await cap_as_seen(client)
    assert (seen["calculated_price"], seen["calculated_price_type"]) == (1400, "override")
    r = await client.post("/store/carts", json={"region_id": await region_id("NA"),
                                                "items": [{"variant_id": CAP, "quantity": 1}]})
    assert line(r.json()["cart"], CAP)["unit_price"] == 1400
    assert await LineItem.filter(unit_price=100).count() == 0


async def test_product_list_statements_do_not_grow_with_price_lists(client, vip_sale):
    _, headers = await member(client, vip_sale)
    url = f"/store/products?region_id={(await Region.get(name='NA')).id}"

    async def statements() -> int:
        async with count_queries() as queries:
            r = await client.get(url, headers=headers)
        assert r.status_code == 200
        return len(queries)

    await statements()  # the store's default channel is now remembered
    one = await statements()
    variants = await ProductVariant.filter(deleted_at=None).values_list("id", flat=True)
    for i in range(20):
        pl = await PriceList.create(name=f"L{i}", type="sale", status="active")
        await pl.customer_groups.add(vip_sale)
        await MoneyAmount.bulk_create([
            MoneyAmount(variant_id=v, currency_code="usd", amount=100 + i, price_list_id=pl.id) for v in variants
        ])
    assert await statements() == one
    seen = await cap_as_seen(client, headers)
    assert (seen["calculated_price"], seen["calculated_price_type"]) == (100, "sale")


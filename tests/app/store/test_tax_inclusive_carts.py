"""Tax-inclusive pricing (Medusa 1.20's `tax_inclusive_pricing`) through the storefront and the
admin API: the same EU cart (25 % tax) priced inclusive and exclusive side by side, with the
figures Medusa's tax calculation strategy and totals service give (the arithmetic is in each
comment), completed into an order that reads the same and is charged its total."""

from __future__ import annotations

import pytest

from models import GiftCard, MoneyAmount, PriceList, Product, Region, ShippingOption, ShippingProfile
from tests.cart_factories import (
    add_item, discount, line, option_id, region_id, region_price, shipping_option, update_cart,
)
from tests.checkout_factories import complete, pay_with_manual, ready_cart
from tests.draft_order_factories import new_draft, pay
from tests.order_edit_factories import add, new_edit

CART_TOTALS = ("subtotal", "discount_total", "item_tax_total", "shipping_total", "shipping_tax_total", "tax_total",
               "total")


async def mark_inclusive(client, admin_headers) -> None:
    """The EU region's prices and its flat rate hold their tax, set as the dashboard sets them."""
    r = await client.post(f"/admin/regions/{await region_id('EU')}", json={"includes_tax": True}, headers=admin_headers)
    assert r.status_code == 200 and r.json()["region"]["includes_tax"] is True, r.text
    r = await client.post(f"/admin/shipping-options/{await option_id('EU Flat Rate')}", json={"includes_tax": True},
                          headers=admin_headers)
    assert r.status_code == 200 and r.json()["shipping_option"]["includes_tax"] is True, r.text


async def eu_cart(client) -> dict:
    """3 units at an EU region price of 1999, shipped at the EU flat rate (1000), paid manually."""
    await region_price("variant_sweatshirt_s", "EU", 1999)
    return await ready_cart(client, "EU", {"variant_sweatshirt_s": 3})


@pytest.mark.parametrize("inclusive, expected", [
    # 1999 holds round(1999 × .25 / 1.25) = 400; (1999 - 400) × 3 = 4797 taxed round(1199.25) = 1199;
    # subtotal 5997 - 1199 = 4798. The rate's 1000 holds 200: shipping_total 800. Total 5997 + 1000.
    (True, (4798, 0, 1199, 800, 200, 1399, 6997)),
    (False, (5997, 0, 1499, 1000, 250, 1749, 8746)),
])
async def test_an_eu_cart_charges_its_inclusive_prices_and_no_more(client, seeded, admin_headers, inclusive, expected):
    if inclusive:
        await mark_inclusive(client, admin_headers)
    cart = await eu_cart(client)
    assert tuple(cart[k] for k in CART_TOTALS) == expected
    item = line(cart, "variant_sweatshirt_s")
    assert (item["includes_tax"], cart["shipping_methods"][0]["includes_tax"]) == (inclusive, inclusive)
    assert cart["payment_session"]["amount"] == cart["total"]
    # When completed, the order reads the same totals and is charged the cart's total
    r = await complete(client, cart)
    assert r.status_code == 200 and r.json()["type"] == "order", r.text
    order = r.json()["data"]
    assert tuple(order[k] for k in CART_TOTALS) == expected
    assert order["paid_total"] == order["total"] == cart["total"]
    assert line(order, "variant_sweatshirt_s")["includes_tax"] is inclusive


@pytest.mark.parametrize("inclusive, expected", [
    # Inclusive: 12 % of the 4798 without tax is round(575.76) = 576; tax round((4797 - 576) × .25) = 1055.
    (True, (4798, 576, 1055, 800, 200, 1255, 6277)),
    # Exclusive: 12 % of 5997 is round(719.64) = 720; tax round((5997 - 720) × .25) = 1319.
    (False, (5997, 720, 1319, 1000, 250, 1569, 7846)),
])
async def test_a_percentage_discount_is_taken_before_tax_inclusive_or_not(client, seeded, admin_headers, inclusive,
                                                                          expected):
    if inclusive:
        await mark_inclusive(client, admin_headers)
    await discount("TWELVE", value=12)
    cart = await eu_cart(client)
    cart = await update_cart(client, cart, discounts=[{"code": "TWELVE"}])
    cart = await pay_with_manual(client, cart)
    assert tuple(cart[k] for k in CART_TOTALS) == expected
    assert cart["payment_session"]["amount"] == cart["total"]
    r = await complete(client, cart)
    order = r.json()["data"]
    assert tuple(order[k] for k in CART_TOTALS) == expected
    # refundable (Medusa's getLineItemRefund): the discount per unit round(576 / 3) = 192,
    # (1999 - 400 - 192) × 3 = 4221 plus round(1055.25) = 1055; exclusive (1999 - 240) × 3 = 5277 + 1319.
    refundable = line(order, "variant_sweatshirt_s")["refundable"]
    assert refundable == (5276 if inclusive else 6596)


async def test_free_shipping_on_an_inclusive_rate_charges_nothing_for_it(client, seeded, admin_headers):
    await mark_inclusive(client, admin_headers)
    await discount("FREESHIP", kind="free_shipping", value=0)
    cart = await eu_cart(client)
    cart = await update_cart(client, cart, discounts=[{"code": "FREESHIP"}])
    assert (cart["shipping_total"], cart["shipping_tax_total"], cart["total"]) == (0, 0, 5997)


async def test_the_currency_flag_makes_its_prices_inclusive(client, seeded, admin_headers):
    # The eur price of the t-shirt (1800) holds 360; the region price of another variant too.
    r = await client.post("/admin/currencies/eur", json={"includes_tax": True}, headers=admin_headers)
    assert r.status_code == 200
    cart = await ready_cart(client, "EU", {"variant_t_shirt_s": 1})
    assert (cart["subtotal"], cart["item_tax_total"], line(cart, "variant_t_shirt_s")["includes_tax"]) == (1440, 360, True)
    assert cart["total"] == 1800 + 1250  # the flat rate stays exclusive: 1000 + 250


async def test_variants_show_their_price_with_tax_as_medusas_pricing_service(client, seeded, admin_headers):
    await mark_inclusive(client, admin_headers)
    await region_price("variant_sweatshirt_s", "EU", 1999)
    eu = await region_id("EU")
    product = (await client.get(f"/store/products/prod_sweatshirt?region_id={eu}")).json()["product"]
    inclusive = next(v for v in product["variants"] if v["id"] == "variant_sweatshirt_s")
    exclusive = next(v for v in product["variants"] if v["id"] == "variant_sweatshirt_m")  # eur 3300
    keys = ("calculated_price", "calculated_tax", "calculated_price_incl_tax", "original_price", "original_tax",
            "original_price_incl_tax")
    assert tuple(inclusive[k] for k in keys) == (1999, 400, 1999, 1999, 400, 1999)
    assert tuple(exclusive[k] for k in keys) == (3300, 825, 4125, 3300, 825, 4125)
    assert inclusive["tax_rates"] == [{"rate": 25.0, "name": "default", "code": "default"}]


async def test_an_inclusive_list_price_is_weighed_with_its_tax_against_an_exclusive_one(client, seeded):
    # 3300 is 4125 with tax: an inclusive sale price of 4000 is lower; 3400 is 4250: 4300 is not.
    sale = await PriceList.create(name="Sale", type="sale", status="active", includes_tax=True)
    await MoneyAmount.create(variant_id="variant_sweatshirt_m", currency_code="eur", amount=4000, price_list_id=sale.id)
    await MoneyAmount.create(variant_id="variant_sweatshirt_l", currency_code="eur", amount=4300, price_list_id=sale.id)
    cart = await ready_cart(client, "EU", {"variant_sweatshirt_m": 1}, pay=False)
    cart = await add_item(client, cart, "variant_sweatshirt_l")
    cheaper, dearer = line(cart, "variant_sweatshirt_m"), line(cart, "variant_sweatshirt_l")
    assert (cheaper["unit_price"], cheaper["includes_tax"]) == (4000, True)
    assert (dearer["unit_price"], dearer["includes_tax"]) == (3400, False)
    assert not (await Region.get(name="EU")).includes_tax


async def shipped(client, admin_headers, order: dict) -> None:
    base = f"/admin/orders/{order['id']}"
    assert (await client.post(f"{base}/capture", headers=admin_headers)).status_code == 200
    items = [{"item_id": i["id"], "quantity": i["quantity"]} for i in order["items"]]
    r = await client.post(f"{base}/fulfillment", json={"items": items}, headers=admin_headers)
    fulfillment = r.json()["order"]["fulfillments"][0]["id"]
    r = await client.post(f"{base}/shipment", json={"fulfillment_id": fulfillment}, headers=admin_headers)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("inclusive, expected", [
    # One unit back: (1999 - 400 - 192) + round(1407 × .25) = 1759, less the return rate 500 (it holds
    # 100: 400 + 100). Exclusive: (1999 - 240) + round(439.75) = 2199, less 500 + 125.
    (True, 1759 - 500),
    (False, 2199 - 625),
])
async def test_a_return_refunds_an_inclusive_unit_less_its_inclusive_shipping(client, seeded, admin_headers, inclusive,
                                                                             expected):
    if inclusive:
        await mark_inclusive(client, admin_headers)
    await discount("TWELVE", value=12)
    cart = await update_cart(client, await eu_cart(client), discounts=[{"code": "TWELVE"}])
    order = (await complete(client, await pay_with_manual(client, cart))).json()["data"]
    await shipped(client, admin_headers, order)
    eu = await Region.get(name="EU")
    option = await ShippingOption.create(
        name="EU Returns", region_id=eu.id, profile_id=(await ShippingProfile.get(type="default")).id,
        provider_id="manual", price_type="flat_rate", amount=500, is_return=True, includes_tax=inclusive,
        data={"id": "manual-fulfillment-return"},
    )
    body = {"order_id": order["id"], "items": [{"item_id": order["items"][0]["id"], "quantity": 1}],
            "return_shipping": {"option_id": option.id}}
    r = await client.post("/store/returns", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["return"]["refund_amount"] == expected


@pytest.mark.parametrize("inclusive, value", [(True, 1599), (False, 1999)])  # 4798 / 3 = 1599.33
async def test_a_bought_gift_card_is_worth_its_price_without_tax(client, seeded, admin_headers, inclusive, value):
    if inclusive:
        await mark_inclusive(client, admin_headers)
    await Product.filter(id="prod_sweatshirt").update(is_giftcard=True)
    order = (await complete(client, await eu_cart(client))).json()["data"]
    cards = await GiftCard.filter(order_id=order["id"])
    assert [(c.value, c.balance) for c in cards] == [(value, value)] * 3


@pytest.mark.parametrize("option_inclusive, offered", [(False, False), (True, True)])
async def test_an_inclusive_option_weighs_its_minimum_with_the_items_tax(client, seeded, option_inclusive, offered):
    # 2 × 1800 = 3600, 4500 with its tax: a minimum of 4000 admits the cart only for an inclusive option.
    option = await shipping_option("EU Big", "EU", 0, requirements={"min_subtotal": 4000},
                                   includes_tax=option_inclusive)
    cart = await ready_cart(client, "EU", {"variant_t_shirt_s": 2}, pay=False)
    options = (await client.get(f"/store/shipping-options/{cart['id']}")).json()["shipping_options"]
    assert (option.id in {o["id"] for o in options}) is offered
    r = await client.post(f"/store/carts/{cart['id']}/shipping-methods", json={"option_id": option.id})
    assert r.status_code == (200 if offered else 400), r.text


async def test_requirements_read_an_inclusive_lines_subtotal_without_its_tax(client, seeded, admin_headers):
    # 2 × 1999 holds round(3198 × .25) = 800 (3198 = 2 × (1999 - 400)): a subtotal of 3198, below 3500.
    await mark_inclusive(client, admin_headers)
    await region_price("variant_sweatshirt_s", "EU", 1999)
    option = await shipping_option("EU Big", "EU", 0, requirements={"min_subtotal": 3500})
    cart = await ready_cart(client, "EU", {"variant_sweatshirt_s": 2}, pay=False)
    options = (await client.get(f"/store/shipping-options/{cart['id']}")).json()["shipping_options"]
    assert option.id not in {o["id"] for o in options}


@pytest.mark.parametrize("inclusive, due", [(True, 1999), (False, 1999 + 500)])
async def test_an_order_edit_adding_an_inclusive_unit_is_due_its_price(client, seeded, admin_headers, inclusive, due):
    if inclusive:
        await mark_inclusive(client, admin_headers)
    order = (await complete(client, await eu_cart(client))).json()["data"]
    edit = await new_edit(client, admin_headers, order)
    edit = await add(client, admin_headers, edit, "variant_sweatshirt_s")
    added = next(i for i in edit["items"] if i["variant_id"] == "variant_sweatshirt_s" and i["quantity"] == 1)
    assert added["includes_tax"] is inclusive
    assert edit["difference_due"] == due


@pytest.mark.parametrize("inclusive, total", [(True, 6997), (False, 8746)])
async def test_a_draft_order_in_an_inclusive_region_is_paid_its_inclusive_total(client, seeded, admin_headers,
                                                                                 inclusive, total):
    if inclusive:
        await mark_inclusive(client, admin_headers)
    await region_price("variant_sweatshirt_s", "EU", 1999)
    draft = await new_draft(client, admin_headers, "EU", {"variant_sweatshirt_s": 3})
    assert draft["cart"]["total"] == total
    r = await pay(client, admin_headers, draft)
    assert r.status_code == 200, r.text
    assert r.json()["order"]["total"] == r.json()["order"]["paid_total"] == total

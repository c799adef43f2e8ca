"""Discounts and gift cards on a store cart."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from models import CustomerGroup, LineItemAdjustment, Product, ShippingMethod
from services.discounts.conditions import ConditionInput
from tests.cart_factories import add_item, discount, gift_card, line, new_cart, option_id, shopper, update_cart

NOW = datetime.now(timezone.utc)


async def apply(client, cart: dict, *codes: str):
    return await client.post(f"/store/carts/{cart['id']}", json={"discounts": [{"code": c} for c in codes]})


async def shipped(client, cart: dict, option: str = "NA Flat Rate") -> dict:
    r = await client.post(f"/store/carts/{cart['id']}/shipping-methods", json={"option_id": await option_id(option)})
    assert r.status_code == 200, r.text
    return r.json()["cart"]


# ---------------------------------------------------------------- amounts


async def test_a_ten_percent_code_in_the_eu_takes_ten_percent_before_the_25_percent_tax(client, seeded):
    # Given an EU cart with a 1 400 line and two others
    await discount("TEN")
    cart = await new_cart(client, "EU", {"variant_cap_black": 1, "variant_mug_white": 3, "variant_socks_s": 1})
    # When a 10 % code is applied
    r = await apply(client, cart, "ten")
    cart = r.json()["cart"]
    # I expect 10 % of the subtotal, 140 on the 1 400 line, and taxes on what is left
    assert r.status_code == 200 and [d["code"] for d in cart["discounts"]] == ["TEN"]
    cap = line(cart, "variant_cap_black")
    assert cap["adjustments"][0]["amount"] == cap["discount_total"] == 140
    assert cap["adjustments"][0]["description"] == "discount" and cap["adjustments"][0]["discount_id"]
    assert (cap["tax_total"], cap["total"], cap["original_total"]) == (315, 1575, 1750)
    assert cart["subtotal"] == 1400 + 3 * 1100 + 800 == 5500
    assert cart["discount_total"] == round(cart["subtotal"] * 0.1) == 550
    # Tax is rounded per line (2 970 × 25 % = 742.5 → 743), as Medusa v1 does
    assert [i["tax_total"] for i in cart["items"]] == [315, 743, 180] and cart["tax_total"] == 1238
    assert cart["total"] == 5500 - 550 + 1238


async def test_a_fixed_discount_is_spread_over_the_lines_summing_exactly(client, seeded):
    await discount("HUNDRED", kind="fixed", value=100, regions=("NA",))
    cart = await new_cart(client, "NA", {"variant_cap_black": 1, "variant_mug_white": 1, "variant_socks_s": 1})
    cart = (await apply(client, cart, "HUNDRED")).json()["cart"]
    shares = [i["adjustments"][0]["amount"] for i in cart["items"]]
    assert sum(shares) == cart["discount_total"] == 100 and all(isinstance(s, int) for s in shares)
    assert cart["total"] == cart["subtotal"] - 100


async def test_a_fixed_discount_per_item_takes_its_value_per_unit(client, seeded):
    await discount("TWOHUNDRED", kind="fixed", value=200, allocation="item", regions=("NA",))
    cart = await new_cart(client, "NA", {"variant_cap_black": 2})
    cart = (await apply(client, cart, "TWOHUNDRED")).json()["cart"]
    assert cart["items"][0]["adjustments"][0]["amount"] == 400


async def test_adjustments_follow_the_lines_as_they_change(client, seeded):
    await discount("SPLIT", kind="fixed", value=185, regions=("NA",))
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    cart = (await apply(client, cart, "SPLIT")).json()["cart"]
    assert cart["items"][0]["adjustments"][0]["amount"] == 185
    cart = await add_item(client, cart, "variant_mug_white", 1)
    assert sorted(i["adjustments"][0]["amount"] for i in cart["items"]) == [82, 103]
    r = await client.delete(f"/store/carts/{cart['id']}/line-items/{line(cart, 'variant_mug_white')['id']}")
    assert r.json()["cart"]["items"][0]["adjustments"][0]["amount"] == 185


async def test_a_line_that_does_not_allow_discounts_gets_none(client, seeded):
    await Product.filter(id="prod_mug").update(discountable=False)
    await discount("TEN")
    cart = await new_cart(client, "NA", {"variant_cap_black": 1, "variant_mug_white": 1})
    cart = (await apply(client, cart, "TEN")).json()["cart"]
    assert line(cart, "variant_mug_white")["adjustments"] == [] and cart["discount_total"] == 150


async def test_a_discount_conditioned_on_products_reaches_only_those(client, seeded):
    await discount("CAPS", conditions=[ConditionInput(operator="in", resources={"products": ["prod_cap"]})])
    cart = await new_cart(client, "NA", {"variant_cap_black": 1, "variant_mug_white": 1})
    cart = (await apply(client, cart, "CAPS")).json()["cart"]
    assert line(cart, "variant_cap_black")["discount_total"] == 150
    assert line(cart, "variant_mug_white")["adjustments"] == []


async def test_only_one_amount_discount_is_kept_the_first_given_with_every_free_shipping(client, seeded):
    await discount("TEN")
    await discount("FIVE", value=5)
    await discount("FREESHIP", kind="free_shipping", value=0, allocation=None)
    cart = await new_cart(client, "NA", {"variant_cap_black": 2})
    cart = (await apply(client, cart, "FIVE", "FREESHIP", "TEN")).json()["cart"]
    assert sorted(d["code"] for d in cart["discounts"]) == ["FIVE", "FREESHIP"] and cart["discount_total"] == 150


async def test_an_empty_list_removes_every_discount_and_its_adjustments(client, seeded):
    await discount("TEN")
    cart = (await apply(client, await new_cart(client, "NA", {"variant_cap_black": 1}), "TEN")).json()["cart"]
    cart = (await apply(client, cart)).json()["cart"]
    assert cart["discounts"] == [] and cart["items"][0]["adjustments"] == [] and cart["discount_total"] == 0
    assert await LineItemAdjustment.all().count() == 0


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("changes,status,body", [
    ({"usage_limit": 1, "usage_count": 1}, 400,
     {"type": "not_allowed", "message": "Discount CODE has been used maximum allowed times"}),
    ({"starts_at": NOW + timedelta(days=1)}, 400, {"type": "not_allowed", "message": "Discount CODE is not valid yet"}),
    ({"starts_at": NOW - timedelta(days=2), "ends_at": NOW - timedelta(days=1)}, 400,
     {"type": "not_allowed", "message": "Discount CODE is expired"}),
    ({"is_disabled": True}, 400, {"type": "not_allowed", "message": "The discount code CODE is disabled"}),
    ({"regions": ("EU",)}, 400, {"type": "invalid_data", "message": "The discount is not available in current region"}),
])
async def test_a_code_that_cannot_be_used_is_refused_and_changes_nothing(client, seeded, changes, status, body):
    from models import Discount

    count = changes.pop("usage_count", None)
    made = await discount("CODE", **changes)
    if count is not None:
        await Discount.filter(id=made.id).update(usage_count=count)
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await apply(client, cart, "CODE")
    assert (r.status_code, r.json()) == (status, body)
    assert (await client.get(f"/store/carts/{cart['id']}")).json()["cart"]["discounts"] == []


async def test_unknown_or_repeated_codes_are_not_found(client, seeded):
    await discount("TEN")
    cart = await new_cart(client)
    r = await apply(client, cart, "TEN", "nope")
    assert (r.status_code, r.json()["message"]) == (404, "Discounts with code [TEN, NOPE] was not found")
    assert (await apply(client, cart, "TEN", "ten")).status_code == 404


async def test_a_customer_group_discount_needs_a_customer_of_the_group(client, seeded):
    vip = await CustomerGroup.create(name="VIP")
    await discount("VIP", conditions=[ConditionInput(operator="in", resources={"customer_groups": [vip.id]})])
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await apply(client, cart, "VIP")
    assert (r.status_code, r.json()["message"]) == (400, "Discount VIP is only valid for specific customer")
    jane, headers = await shopper(client)
    r = await client.post(f"/store/carts/{cart['id']}", json={"discounts": [{"code": "VIP"}]}, headers=headers)
    assert (r.status_code, r.json()["message"]) == (400, "Discount VIP is not valid for customer")
    await jane.groups.add(vip)
    r = await client.post(f"/store/carts/{cart['id']}", json={"discounts": [{"code": "VIP"}]}, headers=headers)
    assert r.status_code == 200 and r.json()["cart"]["discount_total"] == 150


# ---------------------------------------------------------------- free shipping and removal


async def test_free_shipping_zeroes_shipping_until_the_code_is_removed(client, seeded):
    await discount("FREESHIP", kind="free_shipping", value=0, allocation=None)
    await discount("TEN")
    cart = await shipped(client, await new_cart(client, "NA", {"variant_cap_black": 1}))
    cart = (await apply(client, cart, "FREESHIP", "TEN")).json()["cart"]
    assert cart["shipping_total"] == 0 and cart["shipping_methods"][0]["price"] == 0
    assert cart["total"] == 1500 - 150
    # Removing the amount code keeps shipping free
    r = await client.delete(f"/store/carts/{cart['id']}/discounts/TEN")
    assert r.json()["cart"]["shipping_total"] == 0 and r.json()["cart"]["items"][0]["adjustments"] == []
    # Removing the free-shipping code (any case) brings the option's price back
    r = await client.delete(f"/store/carts/{cart['id']}/discounts/freeship")
    cart = r.json()["cart"]
    assert cart["discounts"] == [] and cart["shipping_total"] == 1000 and cart["shipping_methods"][0]["price"] == 1000


async def test_a_method_added_under_free_shipping_is_stored_at_zero(client, seeded):
    await discount("FREESHIP", kind="free_shipping", value=0, allocation=None)
    cart = (await apply(client, await new_cart(client, "EU", {"variant_cap_black": 1}), "FREESHIP")).json()["cart"]
    cart = await shipped(client, cart, "EU Flat Rate")
    method = cart["shipping_methods"][0]
    assert (method["price"], method["subtotal"], method["tax_total"], method["total"]) == (0, 0, 0, 0)
    assert cart["shipping_total"] == cart["shipping_tax_total"] == 0 and cart["total"] == 1750
    assert (await ShippingMethod.get(id=method["id"])).price == 0


async def test_replacing_free_shipping_by_nothing_restores_shipping(client, seeded):
    await discount("FREESHIP", kind="free_shipping", value=0, allocation=None)
    cart = await shipped(client, await new_cart(client, "NA", {"variant_cap_black": 1}))
    cart = (await apply(client, cart, "FREESHIP")).json()["cart"]
    cart = (await apply(client, cart)).json()["cart"]
    assert cart["shipping_total"] == 1000


async def test_removing_a_code_the_cart_does_not_have_changes_nothing(client, seeded):
    await discount("TEN")
    cart = (await apply(client, await new_cart(client, "NA", {"variant_cap_black": 1}), "TEN")).json()["cart"]
    r = await client.delete(f"/store/carts/{cart['id']}/discounts/OTHER")
    assert r.status_code == 200 and r.json()["cart"]["discount_total"] == 150
    assert (await client.delete("/store/carts/cart_missing/discounts/TEN")).status_code == 404


async def test_a_code_with_a_space_is_removed_by_its_percent_encoded_path(client, seeded):
    await discount("SUMMER SALE")
    cart = (await apply(client, await new_cart(client, "NA", {"variant_cap_black": 1}), "summer sale")).json()["cart"]
    assert cart["discount_total"] == 150
    r = await client.delete(f"/store/carts/{cart['id']}/discounts/summer%20sale")
    assert r.json()["cart"]["discounts"] == [] and r.json()["cart"]["discount_total"] == 0


# ---------------------------------------------------------------- gift cards


async def gift(client, cart: dict, *codes: str):
    return await client.post(f"/store/carts/{cart['id']}", json={"gift_cards": [{"code": c} for c in codes]})


async def test_a_gift_card_pays_part_of_the_cart(client, seeded):
    card = await gift_card(1000)
    cart = await new_cart(client, "NA", {"variant_cap_black": 2})
    cart = (await gift(client, cart, card.code)).json()["cart"]
    assert [g["code"] for g in cart["gift_cards"]] == [card.code]
    assert (cart["gift_card_total"], cart["gift_card_tax_total"], cart["total"]) == (1000, 0, 2000)


async def test_a_gift_card_never_covers_more_than_the_cart(client, seeded):
    card = await gift_card(50_000)
    cart = (await gift(client, await new_cart(client, "NA", {"variant_cap_black": 1}), card.code)).json()["cart"]
    assert (cart["gift_card_total"], cart["total"]) == (1500, 0)


async def test_a_taxable_gift_card_carries_its_tax_in_the_eu(client, seeded):
    card = await gift_card(1000, "EU")
    assert card.tax_rate == 25
    cart = (await gift(client, await new_cart(client, "EU", {"variant_cap_black": 1}), card.code)).json()["cart"]
    assert (cart["tax_total"], cart["gift_card_total"], cart["gift_card_tax_total"]) == (350, 1000, 250)
    assert cart["total"] == 1400 + 350 - 1000 - 250


@pytest.mark.parametrize("make,status,message", [
    (lambda: gift_card(1000, "EU"), 400, "The gift card cannot be used in the current region"),
    (lambda: gift_card(1000, is_disabled=True), 404, None),
    (lambda: gift_card(1000, ends_at=NOW - timedelta(days=1)), 404, None),
])
async def test_a_gift_card_that_cannot_be_spent_here_is_refused(client, seeded, make, status, message):
    card = await make()
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await gift(client, cart, card.code)
    assert r.status_code == status
    assert r.json()["message"] == (message or f"Gift card with code: {card.code} was not found")


async def test_gift_cards_are_replaced_counted_once_and_removed(client, seeded):
    first, second = await gift_card(100), await gift_card(200)
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    cart = (await gift(client, cart, first.code, first.code.lower(), second.code)).json()["cart"]
    assert len(cart["gift_cards"]) == 2 and cart["gift_card_total"] == 300
    assert (await gift(client, cart, "NOPE-NOPE")).status_code == 404
    cart = (await gift(client, cart)).json()["cart"]
    assert cart["gift_cards"] == [] and cart["gift_card_total"] == 0


async def test_discount_and_gift_card_together(client, seeded):
    await discount("TEN")
    card = await gift_card(1000)
    cart = await new_cart(client, "NA", {"variant_cap_black": 2})
    cart = await update_cart(client, cart, discounts=[{"code": "TEN"}], gift_cards=[{"code": card.code}])
    assert (cart["discount_total"], cart["gift_card_total"], cart["total"]) == (300, 1000, 1700)


"""Store carts: "Update a Cart"."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from models import Address, Cart, Customer, Product, SalesChannel
from tests.cart_factories import discount, gift_card, line, new_cart, region_id, ship, shopper, update_cart


# ---------------------------------------------------------------- update: customer and email


async def test_an_email_binds_the_cart_to_a_guest_customer_reused_by_email(client, seeded):
    first = await update_cart(client, await new_cart(client), email="Guest@Example.com")
    second = await update_cart(client, await new_cart(client), email="guest@example.com")
    guest = await Customer.get(id=first["customer_id"])
    assert (guest.email, guest.has_account) == ("guest@example.com", False)
    assert second["customer_id"] == guest.id and first["email"] == "guest@example.com"


async def test_an_email_of_a_registered_customer_still_gets_a_guest_customer(client, seeded):
    jane, _ = await shopper(client)
    cart = await update_cart(client, await new_cart(client), email=jane.email)
    assert cart["customer_id"] != jane.id
    assert await Customer.filter(email=jane.email).count() == 2


async def test_a_malformed_email_is_refused(client, seeded):
    cart = await new_cart(client)
    r = await client.post(f"/store/carts/{cart['id']}", json={"email": "not-an-email"})
    assert (r.status_code, r.json()["message"]) == (400, "email must be an email")


async def test_only_the_signed_in_customer_can_be_made_the_carts_customer(client, seeded):
    jane, headers = await shopper(client)
    cart = await new_cart(client)
    # Anonymous: naming Jane would show her email to whoever holds the cart id
    r = await client.post(f"/store/carts/{cart['id']}", json={"customer_id": jane.id})
    assert r.status_code == 401 and r.json()["type"] == "unauthorized"
    assert (await Cart.get(id=cart["id"])).customer_id is None
    # Signed in: the session's customer wins over the body's
    r = await client.post(f"/store/carts/{cart['id']}", json={"customer_id": "cus_other"}, headers=headers)
    assert (r.status_code, r.json()["cart"]["customer_id"], r.json()["cart"]["email"]) == (200, jane.id, jane.email)


# ---------------------------------------------------------------- update: addresses


async def test_addresses_given_as_fields_are_created_then_partially_updated(client, seeded):
    cart = await new_cart(client)
    cart = await update_cart(client, cart, shipping_address={"first_name": "Clark", "country_code": "US"},
                             billing_address={"first_name": "Lois", "city": "Metropolis", "country_code": "dk"})
    assert cart["shipping_address"]["first_name"] == "Clark" and cart["shipping_address"]["country_code"] == "us"
    # Billing has no country rule
    assert cart["billing_address"]["country_code"] == "dk"
    # A partial update keeps the fields not sent
    cart = await update_cart(client, cart, shipping_address={"last_name": "Kent"}, billing_address={"city": "Gotham"})
    assert (cart["shipping_address"]["first_name"], cart["shipping_address"]["last_name"]) == ("Clark", "Kent")
    assert cart["shipping_address"]["country_code"] == "us"
    assert (cart["billing_address"]["first_name"], cart["billing_address"]["city"]) == ("Lois", "Gotham")


async def test_a_shipping_country_outside_the_region_is_refused(client, seeded):
    cart = await new_cart(client)
    r = await client.post(f"/store/carts/{cart['id']}", json={"shipping_address": {"country_code": "dk"}})
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": "Shipping country must be in the cart region"}


async def test_a_null_shipping_address_clears_it(client, seeded):
    cart = await new_cart(client, country_code="us")
    cart = await update_cart(client, cart, shipping_address=None)
    assert cart["shipping_address"] is None and cart["shipping_address_id"] is None


async def test_a_saved_address_of_the_carts_customer_is_used_by_id_and_never_edited(client, seeded):
    # Given Jane's saved address and her cart
    jane, headers = await shopper(client)
    saved = await Address.create(customer_id=jane.id, first_name="Jane", city="Boston", country_code="us")
    r = await client.post("/store/carts", json={"region_id": await region_id("NA")}, headers=headers)
    cart = r.json()["cart"]
    # When she ships to it, then changes a field on the cart
    cart = await update_cart(client, cart, shipping_address=saved.id, billing_address=saved.id)
    assert cart["shipping_address_id"] == cart["billing_address_id"] == saved.id
    cart = await update_cart(client, cart, shipping_address={"city": "Salem"})
    # I expect the cart to hold a copy; her address book is unchanged
    assert cart["shipping_address"]["city"] == "Salem" and cart["shipping_address_id"] != saved.id
    assert cart["billing_address_id"] == saved.id
    assert (await Address.get(id=saved.id)).city == "Boston"


async def test_an_address_the_cart_does_not_own_cannot_be_attached_by_id(client, seeded):
    stranger = await Customer.create(email="someone@example.com")
    theirs = await Address.create(customer_id=stranger.id, first_name="Private", country_code="us")
    cart = await new_cart(client)
    r = await client.post(f"/store/carts/{cart['id']}", json={"billing_address": theirs.id})
    assert (r.status_code, r.json()["message"]) == (404, f"Address with id {theirs.id} was not found")


async def test_a_country_code_alone_sets_the_shipping_country(client, seeded):
    cart = await update_cart(client, await new_cart(client), country_code="CA")
    assert cart["shipping_address"]["country_code"] == "ca"


async def test_context_is_merged_shallowly(client, seeded):
    cart = await new_cart(client, context={"a": 1, "b": {"x": 1}})
    cart = await update_cart(client, cart, context={"b": {"y": 2}, "c": 3})
    assert (cart["context"]["a"], cart["context"]["b"], cart["context"]["c"]) == (1, {"y": 2}, 3)


@pytest.mark.parametrize("body,message", [
    ({"discounts": [{}]}, "code should not be empty"),
    ({"gift_cards": "GC"}, "gift_cards must be an array"),
    ({"billing_address": {"planet": "Mars"}}, "property planet should not exist"),
    ({"customer_id": ""}, "customer_id should not be empty"),
])
async def test_a_malformed_update_is_refused(client, seeded, body, message):
    cart = await new_cart(client)
    r = await client.post(f"/store/carts/{cart['id']}", json=body)
    assert r.status_code == 400 and message in r.json()["message"]


async def test_updating_an_unknown_cart_is_not_found(client, seeded):
    r = await client.post("/store/carts/cart_missing", json={"email": "a@b.co"})
    assert r.status_code == 404


# ---------------------------------------------------------------- update: region change


async def test_a_region_change_reprices_lines_and_drops_what_belongs_to_the_old_region(client, seeded):
    # Given a US cart with lines, a shipping method, a US-only discount, an EU one, and a gift card
    await discount("USONLY", regions=("NA",))
    await discount("FREESHIP", kind="free_shipping", value=0, allocation=None)
    card = await gift_card(1000)
    cart = await new_cart(client, "NA", {"variant_cap_black": 1, "variant_mug_white": 2}, country_code="us")
    await ship(client, cart)
    cart = await update_cart(client, cart, discounts=[{"code": "USONLY"}, {"code": "FREESHIP"}],
                             gift_cards=[{"code": card.code}])
    assert cart["discount_total"] == 390 and cart["gift_card_total"] == 1000
    # When it moves to the EU
    cart = await update_cart(client, cart, region_id=await region_id("EU"))
    # I expect EU prices and taxes, no shipping method, no gift card, only the discount valid there
    prices = [(i["variant_id"], i["unit_price"]) for i in cart["items"]]
    assert prices == [("variant_cap_black", 1400), ("variant_mug_white", 1100)]
    assert cart["shipping_methods"] == [] and cart["gift_cards"] == [] and cart["payment_session"] is None
    assert [d["code"] for d in cart["discounts"]] == ["FREESHIP"]
    assert all(i["adjustments"] == [] for i in cart["items"]) and cart["discount_total"] == 0
    assert cart["shipping_address"]["country_code"] is None  # EU has three countries
    assert (cart["subtotal"], cart["tax_total"], cart["total"]) == (3600, 900, 4500)


async def test_a_region_change_refreshes_the_amount_discount_for_the_new_prices(client, seeded):
    await discount("TEN")
    cart = await new_cart(client, "NA", {"variant_cap_black": 2})
    cart = await update_cart(client, cart, discounts=[{"code": "TEN"}])
    assert cart["discount_total"] == 300
    cart = await update_cart(client, cart, region_id=await region_id("EU"))
    assert cart["discount_total"] == 280 and line(cart, "variant_cap_black")["adjustments"][0]["amount"] == 280


async def test_a_region_change_takes_a_country_of_the_new_region_only(client, seeded):
    cart = await new_cart(client, "NA", country_code="us")
    r = await client.post(f"/store/carts/{cart['id']}", json={"region_id": await region_id("EU"), "country_code": "us"})
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed", "message": "Country not available in region"})
    cart = await update_cart(client, cart, region_id=await region_id("EU"), country_code="DK")
    assert cart["shipping_address"]["country_code"] == "dk"


async def test_sending_the_same_region_has_no_side_effects(client, seeded):
    cart = await new_cart(client, "NA", {"variant_cap_black": 1}, country_code="us")
    await ship(client, cart)
    cart = await update_cart(client, cart, region_id=cart["region_id"])
    assert cart["shipping_address"]["country_code"] == "us" and len(cart["shipping_methods"]) == 1


async def test_a_region_change_to_an_unknown_region_changes_nothing(client, seeded):
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await client.post(f"/store/carts/{cart['id']}", json={"region_id": "reg_missing", "email": "a@b.co"})
    assert r.status_code == 404
    assert (await Cart.get(id=cart["id"])).email is None


# ---------------------------------------------------------------- update: sales channel


async def test_a_new_sales_channel_removes_the_lines_it_does_not_sell(client, seeded):
    other = await SalesChannel.create(name="Pop-up")
    await (await Product.get(id="prod_cap")).sales_channels.add(other)
    cart = await new_cart(client, "NA", {"variant_cap_black": 1, "variant_mug_white": 1, "variant_socks_s": 1})
    cart = await update_cart(client, cart, sales_channel_id=other.id)
    assert [i["variant_id"] for i in cart["items"]] == ["variant_cap_black"]
    assert cart["sales_channel"]["name"] == "Pop-up"


async def test_a_completed_cart_belongs_to_its_order_and_cannot_change(client, seeded):
    # Given a completed cart
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    await Cart.filter(id=cart["id"]).update(completed_at=datetime.now(timezone.utc))
    base = f"/store/carts/{cart['id']}"
    # When anything is changed, I expect a refusal and no change
    attempts = [
        client.post(base, json={"email": "a@b.co"}),
        client.post(f"{base}/line-items", json={"variant_id": "variant_mug_white", "quantity": 1}),
        client.post(f"{base}/line-items/{cart['items'][0]['id']}", json={"quantity": 5}),
        client.delete(f"{base}/line-items/{cart['items'][0]['id']}"),
        client.delete(f"{base}/discounts/TEN"),
        client.post(f"{base}/shipping-methods", json={"option_id": "so_any"}),
    ]
    for attempt in attempts:
        r = await attempt
        assert (r.status_code, r.json()["message"]) == (400, "Cannot update a completed cart")
    # Reading still works, even signed in, and does not take the cart over
    _, headers = await shopper(client)
    r = await client.get(base, headers=headers)
    assert r.status_code == 200 and r.json()["cart"]["customer_id"] is None
    assert [(i["variant_id"], i["quantity"]) for i in r.json()["cart"]["items"]] == [("variant_cap_black", 1)]

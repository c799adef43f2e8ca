"""Admin draft orders: creating a draft as staff would take a phone
order, reading and listing drafts, changing them and their lines, and deleting them. Paying a
draft is tests/app/admin/test_draft_order_pay.py."""

from __future__ import annotations

import pytest

from models import Address, Cart, Customer, DraftOrder, LineItem, ProductVariant, ShippingMethod
from tests.cart_factories import (
    add_item, discount, new_cart, option_id, region_id, ship, shipping_option, update_cart,
)
from tests.conftest import count_queries
from tests.draft_order_factories import (
    ADDRESS, EU_ADDRESS, OPEN_ONLY, draft_body, new_draft, pay, unpriced_variant,
)

TOTALS = ("subtotal", "discount_total", "item_tax_total", "shipping_total", "shipping_tax_total", "tax_total",
          "gift_card_total", "total")


async def post(client, headers, path: str = "", body: dict | None = None):
    return await client.post(f"/admin/draft-orders{path}", json=body if body is not None else {}, headers=headers)


# ---------------------------------------------------------------- create


async def test_creating_a_draft_answers_an_open_draft_with_its_cart_lines_shipping_and_totals(
    client, admin_headers, seeded,
):
    # When staff create a NA draft of two caps, shipped flat rate, for a new email
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 2}, email="Phone@Example.com")
    # I expect an open draft whose cart is a draft-order cart of the guest customer
    assert draft["id"].startswith("dorder_") and draft["status"] == "open"
    assert draft["order_id"] is None and draft["completed_at"] is None and draft["order"] is None
    cart = draft["cart"]
    assert cart["id"] == draft["cart_id"] and cart["type"] == "draft_order"
    assert cart["email"] == "phone@example.com"
    customer = await Customer.get(id=cart["customer_id"])
    assert customer.email == "phone@example.com" and not customer.has_account
    assert cart["customer"]["id"] == customer.id
    # with the line at the list price and the shipping method, and the totals of both
    [item] = cart["items"]
    assert (item["variant_id"], item["quantity"], item["unit_price"]) == ("variant_cap_black", 2, 1500)
    assert item["subtotal"] == 3000 and item["total"] == 3000 and item["has_shipping"] is True
    [method] = cart["shipping_methods"]
    assert method["shipping_option_id"] == await option_id("NA Flat Rate") and method["price"] == 1000
    assert (cart["subtotal"], cart["shipping_total"], cart["tax_total"], cart["total"]) == (3000, 1000, 0, 4000)
    assert cart["shipping_address"]["city"] == "Boston"


async def test_drafts_and_orders_share_one_number_sequence(client, admin_headers, seeded):
    first = await new_draft(client, admin_headers)
    second = await new_draft(client, admin_headers)
    assert second["display_id"] == first["display_id"] + 1
    r = await pay(client, admin_headers, second)
    assert r.json()["order"]["display_id"] == second["display_id"] + 1


async def test_an_empty_body_is_refused_naming_each_required_field(client, admin_headers, seeded):
    r = await post(client, admin_headers)
    assert r.status_code == 400
    assert r.json() == {
        "type": "invalid_data",
        "message": "email should not be empty, region_id should not be empty, shipping_methods should not be empty",
    }
    assert await DraftOrder.all().count() == 0


@pytest.mark.parametrize("change, message", [
    ({"email": "not-an-email"}, "email must be an email"),
    ({"items": [{"variant_id": "variant_cap_black", "quantity": 0}]}, "quantity must not be less than 1"),
    ({"items": [{"title": "Engraving", "quantity": 1, "unit_price": -1000}]}, "unit_price must not be less than 0"),
    ({"shipping_methods": [{"option_id": "so_x", "price": 9.5}]}, "price must be an integer number"),
    ({"shipping_address": 12}, "shipping_address must be an address object or an address id"),
    ({"surprise": True}, "property surprise should not exist"),
])
async def test_bad_create_bodies_are_a_400_naming_the_problem(client, admin_headers, seeded, change, message):
    r = await post(client, admin_headers, body={**await draft_body(), **change})
    assert r.status_code == 400, r.text
    assert message in r.json()["message"]
    assert await DraftOrder.all().count() == 0


async def test_custom_items_default_to_custom_item_and_take_neither_shipping_nor_discounts(
    client, admin_headers, seeded,
):
    # Given a 10 % code
    await discount("TENOFF", value=10)
    # When a draft holds a cap and a custom engraving line, with the code
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 1}, discounts=[{"code": "tenoff"}])
    r = await post(client, admin_headers, f"/{draft['id']}/line-items", {"quantity": 2, "unit_price": 700})
    assert r.status_code == 200, r.text
    cart = r.json()["draft_order"]["cart"]
    custom = next(i for i in cart["items"] if i["variant_id"] is None)
    # I expect the custom line titled by default, at its price, needing no shipping, undiscounted
    assert (custom["title"], custom["unit_price"], custom["quantity"]) == ("Custom item", 700, 2)
    assert custom["has_shipping"] is True and custom["allow_discounts"] is False
    assert custom["adjustments"] == [] and custom["discount_total"] == 0
    assert cart["discount_total"] == 150 and cart["subtotal"] == 1500 + 1400
    assert cart["total"] == 1500 + 1400 - 150 + 1000


async def test_a_typed_unit_price_replaces_the_list_price_and_stays_a_line_of_its_own(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 1})
    r = await post(client, admin_headers, f"/{draft['id']}/line-items",
                   {"variant_id": "variant_cap_black", "quantity": 1, "unit_price": 1000, "title": "Cap (damaged)"})
    assert r.status_code == 200, r.text
    items = r.json()["draft_order"]["cart"]["items"]
    assert sorted((i["title"], i["unit_price"], i["quantity"]) for i in items) == [
        ("Cap (damaged)", 1000, 1), ("Medusa Cap", 1500, 1),
    ]
    # A second list-priced cap joins the list-priced line, not the discounted one
    r = await post(client, admin_headers, f"/{draft['id']}/line-items", {"variant_id": "variant_cap_black", "quantity": 2})
    items = r.json()["draft_order"]["cart"]["items"]
    assert sorted((i["unit_price"], i["quantity"]) for i in items) == [(1000, 1), (1500, 3)]


async def test_a_variant_without_a_price_in_the_region_is_refused_unless_staff_type_one(client, admin_headers, seeded):
    variant = await unpriced_variant("eur")
    body = await draft_body(items={variant.id: 1})
    r = await post(client, admin_headers, body=body)
    assert (r.status_code, r.json()["message"]) == (
        400, 'Cannot generate line item for variant "Silver" without a price'
    )
    # An unpublished product can still be sold by staff, at a price they type
    body["items"] = [{"variant_id": variant.id, "quantity": 1, "unit_price": 4200}]
    r = await post(client, admin_headers, body=body)
    assert r.status_code == 200, r.text
    assert r.json()["draft_order"]["cart"]["items"][0]["unit_price"] == 4200


@pytest.mark.parametrize("change, status, message", [
    ({"region_id": "reg_missing"}, 404, "Region with reg_missing was not found"),
    ({"items": [{"variant_id": "variant_missing", "quantity": 1}]}, 404, "Variant with id: variant_missing was not found"),
    ({"shipping_methods": [{"option_id": "so_missing"}]}, 404, "Shipping Option with so_missing was not found"),
    ({"shipping_address": {**ADDRESS, "country_code": "dk"}}, 400, "Shipping country must be in the cart region"),
    ({"discounts": [{"code": "NOPE"}]}, 404, None),
])
async def test_what_a_draft_refers_to_must_exist_and_fit_its_region(
    client, admin_headers, seeded, change, status, message,
):
    r = await post(client, admin_headers, body={**await draft_body(), **change})
    assert r.status_code == status, r.text
    if message:
        assert r.json()["message"] == message
    assert await DraftOrder.all().count() == 0 and await Cart.filter(type="draft_order").count() == 0


async def test_an_option_of_another_region_is_refused(client, admin_headers, seeded):
    r = await post(client, admin_headers, body=await draft_body(shipping="EU Flat Rate"))
    assert r.status_code == 400 and "region" in r.json()["message"]


async def test_a_shipping_price_of_the_methods_own_replaces_the_options(client, admin_headers, seeded):
    body = await draft_body()
    body["shipping_methods"][0]["price"] = 500
    r = await post(client, admin_headers, body=body)
    draft = r.json()["draft_order"]
    r = await client.get(f"/admin/draft-orders/{draft['id']}", headers=admin_headers)
    assert r.json()["draft_order"]["cart"]["shipping_total"] == 500


async def test_back_office_only_options_can_ship_a_draft(client, admin_headers, seeded):
    await shipping_option("Courier (staff only)", amount=2500, admin_only=True)
    draft = await new_draft(client, admin_headers, shipping="Courier (staff only)")
    assert draft["cart"]["shipping_total"] == 2500


async def test_an_unmet_shipping_requirement_is_refused(client, admin_headers, seeded):
    await shipping_option("Free over 100", amount=0, requirements={"min_subtotal": 10000})
    r = await post(client, admin_headers, body=await draft_body(shipping="Free over 100"))
    assert r.status_code == 400
    assert r.json()["message"] == "The Cart does not satisfy the shipping option's requirements"


async def test_a_known_customer_gets_the_draft_under_their_own_email(client, admin_headers, seeded):
    customer = await Customer.create(email="known@example.com", has_account=True, first_name="Kim")
    draft = await new_draft(client, admin_headers, email="typo@example.com", customer_id=customer.id)
    assert draft["cart"]["customer_id"] == customer.id and draft["cart"]["email"] == "known@example.com"


async def test_an_unknown_customer_id_falls_back_to_a_guest_for_the_email(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers, email="new@example.com", customer_id="cus_missing")
    customer = await Customer.get(id=draft["cart"]["customer_id"])
    assert customer.email == "new@example.com" and draft["cart"]["email"] == "new@example.com"


async def test_addresses_are_fields_or_one_of_the_customers_saved_addresses(client, admin_headers, seeded):
    customer = await Customer.create(email="known@example.com", has_account=True)
    saved = await Address.create(customer_id=customer.id, first_name="Kim", address_1="9 Elm St", country_code="us")
    draft = await new_draft(client, admin_headers, customer_id=customer.id, shipping_address=saved.id,
                            billing_address={**ADDRESS, "company": "Acme"})
    cart = draft["cart"]
    assert cart["shipping_address_id"] == saved.id and cart["shipping_address"]["address_1"] == "9 Elm St"
    assert cart["billing_address"]["company"] == "Acme"
    # Someone else's address cannot be attached by id
    stranger = await Address.create(address_1="1 Secret Rd", country_code="us")
    r = await post(client, admin_headers, body=await draft_body(shipping_address=stranger.id))
    assert r.status_code == 404


async def test_discount_codes_are_applied_to_the_lines(client, admin_headers, seeded):
    await discount("TENOFF", value=10)
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 2}, discounts=[{"code": "TENOFF"}])
    cart = draft["cart"]
    assert [d["code"] for d in cart["discounts"]] == ["TENOFF"]
    assert [a["amount"] for a in cart["items"][0]["adjustments"]] == [300]
    assert (cart["discount_total"], cart["total"]) == (300, 3000 - 300 + 1000)


async def test_metadata_goes_to_the_cart_so_the_order_gets_it(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers, metadata={"taken_by": "Sam"}, no_notification_order=True)
    assert draft["cart"]["metadata"] == {"taken_by": "Sam"}
    assert draft["no_notification_order"] is True


# ---------------------------------------------------------------- totals match the storefront


@pytest.mark.parametrize("region", ["NA", "EU"])
async def test_a_drafts_totals_equal_a_storefront_carts_for_the_same_items(client, admin_headers, seeded, region):
    # Given the same lines, shipping and discount in a storefront cart and in a draft
    await discount("TENOFF", value=10)
    items = {"variant_cap_black": 2, "variant_t_shirt_s": 1, "variant_mug_white": 3}
    cart = await new_cart(client, region, items)
    cart = await update_cart(client, cart, email="shop@example.com",
                             shipping_address=EU_ADDRESS if region == "EU" else ADDRESS,
                             discounts=[{"code": "TENOFF"}])
    cart = await ship(client, cart, f"{region} Flat Rate")
    draft = await new_draft(client, admin_headers, region, items, discounts=[{"code": "TENOFF"}])
    r = await client.get(f"/admin/draft-orders/{draft['id']}", headers=admin_headers)
    drafted = r.json()["draft_order"]["cart"]
    # I expect every total to be the same, and each line's too
    assert {k: drafted[k] for k in TOTALS} == {k: cart[k] for k in TOTALS}
    assert cart["total"] > 0 and (region == "NA" or cart["tax_total"] > 0)
    by_variant = {i["variant_id"]: i for i in cart["items"]}
    for item in drafted["items"]:
        mine = by_variant[item["variant_id"]]
        assert (item["subtotal"], item["discount_total"], item["tax_total"], item["total"]) == (
            mine["subtotal"], mine["discount_total"], mine["tax_total"], mine["total"])


# ---------------------------------------------------------------- get and list


async def test_an_unknown_draft_is_a_404_with_medusas_message(client, admin_headers, seeded):
    r = await client.get("/admin/draft-orders/dorder_missing", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Draft order with dorder_missing was not found"}


async def test_list_finds_drafts_by_email_name_or_number_newest_first(client, admin_headers, seeded):
    customer = await Customer.create(email="olivia@test.com", has_account=True, first_name="Olivia")
    first = await new_draft(client, admin_headers, email="oli@test.com")
    second = await new_draft(client, admin_headers, customer_id=customer.id)
    third = await new_draft(client, admin_headers, email="someone@else.com")

    async def ids(query: str) -> list[str]:
        r = await client.get(f"/admin/draft-orders{query}", headers=admin_headers)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["count"] == len(body["draft_orders"])
        return [d["id"] for d in body["draft_orders"]]

    assert await ids("") == [third["id"], second["id"], first["id"]]
    assert await ids("?q=OLI@test") == [first["id"]]
    assert await ids("?q=olivia") == [second["id"]]
    assert await ids(f"?q=%23{third['display_id']}") == [third["id"]]
    assert await ids("?q=heyo@heyo.dk") == []


async def test_list_shows_each_cart_with_its_lines_and_pages_by_50(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 2})
    r = await client.get("/admin/draft-orders", headers=admin_headers)
    body = r.json()
    assert (body["count"], body["offset"], body["limit"]) == (1, 0, 50)
    [listed] = body["draft_orders"]
    assert listed["status"] == "open" and listed["order"] is None
    assert listed["cart"]["email"] == "phone@example.com"
    assert [(i["variant_id"], i["quantity"], i["adjustments"]) for i in listed["cart"]["items"]] == [
        ("variant_cap_black", 2, []),
    ]
    r = await client.get("/admin/draft-orders?expand=&fields=id,display_id", headers=admin_headers)
    assert r.json()["draft_orders"] == [{"id": draft["id"], "display_id": draft["display_id"],
                                         "created_at": listed["created_at"]}]


async def test_list_filters_by_status(client, admin_headers, seeded):
    paid = await new_draft(client, admin_headers)
    assert (await pay(client, admin_headers, paid)).status_code == 200
    open_ = await new_draft(client, admin_headers)
    r = await client.get("/admin/draft-orders?status[]=completed", headers=admin_headers)
    [listed] = r.json()["draft_orders"]
    assert listed["id"] == paid["id"] and listed["order"]["id"] == listed["order_id"]
    r = await client.get("/admin/draft-orders?status=open", headers=admin_headers)
    assert [d["id"] for d in r.json()["draft_orders"]] == [open_["id"]]


@pytest.mark.parametrize("query, message", [
    ("status[]=closed", "status must be one of the following values: open, completed"),
    ("limit=abc", "limit must be a number conforming to the specified constraints"),
    ("expand=customer", "Requested relations [customer] are not valid"),
    ("order=email", "Order field email is not valid"),
    ("colour=red", "property colour should not exist"),
])
async def test_list_refuses_what_it_does_not_know_with_a_400(client, admin_headers, seeded, query, message):
    r = await client.get(f"/admin/draft-orders?{query}", headers=admin_headers)
    assert r.status_code == 400 and message in r.json()["message"]


async def test_listing_costs_the_same_number_of_queries_for_one_draft_or_many(client, admin_headers, seeded):
    await new_draft(client, admin_headers, items={"variant_cap_black": 1, "variant_mug_white": 1})

    async def queries() -> int:
        async with count_queries() as seen:
            r = await client.get("/admin/draft-orders?limit=3", headers=admin_headers)
            assert r.status_code == 200
        return len(seen)

    one = await queries()
    for _ in range(4):
        await new_draft(client, admin_headers, items={"variant_cap_black": 1, "variant_mug_white": 1})
    assert await queries() <= one + 1  # the count query joins once pages fill up


# ---------------------------------------------------------------- update


async def test_updating_the_email_addresses_and_discounts_changes_the_drafts_cart(client, admin_headers, seeded):
    await discount("TENOFF", value=10)
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 2})
    r = await post(client, admin_headers, f"/{draft['id']}", {
        "email": "right@example.com", "billing_address": {**ADDRESS, "first_name": "Bill"},
        "shipping_address": {"address_1": "2 Side St"}, "discounts": [{"code": "TENOFF"}],
        "no_notification_order": True,
    })
    assert r.status_code == 200, r.text
    updated = r.json()["draft_order"]
    cart = updated["cart"]
    assert cart["email"] == "right@example.com" and cart["customer"]["email"] == "right@example.com"
    assert cart["billing_address"]["first_name"] == "Bill"
    assert (cart["shipping_address"]["address_1"], cart["shipping_address"]["city"]) == ("2 Side St", "Boston")
    assert cart["total"] == 3000 - 300 + 1000 and updated["no_notification_order"] is True
    # and an empty list of codes removes the discount
    r = await post(client, admin_headers, f"/{draft['id']}", {"discounts": []})
    assert r.json()["draft_order"]["cart"]["total"] == 4000


async def test_a_customer_id_makes_the_draft_that_customers_and_an_unknown_one_is_a_404(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers)
    customer = await Customer.create(email="known@example.com", has_account=True)
    r = await post(client, admin_headers, f"/{draft['id']}", {"customer_id": customer.id})
    assert r.json()["draft_order"]["cart"]["customer_id"] == customer.id
    assert r.json()["draft_order"]["cart"]["email"] == "known@example.com"
    r = await post(client, admin_headers, f"/{draft['id']}", {"customer_id": "cus_missing"})
    assert (r.status_code, r.json()["message"]) == (404, "Customer with id: cus_missing was not found")


async def test_a_region_change_reprices_list_lines_keeps_typed_prices_and_clears_shipping(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 1})
    await post(client, admin_headers, f"/{draft['id']}/line-items", {"title": "Gift wrap", "quantity": 1, "unit_price": 300})
    r = await post(client, admin_headers, f"/{draft['id']}",
                   {"region_id": await region_id("EU"), "shipping_address": EU_ADDRESS})
    assert r.status_code == 200, r.text
    cart = r.json()["draft_order"]["cart"]
    assert cart["region_id"] == await region_id("EU") and cart["shipping_address"]["country_code"] == "dk"
    assert sorted((i["title"], i["unit_price"]) for i in cart["items"]) == [("Gift wrap", 300), ("Medusa Cap", 1400)]
    assert cart["shipping_methods"] == [] and cart["shipping_total"] == 0
    # and staff ship it again with an option of the new region (Medusa v1 has no way to)
    r = await post(client, admin_headers, f"/{draft['id']}",
                   {"shipping_methods": [{"option_id": await option_id("EU Flat Rate"), "price": 800}]})
    assert r.status_code == 200, r.text
    cart = r.json()["draft_order"]["cart"]
    assert cart["shipping_total"] == 800 and all(i["has_shipping"] for i in cart["items"])


async def test_a_region_where_a_line_has_no_price_is_refused_and_nothing_changes(client, admin_headers, seeded):
    variant = await unpriced_variant("usd")
    draft = await new_draft(client, admin_headers, items={variant.id: 1})
    r = await post(client, admin_headers, f"/{draft['id']}", {"region_id": await region_id("EU")})
    assert r.status_code == 400 and "Engraved pen (Silver)" in r.json()["message"]
    assert (await Cart.get(id=draft["cart_id"])).region_id == await region_id("NA")
    assert await ShippingMethod.filter(cart_id=draft["cart_id"]).count() == 1


async def test_bad_update_bodies_are_a_400(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers)
    for body, message in (({"email": "nope"}, "email must be an email"),
                          ({"region_id": None}, "region_id must be a string"),
                          ({"status": "completed"}, "property status should not exist")):
        r = await post(client, admin_headers, f"/{draft['id']}", body)
        assert r.status_code == 400 and r.json()["message"] == message


async def test_an_unknown_draft_cannot_be_changed(client, admin_headers, seeded):
    for path, body in (("", {"email": "a@b.co"}), ("/line-items", {"quantity": 1}),
                       ("/line-items/item_x", {"quantity": 2})):
        r = await post(client, admin_headers, f"/dorder_missing{path}", body)
        assert r.status_code == 404, (path, r.text)
    r = await client.delete("/admin/draft-orders/dorder_missing/line-items/item_x", headers=admin_headers)
    assert r.status_code == 404


async def test_a_paid_draft_can_no_longer_change(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers)
    assert (await pay(client, admin_headers, draft)).status_code == 200
    item_id = draft["cart"]["items"][0]["id"]
    for path, body in (("", {"email": "late@example.com"}), ("/line-items", {"quantity": 1}),
                       (f"/line-items/{item_id}", {"quantity": 5})):
        r = await post(client, admin_headers, f"/{draft['id']}{path}", body)
        assert (r.status_code, r.json()["message"]) == (400, OPEN_ONLY), path
    r = await client.delete(f"/admin/draft-orders/{draft['id']}/line-items/{item_id}", headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, OPEN_ONLY)
    assert (await LineItem.get(id=item_id)).quantity == 1


# ---------------------------------------------------------------- line items


async def test_line_items_can_be_retitled_repriced_resized_and_removed(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 1, "variant_mug_white": 1})
    cap = next(i for i in draft["cart"]["items"] if i["variant_id"] == "variant_cap_black")
    mug = next(i for i in draft["cart"]["items"] if i["variant_id"] == "variant_mug_white")
    r = await post(client, admin_headers, f"/{draft['id']}/line-items/{cap['id']}",
                   {"title": "Cap, signed", "unit_price": 2500, "quantity": 2, "metadata": {"note": "gift"}})
    assert r.status_code == 200, r.text
    line = next(i for i in r.json()["draft_order"]["cart"]["items"] if i["id"] == cap["id"])
    assert (line["title"], line["unit_price"], line["quantity"], line["subtotal"]) == ("Cap, signed", 2500, 2, 5000)
    assert line["metadata"] == {"note": "gift"} and line["variant_id"] == "variant_cap_black"
    assert r.json()["draft_order"]["updated_at"] > draft["updated_at"]  # a change to the draft's lines
    # A typed price is kept when the quantity changes again
    r = await post(client, admin_headers, f"/{draft['id']}/line-items/{cap['id']}", {"quantity": 3})
    assert next(i for i in r.json()["draft_order"]["cart"]["items"] if i["id"] == cap["id"])["unit_price"] == 2500
    # Quantity 0 removes a line
    r = await post(client, admin_headers, f"/{draft['id']}/line-items/{mug['id']}", {"quantity": 0})
    assert [i["id"] for i in r.json()["draft_order"]["cart"]["items"]] == [cap["id"]]


async def test_changing_a_line_not_in_the_draft_is_a_400_and_removing_one_is_a_no_op(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers)
    other = await new_draft(client, admin_headers)
    foreign = other["cart"]["items"][0]["id"]
    r = await post(client, admin_headers, f"/{draft['id']}/line-items/{foreign}", {"quantity": 3})
    assert (r.status_code, r.json()["message"]) == (400, "Could not find the line item")
    r = await client.delete(f"/admin/draft-orders/{draft['id']}/line-items/{foreign}", headers=admin_headers)
    assert r.status_code == 200 and len(r.json()["draft_order"]["cart"]["items"]) == 1
    assert await LineItem.exists(id=foreign)


async def test_line_changes_keep_the_shipping_method_staff_chose(client, admin_headers, seeded):
    # Medusa v1 drops every shipping method on any line change; a phone order keeps its shipping
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 1, "variant_mug_white": 1})
    r = await post(client, admin_headers, f"/{draft['id']}/line-items", {"variant_id": "variant_socks_s", "quantity": 1})
    assert r.json()["draft_order"]["cart"]["shipping_total"] == 1000
    mug = next(i for i in draft["cart"]["items"] if i["variant_id"] == "variant_mug_white")
    r = await client.delete(f"/admin/draft-orders/{draft['id']}/line-items/{mug['id']}", headers=admin_headers)
    cart = r.json()["draft_order"]["cart"]
    assert cart["shipping_total"] == 1000 and all(i["has_shipping"] for i in cart["items"])


async def test_a_line_change_drops_a_shipping_method_whose_requirement_no_longer_holds(client, admin_headers, seeded):
    await shipping_option("Tracked over 20", amount=300, requirements={"min_subtotal": 2000})
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 2}, shipping="Tracked over 20")
    item = draft["cart"]["items"][0]
    r = await post(client, admin_headers, f"/{draft['id']}/line-items/{item['id']}", {"quantity": 1})
    cart = r.json()["draft_order"]["cart"]
    assert cart["shipping_methods"] == [] and cart["items"][0]["has_shipping"] is False


async def test_a_line_beyond_the_stock_is_refused(client, admin_headers, seeded):
    await ProductVariant.filter(id="variant_cap_black").update(inventory_quantity=2)
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 2})
    r = await post(client, admin_headers, f"/{draft['id']}/line-items", {"variant_id": "variant_cap_black", "quantity": 1})
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed", "code": "insufficient_inventory",
                        "message": "Variant with id: variant_cap_black does not have the required inventory"}


async def test_a_new_line_needs_a_whole_positive_quantity(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers)
    r = await post(client, admin_headers, f"/{draft['id']}/line-items", {})
    assert (r.status_code, r.json()["message"]) == (400, "quantity should not be empty")
    r = await post(client, admin_headers, f"/{draft['id']}/line-items", {"quantity": 1.5})
    assert (r.status_code, r.json()["message"]) == (400, "quantity must be an integer number")


# ---------------------------------------------------------------- delete


async def test_deleting_a_draft_answers_medusas_shape_and_retires_its_cart(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers)
    r = await client.delete(f"/admin/draft-orders/{draft['id']}", headers=admin_headers)
    assert (r.status_code, r.json()) == (200, {"id": draft["id"], "object": "draft-order", "deleted": True})
    assert (await client.get(f"/admin/draft-orders/{draft['id']}", headers=admin_headers)).status_code == 404
    assert (await Cart.get(id=draft["cart_id"])).deleted_at is not None
    # and the storefront can no longer check that cart out
    assert (await client.get(f"/store/carts/{draft['cart_id']}")).status_code == 404
    r = await client.delete(f"/admin/draft-orders/{draft['id']}", headers=admin_headers)
    assert (r.status_code, r.json()["deleted"]) == (200, True)


async def test_a_paid_draft_cannot_be_deleted(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers)
    order = (await pay(client, admin_headers, draft)).json()["order"]
    r = await client.delete(f"/admin/draft-orders/{draft['id']}", headers=admin_headers)
    assert r.status_code == 400 and order["id"] in r.json()["message"]
    assert await DraftOrder.exists(id=draft["id"])


async def test_the_storefront_and_the_back_office_give_the_same_cart_totals_after_line_changes(
    client, admin_headers, seeded,
):
    # Given a draft and a storefront cart that both gain a line after shipping was chosen
    cart = await new_cart(client, "EU", {"variant_cap_black": 1})
    cart = await update_cart(client, cart, email="shop@example.com", shipping_address=EU_ADDRESS)
    cart = await ship(client, cart, "EU Flat Rate")
    cart = await add_item(client, cart, "variant_hoodie_m", 1)
    cart = await ship(client, cart, "EU Flat Rate")  # the storefront drops shipping on line changes
    draft = await new_draft(client, admin_headers, "EU", {"variant_cap_black": 1})
    r = await post(client, admin_headers, f"/{draft['id']}/line-items", {"variant_id": "variant_hoodie_m", "quantity": 1})
    drafted = r.json()["draft_order"]["cart"]
    assert {k: drafted[k] for k in TOTALS} == {k: cart[k] for k in TOTALS}

"""Registering the payment of a draft order: the system provider
captures the draft's total, one order is placed, paid, and the draft is completed; a draft is
never paid twice, not even by calls racing each other."""

from __future__ import annotations

import asyncio

from models import Cart, DraftOrder, LineItem, Order, Payment, ProductVariant
from tests.cart_factories import discount
from tests.draft_order_factories import new_draft, pay


async def test_paying_a_draft_places_a_captured_order_and_completes_the_draft(client, admin_headers, seeded):
    # Given an EU draft of two caps and a custom line, shipped flat rate, with a 10 % code
    await discount("TENOFF", value=10)
    draft = await new_draft(client, admin_headers, "EU", {"variant_cap_black": 2}, discounts=[{"code": "TENOFF"}],
                            no_notification_order=True, metadata={"taken_by": "Sam"})
    r = await client.post(f"/admin/draft-orders/{draft['id']}/line-items",
                          json={"title": "Engraving", "quantity": 1, "unit_price": 500}, headers=admin_headers)
    cart = r.json()["draft_order"]["cart"]
    # When staff register its payment
    r = await pay(client, admin_headers, draft)
    # I expect the order, captured, linked to the draft, for exactly the draft's totals
    assert r.status_code == 200, r.text
    order = r.json()["order"]
    assert order["id"].startswith("order_") and order["object"] == "order"
    assert (order["payment_status"], order["status"], order["fulfillment_status"]) == (
        "captured", "pending", "not_fulfilled")
    assert order["draft_order_id"] == draft["id"] and order["cart_id"] == draft["cart_id"]
    assert order["email"] == "phone@example.com" and order["no_notification"] is True
    assert order["metadata"] == {"taken_by": "Sam"} and order["currency_code"] == "eur"
    for key in ("subtotal", "discount_total", "shipping_total", "tax_total", "total"):
        assert order[key] == cart[key], key
    assert cart["tax_total"] > 0 and order["paid_total"] == cart["total"]
    assert sorted(i["title"] for i in order["items"]) == ["Engraving", "Medusa Cap"]
    # paid once by the system provider
    [payment] = order["payments"]
    assert (payment["provider_id"], payment["amount"], payment["currency_code"]) == ("system", cart["total"], "eur")
    assert payment["captured_at"] is not None and payment["order_id"] == order["id"]
    # the draft completed, its cart handed over, the stock taken
    row = await DraftOrder.get(id=draft["id"])
    assert (row.status, row.order_id) == ("completed", order["id"]) and row.completed_at is not None
    assert (await Cart.get(id=draft["cart_id"])).completed_at is not None
    assert await LineItem.filter(order_id=order["id"]).count() == 2
    assert (await ProductVariant.get(id="variant_cap_black")).inventory_quantity == 100000 - 2
    # and reading the draft shows its order
    r = await client.get(f"/admin/draft-orders/{draft['id']}", headers=admin_headers)
    shown = r.json()["draft_order"]
    assert shown["status"] == "completed" and shown["order"]["id"] == order["id"]
    assert shown["completed_at"] is not None and shown["cart"]["total"] == order["total"]


async def test_the_order_is_the_one_the_admin_order_routes_show(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers)
    paid = (await pay(client, admin_headers, draft)).json()["order"]
    r = await client.get(f"/admin/orders/{paid['id']}", headers=admin_headers)
    assert r.status_code == 200 and r.json()["order"] == paid


async def test_a_second_payment_is_refused_and_places_no_second_order(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers)
    first = (await pay(client, admin_headers, draft)).json()["order"]
    r = await pay(client, admin_headers, draft)
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed",
                        "message": f"Draft order {draft['id']} is already paid: it became order {first['id']}"}
    assert await Order.filter(draft_order_id=draft["id"]).count() == 1
    assert await Payment.filter(cart_id=draft["cart_id"]).count() == 1


async def test_ten_concurrent_payments_of_one_draft_place_exactly_one_order(client, admin_headers, seeded):
    # Given an open draft
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 3})
    # When ten requests register its payment at once
    answers = await asyncio.gather(*(pay(client, admin_headers, draft) for _ in range(10)))
    # I expect one 200 with the order, nine clear 400s, one order, one payment, stock taken once
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [200] + [400] * 9, [r.text for r in answers if r.status_code not in (200, 400)]
    [won] = [r.json()["order"] for r in answers if r.status_code == 200]
    for r in answers:
        if r.status_code == 400:
            assert r.json()["type"] == "not_allowed" and "already paid" in r.json()["message"]
    orders = await Order.filter(draft_order_id=draft["id"])
    assert [o.id for o in orders] == [won["id"]]
    assert await Payment.filter(cart_id=draft["cart_id"]).count() == 1
    assert (await ProductVariant.get(id="variant_cap_black")).inventory_quantity == 100000 - 3
    assert (await DraftOrder.get(id=draft["id"])).order_id == won["id"]


async def test_paying_an_unknown_draft_is_a_404(client, admin_headers, seeded):
    r = await pay(client, admin_headers, "dorder_missing")
    assert (r.status_code, r.json()["message"]) == (404, "Draft order with dorder_missing was not found")


async def test_a_draft_without_lines_cannot_be_paid_and_stays_open(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers, shipping=None)
    item = draft["cart"]["items"][0]
    await client.delete(f"/admin/draft-orders/{draft['id']}/line-items/{item['id']}", headers=admin_headers)
    r = await pay(client, admin_headers, draft)
    assert (r.status_code, r.json()["message"]) == (400, "Cannot create order from empty cart")
    assert (await DraftOrder.get(id=draft["id"])).status == "open"
    assert await Order.all().count() == 0 and await Payment.all().count() == 0


async def test_a_draft_with_nothing_to_pay_is_placed_without_a_payment(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers, items={}, shipping=None)
    r = await client.post(f"/admin/draft-orders/{draft['id']}/line-items",
                          json={"title": "Replacement part", "quantity": 1}, headers=admin_headers)
    assert r.json()["draft_order"]["cart"]["total"] == 0
    r = await pay(client, admin_headers, draft)
    assert r.status_code == 200, r.text
    order = r.json()["order"]
    assert (order["total"], order["payment_status"], order["payments"]) == (0, "captured", [])


async def test_a_stock_shortfall_at_payment_is_refused_and_nothing_is_written(client, admin_headers, seeded):
    draft = await new_draft(client, admin_headers, items={"variant_cap_black": 2})
    await ProductVariant.filter(id="variant_cap_black").update(inventory_quantity=1)
    r = await pay(client, admin_headers, draft)
    assert r.status_code == 400 and r.json()["code"] == "insufficient_inventory"
    assert (await DraftOrder.get(id=draft["id"])).status == "open"
    assert await Order.all().count() == 0 and await Payment.all().count() == 0
    assert (await ProductVariant.get(id="variant_cap_black")).inventory_quantity == 1


async def test_the_medusa_js_draft_steps_get_what_they_assert(client, admin_headers, seeded):
    # The body and checks of the official medusa-js client's storefront flow
    from tests.cart_factories import option_id, region_id

    address = {"first_name": "Grace", "last_name": "Hopper", "address_1": "2 Main St", "city": "Toronto",
               "country_code": "ca", "postal_code": "M5V 2T6", "phone": "5550101"}
    r = await client.post("/admin/draft-orders", headers=admin_headers, json={
        "email": "draft-js@test.com", "region_id": await region_id("NA"),
        "items": [{"variant_id": "variant_t_shirt_s", "quantity": 1}],
        "shipping_methods": [{"option_id": await option_id("NA Flat Rate")}], "shipping_address": address,
    })
    assert r.status_code == 200 and r.json()["draft_order"]["status"] == "open"
    r = await pay(client, admin_headers, r.json()["draft_order"])
    order = r.json()["order"]
    assert order["id"].startswith("order_") and order["payment_status"] == "captured"

"""Store order edits: a shopper reads an edit,
completes it (paying what it adds first) or declines it; every other transition is refused."""

from __future__ import annotations

import asyncio

from models import LineItem, Payment, PaymentCollection
from tests.cart_factories import shopper
from tests.order_edit_factories import TOTALS, add, new_edit, pay, place, request, requested_edit, set_quantity

STORE_KEYS = {
    "id", "order_id", "requested_by", "requested_at", "confirmed_at", "declined_by", "declined_reason", "declined_at",
    "canceled_at", "payment_collection_id", "created_at", "updated_at", "status", "changes", "items",
    "payment_collection", *TOTALS,
}


def refused(r, status: int, kind: str, message: str | None = None) -> None:
    assert (r.status_code, r.json()["type"]) == (status, kind), r.text
    if message is not None:
        assert r.json()["message"] == message


async def complete(client, edit: dict, headers: dict | None = None):
    return await client.post(f"/store/order-edits/{edit['id']}/complete", headers=headers or {})


async def decline(client, edit: dict, body: dict | None = None, headers: dict | None = None):
    return await client.post(f"/store/order-edits/{edit['id']}/decline", json=body or {}, headers=headers or {})


async def admin_order(client, headers, order: dict) -> dict:
    return (await client.get(f"/admin/orders/{order['id']}", headers=headers)).json()["order"]


# ---------------------------------------------------------------- retrieve


async def test_a_shopper_reads_an_edit_without_the_back_office_columns(client, admin_headers, seeded):
    # Given a requested edit that adds a cap to an EU order of two t-shirts
    order, edit = await requested_edit(client, admin_headers)
    await client.post(f"/admin/order-edits/{edit['id']}", json={"internal_note": "upsell"}, headers=admin_headers)
    # When the shopper opens it, signed out
    r = await client.get(f"/store/order-edits/{edit['id']}")
    # I expect the edit with its changes, lines, collection and totals, and nothing of the back office
    assert r.status_code == 200, r.text
    body = r.json()["order_edit"]
    assert set(body) == STORE_KEYS
    assert (body["status"], body["order_id"]) == ("requested", order["id"])
    assert {k: body[k] for k in ("subtotal", "tax_total", "total", "difference_due")} == {
        "subtotal": 5000, "tax_total": 1500, "total": 7500, "difference_due": 1750,
    }
    assert [c["type"] for c in body["changes"]] == ["item_add"]
    assert body["changes"][0]["line_item"]["variant"]["id"] == "variant_cap_black"
    assert body["payment_collection"]["amount"] == 1750 and "created_by" not in body["payment_collection"]


async def test_asking_for_a_back_office_field_is_refused(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    r = await client.get(f"/store/order-edits/{edit['id']}?fields=internal_note")
    refused(r, 400, "invalid_data", "Requested fields [internal_note] are not valid")
    r = await client.get(f"/store/order-edits/{edit['id']}?fields=id,declined_reason&expand=items")
    assert set(r.json()["order_edit"]) == {"id", "declined_reason", "status", "items", *TOTALS}


async def test_an_unknown_edit_is_not_found(client, seeded):
    for method, path in (("GET", ""), ("POST", "/complete"), ("POST", "/decline")):
        r = await client.request(method, f"/store/order-edits/oe_missing{path}")
        refused(r, 404, "not_found", "Order edit with id oe_missing was not found")


# ---------------------------------------------------------------- decline


async def test_a_shopper_declines_a_requested_edit_once(client, admin_headers, seeded):
    customer, headers = await shopper(client)
    order, edit = await requested_edit(client, admin_headers)
    # When the signed-in shopper declines it with a reason
    r = await decline(client, edit, {"declined_reason": "wrong size"}, headers)
    body = r.json()["order_edit"]
    assert (body["status"], body["declined_reason"], body["declined_by"]) == ("declined", "wrong size", customer.id)
    # Declining again keeps the first answer
    again = (await decline(client, edit, {"declined_reason": "wrong color"})).json()["order_edit"]
    assert (again["declined_reason"], again["declined_at"]) == ("wrong size", body["declined_at"])
    # and the order keeps its lines; the edit can no longer be completed or confirmed
    assert await LineItem.filter(order_id=order["id"]).count() == 1
    refused(await complete(client, edit), 400, "not_allowed", "Cannot complete an order edit with status declined")
    r = await client.post(f"/admin/order-edits/{edit['id']}/confirm", headers=admin_headers)
    refused(r, 400, "not_allowed", "Cannot confirm an order edit with status declined")
    r = await client.post(f"/admin/order-edits/{edit['id']}/cancel", headers=admin_headers)
    refused(r, 400, "not_allowed", "Cannot cancel order edit with status declined")
    r = await client.post(f"/admin/order-edits/{edit['id']}/request", headers=admin_headers)
    refused(r, 400, "not_allowed", "Cannot request confirmation on an order edit with status declined")


async def test_only_a_requested_edit_can_be_declined(client, admin_headers, seeded):
    edit = await add(client, admin_headers, await new_edit(client, admin_headers, await place(client)),
                     "variant_cap_black")
    refused(await decline(client, edit), 400, "not_allowed", "Cannot decline an order edit with status created.")
    await client.post(f"/admin/order-edits/{edit['id']}/confirm", headers=admin_headers)
    refused(await decline(client, edit), 400, "not_allowed", "Cannot decline an order edit with status confirmed.")
    r = await client.post(f"/admin/order-edits/{edit['id']}/request", headers=admin_headers)
    refused(r, 400, "not_allowed", "Cannot request confirmation on an order edit with status confirmed")
    canceled = await new_edit(client, admin_headers, await place(client))
    await client.post(f"/admin/order-edits/{canceled['id']}/cancel", headers=admin_headers)
    refused(await decline(client, canceled), 400, "not_allowed", "Cannot decline an order edit with status canceled.")
    refused(await decline(client, edit, {"declined_reason": 3}), 400, "invalid_data",
            "declined_reason must be a string")


async def test_declining_releases_the_payment_the_shopper_made(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    await pay(client, edit["payment_collection_id"])
    body = (await decline(client, edit)).json()["order_edit"]
    assert body["payment_collection"]["status"] == "canceled"
    [payment] = await Payment.filter(payment_collection_id=edit["payment_collection_id"])
    assert payment.canceled_at is not None and payment.order_id is None


# ---------------------------------------------------------------- complete


async def test_only_a_requested_edit_can_be_completed(client, admin_headers, seeded):
    edit = await add(client, admin_headers, await new_edit(client, admin_headers, await place(client)),
                     "variant_cap_black")
    refused(await complete(client, edit), 400, "not_allowed", "Cannot complete an order edit with status created")
    await client.post(f"/admin/order-edits/{edit['id']}/cancel", headers=admin_headers)
    refused(await complete(client, edit), 400, "not_allowed", "Cannot complete an order edit with status canceled")


async def test_an_amount_due_must_be_authorized_before_completing(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    message = "Unable to complete an order edit if the payment is not authorized"
    refused(await complete(client, edit), 400, "not_allowed", message)
    # A session started but not authorized is not enough either
    await client.post(f"/store/payment-collections/{edit['payment_collection_id']}/sessions",
                      json={"provider_id": "manual"})
    refused(await complete(client, edit), 400, "not_allowed", message)
    assert await LineItem.filter(order_id=order["id"]).count() == 1


async def test_completing_a_paid_edit_gives_the_order_its_lines_and_payment(client, admin_headers, seeded):
    customer, headers = await shopper(client)
    # Given a requested edit adding a cap (17.50 due) whose amount the shopper authorized
    order, edit = await requested_edit(client, admin_headers)
    await pay(client, edit["payment_collection_id"])
    # When the shopper completes it
    r = await complete(client, edit, headers)
    # I expect it confirmed by them, nothing due any more
    body = r.json()["order_edit"]
    assert (body["status"], body["difference_due"]) == ("confirmed", 0) and body["confirmed_at"]
    assert body["payment_collection"]["status"] == "authorized"
    # and the order to hold the edit's lines and the payment of the difference
    placed = await admin_order(client, admin_headers, order)
    assert sorted(i["id"] for i in placed["items"]) == sorted(i["id"] for i in edit["items"])
    assert (placed["total"], placed["paid_total"]) == (7500, 7500)
    assert sorted(p["amount"] for p in placed["payments"]) == [1750, 5750]
    # Completing again answers the same confirmed edit
    again = (await complete(client, edit)).json()["order_edit"]
    assert (again["status"], again["confirmed_at"]) == ("confirmed", body["confirmed_at"])
    assert (await admin_order(client, admin_headers, order))["paid_total"] == 7500


async def test_completing_an_edit_that_lowers_the_total_needs_no_payment(client, admin_headers, seeded):
    # Given a requested edit taking one of two t-shirts off an EU order (22.50 to give back)
    order = await place(client, "EU", {"variant_t_shirt_s": 2})
    edit = await set_quantity(client, admin_headers, await new_edit(client, admin_headers, order), "variant_t_shirt_s", 1)
    edit = await request(client, admin_headers, edit)
    # When the shopper completes it
    body = (await complete(client, edit)).json()["order_edit"]
    # I expect the order at one t-shirt; the refund is for the shop to make (not recorded here)
    assert body["status"] == "confirmed" and "confirmed_by" not in body
    placed = await admin_order(client, admin_headers, order)
    assert [(i["quantity"], i["total"]) for i in placed["items"]] == [(1, 2250)]
    assert (placed["total"], placed["paid_total"], placed["refunded_total"]) == (3500, 5750, 0)
    assert await PaymentCollection.all().count() == 0


async def test_two_completions_at_once_swap_the_lines_once(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    await pay(client, edit["payment_collection_id"])
    answers = await asyncio.gather(complete(client, edit), complete(client, edit))
    assert [r.status_code for r in answers] == [200, 200]
    assert {r.json()["order_edit"]["confirmed_at"] for r in answers} == {answers[0].json()["order_edit"]["confirmed_at"]}
    assert sorted(await LineItem.filter(order_id=order["id"]).values_list("id", flat=True)) == sorted(
        i["id"] for i in edit["items"]
    )
    assert await Payment.filter(order_id=order["id"]).count() == 2

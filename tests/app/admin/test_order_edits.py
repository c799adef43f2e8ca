"""Admin order edits: create, the line
changes and their totals to the unit, request, cancel, confirm, delete, list and get.

Orders are placed through the API in the EU region (eur, 25 % tax, shipping 10.00): a t-shirt S
costs 18.00 and a black cap 14.00 there."""

from __future__ import annotations

import asyncio

from models import Job, LineItem, Notification, Order, OrderEdit, OrderItemChange, Payment, PaymentCollection, ProductVariant
from tests.account_factories import hear_events
from tests.cart_factories import discount
from tests.conftest import count_queries
from tests.order_edit_factories import (
    TOTALS, add, line_of, new_edit, pay, place, remove, request, requested_edit, set_quantity,
)

ADMIN_KEYS = {
    "id", "order_id", "internal_note", "created_by", "requested_by", "requested_at", "confirmed_by", "confirmed_at",
    "declined_by", "declined_reason", "declined_at", "canceled_by", "canceled_at", "payment_collection_id",
    "created_at", "updated_at", "status", "changes", "items", "payment_collection", *TOTALS,
}
# An EU order of two t-shirts: 36.00 + 9.00 tax, shipping 10.00 + 2.50 tax.
TWO_SHIRTS = {
    "subtotal": 3600, "discount_total": 0, "shipping_total": 1000, "gift_card_total": 0, "gift_card_tax_total": 0,
    "tax_total": 1150, "total": 5750, "difference_due": 0,
}


def totals(edit: dict) -> dict:
    return {k: edit[k] for k in TOTALS}


async def call(client, headers, method: str, path: str, body: dict | None = None):
    return await client.request(method, f"/admin/order-edits{path}", json=body, headers=headers)


def refused(r, status: int, kind: str, message: str | None = None) -> None:
    assert (r.status_code, r.json()["type"]) == (status, kind), r.text
    if message is not None:
        assert r.json()["message"] == message


async def stock(variant_id: str) -> int:
    return (await ProductVariant.get(id=variant_id)).inventory_quantity


# ---------------------------------------------------------------- authentication


async def test_order_edit_routes_need_a_signed_in_user(client, seeded):
    for method, path in (("GET", ""), ("POST", ""), ("GET", "/oe_1"), ("POST", "/oe_1/request")):
        r = await client.request(method, f"/admin/order-edits{path}", json={})
        assert (r.status_code, r.json()["type"]) == (401, "unauthorized"), path


# ---------------------------------------------------------------- create


async def test_a_new_edit_copies_every_line_of_the_order_with_its_tax_lines(client, admin_headers, admin, seeded):
    # Given a placed EU order of two t-shirts
    order = await place(client, "EU", {"variant_t_shirt_s": 2})
    # When the back office starts an edit of it
    edit = await new_edit(client, admin_headers, order, internal_note="customer called")
    # I expect a `created` edit by the signed-in user, holding a copy of the order's line
    assert set(edit) == ADMIN_KEYS
    assert (edit["status"], edit["order_id"], edit["created_by"]) == ("created", order["id"], admin.id)
    assert edit["internal_note"] == "customer called" and edit["changes"] == []
    assert edit["payment_collection"] is None and edit["payment_collection_id"] is None
    [copy], [source] = edit["items"], order["items"]
    assert copy["id"] != source["id"] and copy["original_item_id"] == source["id"]
    assert (copy["order_edit_id"], copy["order_id"], copy["cart_id"]) == (edit["id"], None, None)
    assert (copy["unit_price"], copy["quantity"], copy["variant"]["id"]) == (1800, 2, "variant_t_shirt_s")
    assert [t["rate"] for t in copy["tax_lines"]] == [25.0]
    assert (copy["subtotal"], copy["tax_total"], copy["total"]) == (3600, 900, 4500)
    # and the order's own totals, so nothing is due yet
    assert totals(edit) == TWO_SHIRTS
    # and the order keeps its own line
    assert await LineItem.filter(order_id=order["id"]).values_list("id", flat=True) == [source["id"]]


async def test_an_order_has_one_active_edit_at_a_time(client, admin_headers, seeded):
    order = await place(client)
    first = await new_edit(client, admin_headers, order)
    r = await call(client, admin_headers, "POST", "", {"order_id": order["id"]})
    refused(r, 400, "invalid_data", f"An active order edit already exists for the order {order['id']}")
    # Once the first is canceled, another may start
    assert (await call(client, admin_headers, "POST", f"/{first['id']}/cancel")).status_code == 200
    assert (await new_edit(client, admin_headers, order))["status"] == "created"


async def test_two_edits_started_at_once_make_one(client, admin_headers, seeded):
    order = await place(client)
    answers = await asyncio.gather(*(
        call(client, admin_headers, "POST", "", {"order_id": order["id"]}) for _ in range(2)
    ))
    assert sorted(r.status_code for r in answers) == [200, 400]
    assert await OrderEdit.filter(order_id=order["id"]).count() == 1


async def test_an_edit_needs_an_existing_open_order(client, admin_headers, seeded):
    refused(await call(client, admin_headers, "POST", "", {}), 400, "invalid_data", "order_id should not be empty")
    refused(await call(client, admin_headers, "POST", "", {"order_id": "order_missing"}), 404, "not_found",
            "Order with id: order_missing was not found")
    order = await place(client)
    await Order.filter(id=order["id"]).update(status="canceled")
    refused(await call(client, admin_headers, "POST", "", {"order_id": order["id"]}), 400, "not_allowed",
            "Cannot edit a canceled order")


# ---------------------------------------------------------------- line changes and their totals


async def test_adding_a_line_prices_and_taxes_it_for_the_order_region(client, admin_headers, seeded):
    # Given an edit of an EU order of two t-shirts (total 57.50)
    order = await place(client, "EU", {"variant_t_shirt_s": 2})
    edit = await new_edit(client, admin_headers, order)
    # When a black cap is added
    edit = await add(client, admin_headers, edit, "variant_cap_black", 1)
    # I expect it at the EU price of 14.00 with 25 % tax, recorded as an `item_add`
    cap = line_of(edit, "variant_cap_black")
    assert (cap["unit_price"], cap["original_item_id"], cap["order_id"]) == (1400, None, None)
    assert [t["rate"] for t in cap["tax_lines"]] == [25.0]
    assert (cap["subtotal"], cap["tax_total"], cap["total"]) == (1400, 350, 1750)
    [change] = edit["changes"]
    assert (change["type"], change["line_item_id"], change["original_line_item_id"]) == ("item_add", cap["id"], None)
    assert change["line_item"]["variant"]["id"] == "variant_cap_black" and change["original_line_item"] is None
    # and the totals of the edited order: 17.50 more to pay
    assert totals(edit) == {**TWO_SHIRTS, "subtotal": 5000, "tax_total": 1500, "total": 7500, "difference_due": 1750}


async def test_reducing_a_quantity_leaves_money_to_give_back(client, admin_headers, seeded):
    order = await place(client, "EU", {"variant_t_shirt_s": 2})
    edit = await new_edit(client, admin_headers, order)
    # When the t-shirts go from two to one
    edit = await set_quantity(client, admin_headers, edit, "variant_t_shirt_s", 1)
    # I expect one `item_update` showing the order's line and the edit's
    [change] = edit["changes"]
    assert change["type"] == "item_update"
    assert (change["original_line_item"]["quantity"], change["line_item"]["quantity"]) == (2, 1)
    assert change["original_line_item_id"] == order["items"][0]["id"]
    # and the totals of one t-shirt: 18.00 + 4.50 tax + shipping 12.50 = 35.00, 22.50 to give back
    assert totals(edit) == {**TWO_SHIRTS, "subtotal": 1800, "tax_total": 700, "total": 3500, "difference_due": -2250}


async def test_removing_a_line_takes_it_out_of_the_totals(client, admin_headers, seeded):
    # Given an EU order of two t-shirts and a cap (total 75.00)
    order = await place(client, "EU", {"variant_t_shirt_s": 2, "variant_cap_black": 1})
    edit = await new_edit(client, admin_headers, order)
    assert edit["total"] == 7500
    # When the cap is removed
    edit = await remove(client, admin_headers, edit, "variant_cap_black")
    # I expect an `item_remove` naming the order's cap line, and the cap's 17.50 to give back
    cap = next(i for i in order["items"] if i["variant_id"] == "variant_cap_black")
    [change] = edit["changes"]
    assert (change["type"], change["original_line_item_id"], change["line_item_id"]) == ("item_remove", cap["id"], None)
    assert change["original_line_item"]["variant"]["id"] == "variant_cap_black" and change["line_item"] is None
    assert [i["variant_id"] for i in edit["items"]] == ["variant_t_shirt_s"]
    assert totals(edit) == {**TWO_SHIRTS, "difference_due": -1750}


async def test_the_order_discount_is_spread_again_over_the_edited_lines(client, admin_headers, seeded):
    # Given an EU order of two t-shirts with 10 % off: 36.00 - 3.60, tax 8.10 + 2.50, total 53.00
    await discount("TENOFF", value=10)
    order = await place(client, "EU", {"variant_t_shirt_s": 2}, discounts=[{"code": "TENOFF"}])
    assert order["total"] == 5300
    edit = await new_edit(client, admin_headers, order)
    # When a cap is added
    edit = await add(client, admin_headers, edit, "variant_cap_black", 1)
    # I expect the cap to get its 10 % too: 1.40, taxed on the rest
    assert [a["amount"] for a in line_of(edit, "variant_cap_black")["adjustments"]] == [140]
    assert [a["amount"] for a in line_of(edit, "variant_t_shirt_s")["adjustments"]] == [360]
    assert totals(edit) == {
        "subtotal": 5000, "discount_total": 500, "shipping_total": 1000, "gift_card_total": 0,
        "gift_card_tax_total": 0, "tax_total": 1375, "total": 6875, "difference_due": 1575,
    }


async def test_setting_a_quantity_back_to_the_orders_drops_its_change(client, admin_headers, seeded):
    order = await place(client)
    edit = await set_quantity(client, admin_headers, await new_edit(client, admin_headers, order), "variant_t_shirt_s", 3)
    assert [c["type"] for c in edit["changes"]] == ["item_update"]
    edit = await set_quantity(client, admin_headers, edit, "variant_t_shirt_s", 2)
    assert edit["changes"] == [] and edit["difference_due"] == 0


async def test_removing_a_line_the_edit_added_undoes_the_addition(client, admin_headers, seeded):
    order = await place(client)
    edit = await add(client, admin_headers, await new_edit(client, admin_headers, order), "variant_cap_black")
    edit = await remove(client, admin_headers, edit, "variant_cap_black")
    assert edit["changes"] == [] and [i["variant_id"] for i in edit["items"]] == ["variant_t_shirt_s"]
    assert edit["difference_due"] == 0


async def test_removing_an_updated_line_replaces_its_change_by_a_removal(client, admin_headers, seeded):
    order = await place(client, "EU", {"variant_t_shirt_s": 2, "variant_cap_black": 1})
    edit = await set_quantity(client, admin_headers, await new_edit(client, admin_headers, order), "variant_cap_black", 3)
    edit = await remove(client, admin_headers, edit, "variant_cap_black")
    assert [c["type"] for c in edit["changes"]] == ["item_remove"] and edit["difference_due"] == -1750


async def test_deleting_changes_brings_each_line_back_as_the_order_has_it(client, admin_headers, seeded):
    # Given an edit that adds a cap, sets the t-shirts to 1 and removes the mug
    order = await place(client, "EU", {"variant_t_shirt_s": 2, "variant_mug_white": 1})
    edit = await new_edit(client, admin_headers, order)
    edit = await add(client, admin_headers, edit, "variant_cap_black")
    edit = await set_quantity(client, admin_headers, edit, "variant_t_shirt_s", 1)
    edit = await remove(client, admin_headers, edit, "variant_mug_white")
    assert sorted(c["type"] for c in edit["changes"]) == ["item_add", "item_remove", "item_update"]
    # When each change is deleted
    for change in edit["changes"]:
        r = await call(client, admin_headers, "DELETE", f"/{edit['id']}/changes/{change['id']}")
        assert r.json() == {"id": change["id"], "object": "item_change", "deleted": True}
    # I expect the edit to hold the order's lines again, nothing due
    edit = (await call(client, admin_headers, "GET", f"/{edit['id']}")).json()["order_edit"]
    assert edit["changes"] == [] and edit["difference_due"] == 0
    assert sorted((i["variant_id"], i["quantity"]) for i in edit["items"]) == [
        ("variant_mug_white", 1), ("variant_t_shirt_s", 2),
    ]
    assert {i["original_item_id"] for i in edit["items"]} == {i["id"] for i in order["items"]}


async def test_line_changes_refuse_what_cannot_be_done(client, admin_headers, seeded):
    order = await place(client)
    edit = await new_edit(client, admin_headers, order)
    items = f"/{edit['id']}/items"
    refused(await call(client, admin_headers, "POST", items, {"variant_id": "variant_nope", "quantity": 1}),
            400, "invalid_data", "Unable to generate the line items, some variant has not been found: variant_nope")
    refused(await call(client, admin_headers, "POST", items, {"variant_id": "variant_cap_black", "quantity": 0}),
            400, "invalid_data", "quantity must not be less than 1")
    refused(await call(client, admin_headers, "POST", items, {}), 400, "invalid_data")
    refused(await call(client, admin_headers, "POST", f"{items}/item_nope", {"quantity": 2}), 404, "not_found",
            "Line item with item_nope was not found")
    refused(await call(client, admin_headers, "POST", f"{items}/{order['items'][0]['id']}", {"quantity": 2}),
            400, "invalid_data")  # the order's own line, not the edit's copy
    refused(await call(client, admin_headers, "POST", f"{items}/{edit['items'][0]['id']}", {"quantity": 1.5}),
            400, "invalid_data", "quantity must be an integer number")
    refused(await call(client, admin_headers, "DELETE", f"/{edit['id']}/changes/oic_nope"), 404, "not_found",
            "Order edit item change oic_nope was not found")
    refused(await call(client, admin_headers, "POST", "/oe_nope/items", {"variant_id": "variant_cap_black",
                                                                        "quantity": 1}),
            404, "not_found", "Order edit with id oe_nope was not found")
    # Removing a line that is not there changes nothing
    r = await call(client, admin_headers, "DELETE", f"{items}/item_nope")
    assert r.status_code == 200 and r.json()["order_edit"]["changes"] == []


async def test_a_line_of_another_edit_is_refused(client, admin_headers, seeded):
    mine = await new_edit(client, admin_headers, await place(client))
    other = await new_edit(client, admin_headers, other_order := await place(client))
    item_id = other["items"][0]["id"]
    refused(await call(client, admin_headers, "POST", f"/{mine['id']}/items/{item_id}", {"quantity": 2}), 400,
            "invalid_data", f"Invalid line item id {item_id} it does not belong to the same order edit {mine['order_id']}.")
    refused(await call(client, admin_headers, "DELETE", f"/{mine['id']}/items/{item_id}"), 400, "invalid_data")
    other = await add(client, admin_headers, other, "variant_cap_black")
    change_id = other["changes"][0]["id"]
    refused(await call(client, admin_headers, "DELETE", f"/{mine['id']}/changes/{change_id}"), 400, "invalid_data",
            f"The item change you are trying to delete doesn't belong to the OrderEdit with id: {mine['id']}.")
    assert other_order["id"] != mine["order_id"]


async def test_a_line_cannot_ask_for_more_than_the_stock(client, admin_headers, seeded):
    order = await place(client, "EU", {"variant_cap_black": 1})
    await ProductVariant.filter(id="variant_cap_black").update(inventory_quantity=2)
    edit = await new_edit(client, admin_headers, order)
    # Two more caps fit (the order already holds its one), three do not
    assert (await set_quantity(client, admin_headers, edit, "variant_cap_black", 3))["items"][0]["quantity"] == 3
    r = await call(client, admin_headers, "POST", f"/{edit['id']}/items/{edit['items'][0]['id']}", {"quantity": 4})
    refused(r, 400, "not_allowed", "Variant with id: variant_cap_black does not have the required inventory")
    assert r.json()["code"] == "insufficient_inventory"


# ---------------------------------------------------------------- request


async def test_a_request_needs_changes(client, admin_headers, seeded):
    edit = await new_edit(client, admin_headers, await place(client))
    refused(await call(client, admin_headers, "POST", f"/{edit['id']}/request"), 400, "invalid_data",
            "Cannot request a confirmation on an edit with no changes")


async def test_a_request_makes_a_collection_of_the_amount_due_and_asks_the_shopper(client, admin_headers, admin, seeded):
    # Given an edit that adds a cap to an EU order (17.50 due)
    order = await place(client, "EU", {"variant_t_shirt_s": 2}, email="jane@example.com")
    edit = await add(client, admin_headers, await new_edit(client, admin_headers, order), "variant_cap_black")
    # When the back office asks the shopper to confirm
    edit = await request(client, admin_headers, edit, payment_collection_description="One more cap")
    # I expect it requested, with a collection of the amount due in the order's currency
    assert (edit["status"], edit["requested_by"]) == ("requested", admin.id) and edit["requested_at"]
    collection = edit["payment_collection"]
    assert collection["id"] == edit["payment_collection_id"] and collection["id"].startswith("paycol_")
    assert (collection["amount"], collection["currency_code"], collection["status"]) == (1750, "eur", "not_paid")
    assert (collection["type"], collection["description"], collection["created_by"]) == (
        "order_edit", "One more cap", admin.id,
    )
    # and a message to the order's email, sent by a job once committed
    await hear_events()  # the worker dispatches the request's event: the notifications write the message
    [note] = await Notification.filter(event_name="order-edit.requested")
    assert (note.to, note.resource_type, note.resource_id) == ("jane@example.com", "order-edit", edit["id"])
    assert (note.data["order_id"], note.data["difference_due"]) == (order["id"], 1750)
    assert await Job.filter(actor_name="send_notification", args=[note.id]).exists()
    # Asking again changes nothing: one collection, one message
    again = await request(client, admin_headers, edit)
    assert (again["requested_at"], again["payment_collection_id"]) == (edit["requested_at"], collection["id"])
    await hear_events()
    assert await PaymentCollection.all().count() == 1 and await Notification.all().count() == 1


async def test_a_request_that_lowers_the_total_makes_no_collection(client, admin_headers, seeded):
    order = await place(client, "EU", {"variant_t_shirt_s": 2})
    edit = await set_quantity(client, admin_headers, await new_edit(client, admin_headers, order), "variant_t_shirt_s", 1)
    edit = await request(client, admin_headers, edit)
    assert (edit["status"], edit["payment_collection"], edit["difference_due"]) == ("requested", None, -2250)


async def test_an_order_marked_no_notification_gets_no_message(client, admin_headers, seeded):
    order = await place(client)
    await Order.filter(id=order["id"]).update(no_notification=True)
    await requested_edit_of(client, admin_headers, order)
    await hear_events()
    assert await Notification.all().count() == 0


async def requested_edit_of(client, headers, order: dict) -> dict:
    edit = await add(client, headers, await new_edit(client, headers, order), "variant_cap_black")
    return await request(client, headers, edit)


async def test_an_edit_that_removes_every_line_is_refused(client, admin_headers, seeded):
    order = await place(client, "EU", {"variant_t_shirt_s": 2})
    edit = await remove(client, admin_headers, await new_edit(client, admin_headers, order), "variant_t_shirt_s")
    assert edit["items"] == []
    message = "An order edit cannot remove every item of the order; cancel the order instead"
    refused(await call(client, admin_headers, "POST", f"/{edit['id']}/request"), 400, "not_allowed", message)
    refused(await call(client, admin_headers, "POST", f"/{edit['id']}/confirm"), 400, "not_allowed", message)
    assert await LineItem.filter(order_id=order["id"]).count() == 1


async def test_lines_stay_as_the_shopper_was_shown_once_requested(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    item_id = edit["items"][0]["id"]
    refused(await call(client, admin_headers, "POST", f"/{edit['id']}/items",
                       {"variant_id": "variant_mug_white", "quantity": 1}),
            400, "not_allowed", "Can not add an item to the edit with status requested")
    message = f"Can not update an item on the order edit {edit['id']} with the status requested"
    refused(await call(client, admin_headers, "POST", f"/{edit['id']}/items/{item_id}", {"quantity": 5}),
            400, "not_allowed", message)
    refused(await call(client, admin_headers, "DELETE", f"/{edit['id']}/items/{item_id}"), 400, "not_allowed", message)
    refused(await call(client, admin_headers, "DELETE", f"/{edit['id']}/changes/{edit['changes'][0]['id']}"),
            400, "not_allowed", "Cannot delete and item change from a requested order edit")


# ---------------------------------------------------------------- cancel


async def test_cancel_ends_an_edit_once(client, admin_headers, admin, seeded):
    edit = await new_edit(client, admin_headers, await place(client))
    r = await call(client, admin_headers, "POST", f"/{edit['id']}/cancel")
    canceled = r.json()["order_edit"]
    assert (canceled["status"], canceled["canceled_by"]) == ("canceled", admin.id) and canceled["canceled_at"]
    again = (await call(client, admin_headers, "POST", f"/{edit['id']}/cancel")).json()["order_edit"]
    assert again["canceled_at"] == canceled["canceled_at"]
    refused(await call(client, admin_headers, "POST", f"/{edit['id']}/request"), 400, "not_allowed",
            "Cannot request confirmation on an order edit with status canceled")
    refused(await call(client, admin_headers, "POST", f"/{edit['id']}/confirm"), 400, "not_allowed",
            "Cannot confirm an order edit with status canceled")


async def test_canceling_a_paid_request_releases_the_payment(client, admin_headers, seeded):
    # Given a requested edit whose 17.50 the shopper has authorized
    order, edit = await requested_edit(client, admin_headers)
    await pay(client, edit["payment_collection_id"])
    # When the back office cancels the edit
    edit = (await call(client, admin_headers, "POST", f"/{edit['id']}/cancel")).json()["order_edit"]
    # I expect the collection canceled, its payment canceled and never the order's
    assert edit["payment_collection"]["status"] == "canceled"
    [payment] = await Payment.filter(payment_collection_id=edit["payment_collection_id"])
    assert payment.canceled_at is not None and payment.order_id is None


async def test_a_confirmed_edit_cannot_be_canceled(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    await call(client, admin_headers, "POST", f"/{edit['id']}/confirm")
    refused(await call(client, admin_headers, "POST", f"/{edit['id']}/cancel"), 400, "not_allowed",
            "Cannot cancel order edit with status confirmed")


# ---------------------------------------------------------------- confirm


async def test_confirming_makes_the_edit_lines_the_order_lines(client, admin_headers, admin, seeded):
    # Given an EU order of two t-shirts and an edit that sets them to one and adds two caps
    order = await place(client, "EU", {"variant_t_shirt_s": 2})
    shirts, caps = await stock("variant_t_shirt_s"), await stock("variant_cap_black")
    edit = await set_quantity(client, admin_headers, await new_edit(client, admin_headers, order), "variant_t_shirt_s", 1)
    edit = await add(client, admin_headers, edit, "variant_cap_black", 2)
    # When the back office confirms it (no request needed)
    r = await call(client, admin_headers, "POST", f"/{edit['id']}/confirm")
    confirmed = r.json()["order_edit"]
    assert (confirmed["status"], confirmed["confirmed_by"]) == ("confirmed", admin.id)
    assert confirmed["difference_due"] == 0
    # I expect the order to hold exactly the edit's lines, with their totals
    placed = (await client.get(f"/admin/orders/{order['id']}", headers=admin_headers)).json()["order"]
    assert sorted(i["id"] for i in placed["items"]) == sorted(i["id"] for i in edit["items"])
    assert sorted((i["variant_id"], i["quantity"]) for i in placed["items"]) == [
        ("variant_cap_black", 2), ("variant_t_shirt_s", 1),
    ]
    assert (placed["subtotal"], placed["tax_total"], placed["total"]) == (4600, 1400, 7000)
    assert placed["paid_total"] == 5750  # the order's payment; the back office settles the rest itself
    # and the stock to follow: one t-shirt back, two caps taken
    assert (await stock("variant_t_shirt_s"), await stock("variant_cap_black")) == (shirts + 1, caps - 2)
    # Confirming again changes nothing
    again = (await call(client, admin_headers, "POST", f"/{edit['id']}/confirm")).json()["order_edit"]
    assert again["confirmed_at"] == confirmed["confirmed_at"]
    assert await stock("variant_cap_black") == caps - 2


async def test_confirming_is_refused_when_the_stock_is_gone_meanwhile(client, admin_headers, seeded):
    order = await place(client, "EU", {"variant_t_shirt_s": 1})
    edit = await add(client, admin_headers, await new_edit(client, admin_headers, order), "variant_cap_black", 2)
    await ProductVariant.filter(id="variant_cap_black").update(inventory_quantity=1)
    r = await call(client, admin_headers, "POST", f"/{edit['id']}/confirm")
    refused(r, 400, "not_allowed")
    assert r.json()["code"] == "insufficient_inventory"
    assert await LineItem.filter(order_id=order["id"]).values_list("id", flat=True) == [order["items"][0]["id"]]
    assert (await OrderEdit.get(id=edit["id"])).confirmed_at is None


async def test_a_second_edit_builds_on_the_first(client, admin_headers, seeded):
    order = await place(client, "EU", {"variant_t_shirt_s": 2})
    first = await add(client, admin_headers, await new_edit(client, admin_headers, order), "variant_cap_black")
    await call(client, admin_headers, "POST", f"/{first['id']}/confirm")
    second = await new_edit(client, admin_headers, order)
    assert sorted(i["original_item_id"] for i in second["items"]) == sorted(i["id"] for i in first["items"])
    second = await remove(client, admin_headers, second, "variant_cap_black")
    assert (second["total"], second["difference_due"]) == (5750, -1750)


async def test_confirming_without_the_payment_cancels_the_collection(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    edit = (await call(client, admin_headers, "POST", f"/{edit['id']}/confirm")).json()["order_edit"]
    assert edit["status"] == "confirmed" and edit["payment_collection"]["status"] == "canceled"
    r = await client.post(f"/store/payment-collections/{edit['payment_collection_id']}/sessions",
                          json={"provider_id": "manual"})
    refused(r, 400, "not_allowed")


# ---------------------------------------------------------------- delete, update, get, list


async def test_deleting_a_created_edit_removes_it_with_its_lines(client, admin_headers, seeded):
    edit = await add(client, admin_headers, await new_edit(client, admin_headers, await place(client)), "variant_cap_black")
    r = await call(client, admin_headers, "DELETE", f"/{edit['id']}")
    assert r.json() == {"id": edit["id"], "object": "order_edit", "deleted": True}
    assert not await OrderEdit.filter(id=edit["id"]).exists()
    assert not await LineItem.filter(order_edit_id=edit["id"]).exists()
    assert not await OrderItemChange.filter(order_edit_id=edit["id"]).exists()
    assert (await call(client, admin_headers, "DELETE", f"/{edit['id']}")).status_code == 200
    refused(await call(client, admin_headers, "GET", f"/{edit['id']}"), 404, "not_found",
            f"Order edit with id {edit['id']} was not found")


async def test_only_a_created_edit_can_be_deleted(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    refused(await call(client, admin_headers, "DELETE", f"/{edit['id']}"), 400, "not_allowed",
            "Cannot delete order edit with status requested")


async def test_the_internal_note_can_change_in_any_status(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    r = await call(client, admin_headers, "POST", f"/{edit['id']}", {"internal_note": "agreed by phone"})
    assert r.json()["order_edit"]["internal_note"] == "agreed by phone"
    refused(await call(client, admin_headers, "POST", f"/{edit['id']}", {"note": "x"}), 400, "invalid_data",
            "property note should not exist")


async def test_get_narrows_to_the_fields_and_relations_asked(client, admin_headers, seeded):
    edit = await new_edit(client, admin_headers, await place(client))
    r = await call(client, admin_headers, "GET", f"/{edit['id']}?fields=id,internal_note&expand=order")
    body = r.json()["order_edit"]
    assert set(body) == {"id", "internal_note", "status", "order", *TOTALS}
    assert body["order"]["id"] == edit["order_id"] and body["order"]["total"] == 5750
    refused(await call(client, admin_headers, "GET", f"/{edit['id']}?expand=customer"), 400, "invalid_data")


async def test_the_list_pages_filters_and_reads_in_a_fixed_number_of_queries(client, admin_headers, seeded):
    first, second = await place(client), await place(client)
    a = await new_edit(client, admin_headers, first, internal_note="test internal note")
    await call(client, admin_headers, "POST", f"/{a['id']}/cancel")
    b = await add(client, admin_headers, await new_edit(client, admin_headers, first), "variant_cap_black")
    c = await new_edit(client, admin_headers, second)
    r = await call(client, admin_headers, "GET", "")
    body = r.json()
    assert (body["count"], body["limit"], body["offset"]) == (3, 20, 0)
    assert [e["id"] for e in body["order_edits"]] == [c["id"], b["id"], a["id"]]
    assert [e["status"] for e in body["order_edits"]] == ["created", "created", "canceled"]
    assert body["order_edits"][1]["difference_due"] == 1750
    ids = lambda r: [e["id"] for e in r.json()["order_edits"]]  # noqa: E731
    assert ids(await call(client, admin_headers, "GET", f"?order_id={first['id']}")) == [b["id"], a["id"]]
    assert ids(await call(client, admin_headers, "GET", "?q=INTERNAL")) == [a["id"]]
    assert ids(await call(client, admin_headers, "GET", "?limit=1&offset=1")) == [b["id"]]
    # The statements do not grow with the number of edits
    async with count_queries() as few:
        await call(client, admin_headers, "GET", "?limit=2")
    async with count_queries() as many:
        await call(client, admin_headers, "GET", "?limit=3")
    assert len(many) == len(few)


async def test_requesting_confirmation_sends_the_shopper_a_link_to_the_edit(client, admin_headers, seeded):
    from models import Notification
    from services.notifications.delivery import deliver

    # Given an edit that adds a cap to an EU order, sent to the shopper
    _, edit = await requested_edit(client, admin_headers)
    await hear_events()  # the worker dispatches the request's event: the notifications write the message
    note = await Notification.get(resource_id=edit["id"])
    # When the worker delivers the message
    outcome = await deliver(note.id, max_attempts=3)
    # I expect it sent, naming the order and linking to the edit, with nothing to mask
    note = await Notification.get(id=note.id)
    assert outcome["sent"] == note.id and note.status == "sent"
    assert note.event_name == "order-edit.requested" and note.to == "jane@example.com"
    assert f"/order-edits/{edit['id']}" in note.body and "[token]" not in note.body
    assert note.subject.startswith("Changes to your order #")


async def test_a_message_for_an_edit_declined_meanwhile_is_not_sent(client, admin_headers, seeded):
    from models import Notification
    from services.notifications.delivery import deliver

    _, edit = await requested_edit(client, admin_headers)
    assert (await client.post(f"/store/order-edits/{edit['id']}/decline", json={})).status_code == 200
    await hear_events()  # the worker dispatches the request's event: the notifications write the message
    note = await Notification.get(resource_id=edit["id"])
    outcome = await deliver(note.id, max_attempts=3)
    assert "dropped" in outcome
    assert (await Notification.get(id=note.id)).status == "failed"

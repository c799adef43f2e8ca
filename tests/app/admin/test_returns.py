"""Returns over HTTP: asked for on the order, received
(stock back once, refund, statuses), canceled, listed."""

from __future__ import annotations

import asyncio

import pytest

from models import LineItem, Payment, ProductVariant, Refund, Return, ReturnItem, ShippingOption, ShippingProfile
from tests.app.admin.test_order_operations import placed, post
from tests.conftest import requires_postgres

TWO = {"variant_t_shirt_s": 2, "variant_cap_black": 1}  # 2 × 2000 and 1500 usd, NA: no tax


async def shipped_order(client, admin_headers) -> dict:
    """An order of TWO, captured, fulfilled and shipped through the API."""
    order = await placed(client, items=TWO)
    assert (await post(client, admin_headers, order.id, "/capture")).status_code == 200
    lines = await LineItem.filter(order_id=order.id)
    r = await post(client, admin_headers, order.id, "/fulfillment",
                   json={"items": [{"item_id": i.id, "quantity": i.quantity} for i in lines]})
    f = r.json()["order"]["fulfillments"][0]
    r = await post(client, admin_headers, order.id, "/shipment", json={"fulfillment_id": f["id"]})
    assert r.status_code == 200, r.text
    return r.json()["order"]


def line(order: dict, variant_id: str) -> str:
    return next(i["id"] for i in order["items"] if i["variant_id"] == variant_id)


async def return_option(price: int = 500) -> ShippingOption:
    profile = await ShippingProfile.get(type="default")
    na = await ShippingOption.get(name="NA Flat Rate")
    return await ShippingOption.create(
        name="NA Returns", region_id=na.region_id, profile_id=profile.id, provider_id="manual", price_type="flat_rate",
        amount=price, is_return=True, data={"id": "manual-fulfillment-return"},
    )


async def ask(client, admin_headers, order: dict, status: int = 200, **body):
    r = await post(client, admin_headers, order["id"], "/return", json=body)
    assert r.status_code == status, r.text
    return r.json()


async def stock(variant_id: str) -> int:
    return (await ProductVariant.get(id=variant_id)).inventory_quantity


async def test_a_return_is_asked_for_received_restocked_and_refunded(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    option = await return_option(500)
    shirt = line(order, "variant_t_shirt_s")
    before = await stock("variant_t_shirt_s")
    # Asked for: one shirt back, shipped back for 500
    o = (await ask(client, admin_headers, order, items=[{"item_id": shirt, "quantity": 1, "note": "Too big"}],
                   return_shipping={"option_id": option.id}))["order"]
    [ret] = o["returns"]
    assert (ret["status"], ret["refund_amount"], ret["shipping_method"]["price"]) == ("requested", 1500, 500)
    assert [(i["item_id"], i["quantity"], i["requested_quantity"], i["note"]) for i in ret["items"]] == [
        (shirt, 1, 1, "Too big")]
    assert o["fulfillment_status"] == "shipped" and await stock("variant_t_shirt_s") == before
    # Received
    r = await client.post(f"/admin/returns/{ret['id']}/receive", headers=admin_headers,
                          json={"items": [{"item_id": shirt, "quantity": 1}]})
    assert r.status_code == 200, r.text
    got = r.json()["return"]
    assert got["status"] == "received" and got["received_at"] and got["items"][0]["received_quantity"] == 1
    assert got["order"]["id"] == order["id"]
    o = (await client.get(f"/admin/orders/{order['id']}", headers=admin_headers)).json()["order"]
    assert o["fulfillment_status"] == "partially_returned" and o["payment_status"] == "partially_refunded"
    assert [(r["amount"], r["reason"]) for r in o["refunds"]] == [(1500, "return")] and o["refunded_total"] == 1500
    assert next(i for i in o["items"] if i["id"] == shirt)["returned_quantity"] == 1
    assert await stock("variant_t_shirt_s") == before + 1
    # Received again: refused, nothing moves twice
    r = await client.post(f"/admin/returns/{ret['id']}/receive", headers=admin_headers,
                          json={"items": [{"item_id": shirt, "quantity": 1}]})
    assert (r.status_code, r.json()["message"]) == (400, f"Return with id {ret['id']} has already been received")
    assert await stock("variant_t_shirt_s") == before + 1 and await Refund.filter(order_id=order["id"]).count() == 1
    # ... and it cannot be canceled any more
    r = await client.post(f"/admin/returns/{ret['id']}/cancel", headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, "Can't cancel a return which has been returned")


async def test_everything_back_is_returned_and_a_given_refund_replaces_the_computed_one(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    items = [{"item_id": i["id"], "quantity": i["quantity"]} for i in order["items"]]
    o = (await ask(client, admin_headers, order, items=items, refund=1000, receive_now=True))["order"]
    assert o["returns"][0]["status"] == "received" and o["returns"][0]["refund_amount"] == 1000
    assert o["fulfillment_status"] == "returned" and o["refunded_total"] == 1000
    # Nothing is left to return
    r = await post(client, admin_headers, order["id"], "/return", json={"items": items[:1]})
    assert (r.status_code, r.json()["message"]) == (400, "Cannot return more items than have been purchased")


async def test_units_asked_for_by_a_live_return_cannot_be_asked_for_again_until_it_is_canceled(
    client, admin_headers, seeded,
):
    order = await shipped_order(client, admin_headers)
    cap = [{"item_id": line(order, "variant_cap_black"), "quantity": 1}]
    ret = (await ask(client, admin_headers, order, items=cap))["order"]["returns"][0]
    await ask(client, admin_headers, order, 400, items=cap)
    r = await client.post(f"/admin/returns/{ret['id']}/cancel", headers=admin_headers)
    assert r.status_code == 200 and r.json()["order"]["returns"][0]["status"] == "canceled"
    assert (await client.post(f"/admin/returns/{ret['id']}/cancel", headers=admin_headers)).status_code == 200
    r = await client.post(f"/admin/returns/{ret['id']}/receive", headers=admin_headers, json={"items": cap})
    assert (r.status_code, r.json()["message"]) == (400, "Cannot receive a canceled return")
    await ask(client, admin_headers, order, items=cap)


async def test_an_order_with_a_live_return_cannot_be_canceled(client, admin_headers, seeded):
    # Medusa lets a return be asked for before anything ships; the order cannot be canceled then
    order = await placed(client, items=TWO)
    r = await post(client, admin_headers, order.id, "/return", json={"items": [
        {"item_id": (await LineItem.get(order_id=order.id, variant_id="variant_cap_black")).id, "quantity": 1}]})
    assert r.status_code == 200, r.text
    r = await post(client, admin_headers, order.id, "/cancel")
    assert (r.status_code, r.json()["message"]) == (400, "All returns must be canceled before canceling an order")
    ret = await Return.get(order_id=order.id)
    assert (await client.post(f"/admin/returns/{ret.id}/cancel", headers=admin_headers)).status_code == 200
    assert (await post(client, admin_headers, order.id, "/cancel")).status_code == 200


async def test_receiving_fewer_than_asked_counts_what_arrived(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    shirt = line(order, "variant_t_shirt_s")
    ret = (await ask(client, admin_headers, order, items=[{"item_id": shirt, "quantity": 2}]))["order"]["returns"][0]
    assert ret["refund_amount"] == 4000
    got = (await client.post(f"/admin/returns/{ret['id']}/receive", headers=admin_headers,
                             json={"items": [{"item_id": shirt, "quantity": 1}], "refund": 2000})).json()["return"]
    [item] = got["items"]
    assert (item["requested_quantity"], item["received_quantity"], item["is_requested"]) == (2, 1, False)
    assert (await LineItem.get(id=shirt)).returned_quantity == 1
    assert (await Payment.get(order_id=order["id"])).amount_refunded == 2000


@pytest.mark.parametrize("body,status,message", [
    ({"items": []}, 400, "items must contain at least 1 element"),
    ({"items": [{"item_id": "item_nope", "quantity": 1}]}, 404, "Line item with item_nope was not found"),
    ({"items": [{"item_id": "$cap", "quantity": 2}]}, 400, "Cannot return more items than have been purchased"),
    ({"items": [{"item_id": "$cap", "quantity": 0}]}, 400, "quantity must not be less than 1"),
    ({"items": [{"item_id": "$cap", "quantity": 1, "reason_id": "rr_nope"}]}, 404, "Return reason with id rr_nope"),
    ({"items": [{"item_id": "$cap", "quantity": 1}], "return_shipping": {"option_id": "so_nope"}}, 404,
     "Shipping Option with so_nope was not found"),
    ({"items": [{"item_id": "$cap", "quantity": 1}], "refund": 10**7}, 400, "Cannot refund more than the original payment"),
    ({"items": [{"item_id": "$cap", "quantity": "1"}]}, 400, "quantity"),
])
async def test_bad_returns_are_refused_and_nothing_is_written(client, admin_headers, seeded, body, status, message):
    order = await shipped_order(client, admin_headers)
    cap = line(order, "variant_cap_black")
    body = {**body, "items": [{**i, "item_id": cap if i["item_id"] == "$cap" else i["item_id"]} for i in body["items"]]}
    r = await post(client, admin_headers, order["id"], "/return", json=body)
    assert r.status_code == status, r.text
    assert message in r.json()["message"]
    assert not await Return.exists() and not await ReturnItem.exists()


async def test_a_reason_category_cannot_be_given(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    parent = (await client.post("/admin/return-reasons", headers=admin_headers,
                                json={"value": "fit", "label": "Fit"})).json()["return_reason"]
    await client.post("/admin/return-reasons", headers=admin_headers,
                      json={"value": "small", "label": "Small", "parent_return_reason_id": parent["id"]})
    r = await post(client, admin_headers, order["id"], "/return", json={
        "items": [{"item_id": line(order, "variant_cap_black"), "quantity": 1, "reason_id": parent["id"]}]})
    assert (r.status_code, r.json()["message"]) == (400, "Cannot apply return reason category")


async def test_returns_are_listed_newest_first_with_their_order(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    for variant in ("variant_cap_black", "variant_t_shirt_s"):
        await ask(client, admin_headers, order, items=[{"item_id": line(order, variant), "quantity": 1}])
    r = await client.get("/admin/returns?limit=1", headers=admin_headers)
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["count"], body["limit"], body["offset"], len(body["returns"])) == (2, 1, 0, 1)
    assert body["returns"][0]["items"][0]["item_id"] == line(order, "variant_t_shirt_s")
    assert body["returns"][0]["order"]["id"] == order["id"]
    assert (await client.get("/admin/returns?status=requested", headers=admin_headers)).status_code == 400
    assert (await client.get("/admin/returns")).status_code == 401
    r = await client.post("/admin/returns/ret_nope/receive", headers=admin_headers,
                          json={"items": [{"item_id": "x", "quantity": 1}]})
    assert (r.status_code, r.json()["message"]) == (404, "Return with id: ret_nope was not found")


@requires_postgres()
async def test_two_concurrent_receipts_restock_and_refund_once(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    shirt = line(order, "variant_t_shirt_s")
    ret = (await ask(client, admin_headers, order, items=[{"item_id": shirt, "quantity": 2}]))["order"]["returns"][0]
    before = await stock("variant_t_shirt_s")
    answers = await asyncio.gather(*(client.post(f"/admin/returns/{ret['id']}/receive", headers=admin_headers,
                                                 json={"items": [{"item_id": shirt, "quantity": 2}]}) for _ in range(4)))
    assert sorted(a.status_code for a in answers) == [200, 400, 400, 400]
    assert await stock("variant_t_shirt_s") == before + 2
    assert await Refund.filter(order_id=order["id"]).count() == 1
    assert (await LineItem.get(id=shirt)).returned_quantity == 2

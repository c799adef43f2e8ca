"""Store returns (`POST /store/returns`): the shopper asks to send items back, by the admin's
rules; an order of a customer with an account only by that customer, a guest's order by its id."""

from __future__ import annotations

from models import LineItem, Return
from tests.app.admin.test_returns import line, return_option, shipped_order
from tests.cart_factories import shopper
from tests.order_factories import place_order


async def test_a_guest_asks_to_return_an_item_of_their_order(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    option = await return_option(500)
    body = {"order_id": order["id"], "items": [{"item_id": line(order, "variant_t_shirt_s"), "quantity": 1}],
            "return_shipping": {"option_id": option.id}}
    r = await client.post("/store/returns", json=body, headers={"Idempotency-Key": "ret-1"})
    assert r.status_code == 200, r.text
    ret = r.json()["return"]
    assert (ret["status"], ret["order_id"], ret["refund_amount"]) == ("requested", order["id"], 1500)
    assert ret["shipping_method"]["shipping_option_id"] == option.id
    # A double submit is answered with the same return
    again = await client.post("/store/returns", json=body, headers={"Idempotency-Key": "ret-1"})
    assert again.json() == r.json() and await Return.filter(order_id=order["id"]).count() == 1


async def test_a_customers_order_is_returned_by_that_customer_only(client, admin_headers, seeded):
    jane, jane_headers = await shopper(client)
    _, other_headers = await shopper(client, "sam@example.com", "sam-secret")
    client.cookies.clear()
    order = await place_order(client, headers=jane_headers)
    item = await LineItem.filter(order_id=order.id).first()
    body = {"order_id": order.id, "items": [{"item_id": item.id, "quantity": 1}]}
    for headers in ({}, other_headers):
        r = await client.post("/store/returns", json=body, headers=headers)
        assert (r.status_code, r.json()["message"]) == (404, f"Order with id {order.id} was not found")
    r = await client.post("/store/returns", json=body, headers=jane_headers)
    assert r.status_code == 200, r.text
    assert r.json()["return"]["items"][0]["item_id"] == item.id


async def test_bad_store_returns_are_refused(client, seeded):
    for body, status in (({"order_id": "order_nope", "items": [{"item_id": "x", "quantity": 1}]}, 404),
                         ({"items": []}, 400), ({"order_id": "order_nope", "items": "x"}, 400)):
        r = await client.post("/store/returns", json=body)
        assert r.status_code == status, r.text
    assert not await Return.exists()

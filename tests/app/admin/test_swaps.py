"""Swaps over HTTP: an exchange made on the order, paid
through its swap cart in the store, its difference captured or refunded once, its new items
fulfilled and shipped, its return received; stock and money change once."""

from __future__ import annotations

import asyncio

from models import Cart, LineItem, Payment, Refund, Swap
from tests.app.admin.test_claims import na_option, stock
from tests.app.admin.test_order_operations import placed, post
from tests.app.admin.test_returns import line, return_option, shipped_order
from tests.checkout_factories import complete, pay_with_manual
from tests.conftest import requires_postgres


async def swap(client, admin_headers, order: dict, status: int = 200, headers: dict | None = None, **body):
    r = await client.post(f"/admin/orders/{order['id']}/swaps", json=body, headers={**admin_headers, **(headers or {})})
    assert r.status_code == status, r.text
    return r.json()


async def exchange(order: dict, new_variant: str = "variant_t_shirt_m", **more) -> dict:
    """One small shirt back for `new_variant`, shipped at a price of 0 set for the swap."""
    return {
        "return_items": [{"item_id": line(order, "variant_t_shirt_s"), "quantity": 1, "note": "Too small"}],
        "additional_items": [{"variant_id": new_variant, "quantity": 1}],
        "custom_shipping_options": [{"option_id": await na_option(), "price": 0}], **more,
    }


async def made(client, admin_headers, new_variant: str = "variant_t_shirt_m", **more) -> tuple[dict, dict]:
    order = await shipped_order(client, admin_headers)
    o = (await swap(client, admin_headers, order, **await exchange(order, new_variant, **more)))["order"]
    return o, o["swaps"][0]


async def pay_swap_cart(client, s: dict, key: str | None = None, pay: bool = True):
    """What the shopper does in the store: ship with the offered option, pay, complete."""
    cart_id = s["cart_id"]
    r = await client.get(f"/store/shipping-options/{cart_id}")
    assert r.status_code == 200, r.text
    [offer] = r.json()["shipping_options"]
    r = await client.post(f"/store/carts/{cart_id}/shipping-methods", json={"option_id": offer["id"]})
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    if pay:
        cart = await pay_with_manual(client, cart)
    return await complete(client, cart_id, key)


async def process(client, admin_headers, o: dict, s: dict, key: str | None = None):
    headers = {**admin_headers, **({"Idempotency-Key": key} if key else {})}
    return await client.post(f"/admin/orders/{o['id']}/swaps/{s['id']}/process-payment", headers=headers)


async def test_an_exchange_for_another_size_is_paid_in_the_store_then_captured_fulfilled_and_shipped(
    client, admin_headers, seeded,
):
    order = await shipped_order(client, admin_headers)
    body = await exchange(order)
    o = (await swap(client, admin_headers, order, headers={"Idempotency-Key": "swap-1"}, **body))["order"]
    again = await swap(client, admin_headers, order, headers={"Idempotency-Key": "swap-1"}, **body)
    assert again["order"]["swaps"] == o["swaps"] and await Swap.all().count() == 1
    [s] = o["swaps"]
    assert (s["payment_status"], s["fulfillment_status"], s["difference_due"], s["confirmed_at"]) == (
        "not_paid", "not_fulfilled", None, None)
    [new] = s["additional_items"]
    assert (new["variant_id"], new["unit_price"], new["quantity"], new["swap_id"]) == (
        "variant_t_shirt_m", 2100, 1, s["id"])
    ret = s["return_order"]
    assert (ret["status"], ret["swap_id"], ret["refund_amount"]) == ("requested", s["id"], 0)
    assert [(i["item_id"], i["quantity"], i["note"]) for i in ret["items"]] == [
        (line(order, "variant_t_shirt_s"), 1, "Too small")]
    assert o["returns"] == []  # the swap's return shows under the swap, as in Medusa v1
    # The swap cart: the new shirt, less the returned one
    r = await client.get(f"/store/swaps/{s['cart_id']}")
    assert r.status_code == 200, r.text
    cart = r.json()["swap"]["cart"]
    assert cart["type"] == "swap" and cart["metadata"] == {"swap_id": s["id"], "parent_order_id": order["id"]}
    assert sorted((i["unit_price"], i["quantity"], i["is_return"]) for i in cart["items"]) == [
        (-2000, 1, True), (2100, 1, False)]
    assert (cart["subtotal"], cart["total"]) == (100, 100)
    # The shopper cannot change what the exchange set
    r = await client.post(f"/store/carts/{s['cart_id']}/line-items", json={"variant_id": "variant_cap_black",
                                                                            "quantity": 1})
    assert r.status_code == 400, r.text
    r = await client.delete(f"/store/carts/{s['cart_id']}/line-items/{new['id']}")
    assert r.status_code == 400, r.text
    # Paid in the store: the swap is confirmed once, its new shirt leaves the shelf once
    before = await stock("variant_t_shirt_m")
    r = await pay_swap_cart(client, s, key="swap-cart-1")
    assert r.status_code == 200, r.text
    assert r.json()["type"] == "swap"
    confirmed = r.json()["data"]
    assert (confirmed["id"], confirmed["payment_status"], confirmed["difference_due"]) == (s["id"], "awaiting", 100)
    assert confirmed["confirmed_at"] and confirmed["payment"]["amount"] == 100
    for key in ("swap-cart-1", None):
        r = await complete(client, s["cart_id"], key)
        assert (r.status_code, r.json()["type"], r.json()["data"]["id"]) == (200, "swap", s["id"])
    assert await stock("variant_t_shirt_m") == before - 1
    assert await Payment.filter(swap_id=s["id"]).count() == 1
    # The merchant captures the difference: once, however often asked
    for _ in range(2):
        r = await process(client, admin_headers, o, s)
        assert r.status_code == 200, r.text
    s = r.json()["order"]["swaps"][0]
    assert s["payment_status"] == "captured" and s["payment"]["captured_at"]
    captured_at = (await Payment.get(swap_id=s["id"])).captured_at
    r = await process(client, admin_headers, o, s)
    assert (await Payment.get(swap_id=s["id"])).captured_at == captured_at
    assert r.json()["order"]["paid_total"] == 6500 + 100  # the swap's payment joins the order's
    # Fulfilled and shipped
    path = f"/admin/orders/{o['id']}/swaps/{s['id']}"
    r = await client.post(f"{path}/fulfillments", headers=admin_headers, json={})
    assert r.status_code == 200, r.text
    s = r.json()["order"]["swaps"][0]
    assert s["fulfillment_status"] == "fulfilled" and len(s["fulfillments"]) == 1
    r = await client.post(f"{path}/fulfillments", headers=admin_headers, json={})
    assert (r.status_code, r.json()["message"]) == (400, "The swap was already fulfilled")
    r = await client.post(f"{path}/shipments", headers=admin_headers,
                          json={"fulfillment_id": s["fulfillments"][0]["id"], "tracking_numbers": ["SWAP-1"]})
    assert r.status_code == 200, r.text
    s = r.json()["order"]["swaps"][0]
    assert s["fulfillment_status"] == "shipped"
    assert [t["tracking_number"] for t in s["fulfillments"][0]["tracking_links"]] == ["SWAP-1"]
    # The small shirt comes back: restocked, no refund (the difference settled the money)
    shirt_s = await stock("variant_t_shirt_s")
    received = {"items": [{"item_id": line(order, "variant_t_shirt_s"), "quantity": 1}]}
    r = await client.post(f"/admin/returns/{s['return_order']['id']}/receive", headers=admin_headers,
                          json={**received, "refund": 500})
    assert r.status_code == 400, r.text
    r = await client.post(f"/admin/returns/{s['return_order']['id']}/receive", headers=admin_headers, json=received)
    assert r.status_code == 200, r.text
    assert await stock("variant_t_shirt_s") == shirt_s + 1
    assert r.json()["return"]["swap"]["id"] == s["id"]
    r = await client.get("/admin/returns", headers=admin_headers)
    assert [x["swap"]["id"] for x in r.json()["returns"] if x["swap_id"]] == [s["id"]]
    assert await Refund.filter(order_id=o["id"]).count() == 0
    # The dashboard's order page reads the new items' products and profiles
    r = await client.get(f"/admin/orders/{o['id']}", headers=admin_headers, params={
        "expand": "swaps.additional_items.variant.product.profiles,swaps.return_order,swaps.fulfillments,"
                  "swaps.payment,swaps.shipping_methods"})
    assert r.status_code == 200, r.text
    shown = r.json()["order"]["swaps"][0]
    assert shown["additional_items"][0]["variant"]["product"]["profiles"][0]["type"] == "default"
    assert shown["return_order"]["status"] == "received" and shown["shipping_methods"][0]["price"] == 0
    # Admin swap reads
    r = await client.get(f"/admin/swaps/{s['id']}", headers=admin_headers)
    assert r.status_code == 200, r.text
    assert r.json()["swap"]["cart"]["total"] == 100 and r.json()["swap"]["order"]["id"] == o["id"]
    r = await client.get("/admin/swaps", headers=admin_headers, params={"limit": 5})
    assert (r.json()["count"], [x["id"] for x in r.json()["swaps"]]) == (1, [s["id"]])
    # The list shows each swap's own columns, without relations, as Medusa v1's does
    assert set(r.json()["swaps"][0]) == SWAP_COLUMNS


SWAP_COLUMNS = {
    "id", "fulfillment_status", "payment_status", "order_id", "difference_due", "shipping_address_id", "cart_id",
    "confirmed_at", "canceled_at", "no_notification", "allow_backorder", "idempotency_key", "metadata",
    "created_at", "updated_at", "deleted_at",
}


async def test_a_cheaper_exchange_is_given_back_once(client, admin_headers, seeded):
    # A 2000 shirt for a 1500 cap: 500 back
    o, s = await made(client, admin_headers, "variant_cap_black")
    r = await process(client, admin_headers, o, s)
    assert (r.status_code, r.json()["message"]) == (
        400, "Cannot process a swap that hasn't been confirmed by the customer")
    r = await pay_swap_cart(client, s, pay=False)  # nothing to pay
    assert r.status_code == 200, r.text
    assert (r.json()["data"]["difference_due"], r.json()["data"]["payment_status"]) == (-500, "awaiting")
    assert await Payment.filter(swap_id=s["id"]).count() == 0
    for key in ("p-1", "p-2"):
        r = await process(client, admin_headers, o, s, key)
        assert r.status_code == 200, r.text
    order = r.json()["order"]
    assert order["swaps"][0]["payment_status"] == "difference_refunded"
    assert [(x["amount"], x["reason"]) for x in order["refunds"]] == [(500, "swap")]
    # A swap that gave money back stays
    r = await client.post(f"/admin/orders/{o['id']}/swaps/{s['id']}/cancel", headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, "Swap with a refund cannot be canceled")


async def test_an_even_exchange_is_confirmed_with_nothing_to_move(client, admin_headers, seeded):
    o, s = await made(client, admin_headers, "variant_t_shirt_s")
    r = await pay_swap_cart(client, s, pay=False)
    assert (r.status_code, r.json()["data"]["payment_status"], r.json()["data"]["difference_due"]) == (
        200, "confirmed", 0)
    r = await process(client, admin_headers, o, s)
    assert r.json()["order"]["swaps"][0]["payment_status"] == "difference_refunded"
    assert await Refund.all().count() == 0


async def test_a_swap_is_canceled_once_its_return_is_and_its_cart_can_no_longer_complete(
    client, admin_headers, seeded,
):
    o, s = await made(client, admin_headers)
    path = f"/admin/orders/{o['id']}/swaps/{s['id']}"
    r = await client.post(f"{path}/cancel", headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, "Return must be canceled before the swap can be canceled")
    r = await client.post(f"/admin/returns/{s['return_order']['id']}/cancel", headers=admin_headers)
    assert r.status_code == 200, r.text
    for _ in range(2):
        r = await client.post(f"{path}/cancel", headers=admin_headers)
        assert r.status_code == 200, r.text
    c = r.json()["order"]["swaps"][0]
    assert (c["payment_status"], c["fulfillment_status"]) == ("canceled", "canceled") and c["canceled_at"]
    r = await pay_swap_cart(client, s)
    assert (r.status_code, r.json()["message"]) == (400, "Cart related to canceled swap cannot be completed")
    assert (await Cart.get(id=s["cart_id"])).completed_at is None
    for route, message in (("/fulfillments", "Canceled swap cannot be fulfilled"),
                           ("/process-payment", "Canceled swap cannot be processed")):
        r = await client.post(f"{path}{route}", headers=admin_headers, json={})
        assert (r.status_code, r.json()["message"]) == (400, message), route


async def test_canceling_a_confirmed_swap_gives_its_new_items_stock_back_once(client, admin_headers, seeded):
    before = await stock("variant_t_shirt_m")
    o, s = await made(client, admin_headers, allow_backorder=False)
    assert (await pay_swap_cart(client, s)).status_code == 200
    assert await stock("variant_t_shirt_m") == before - 1
    await client.post(f"/admin/returns/{s['return_order']['id']}/cancel", headers=admin_headers)
    for _ in range(2):
        r = await client.post(f"/admin/orders/{o['id']}/swaps/{s['id']}/cancel", headers=admin_headers)
        assert r.status_code == 200, r.text
    assert await stock("variant_t_shirt_m") == before
    assert (await Payment.get(swap_id=s["id"])).canceled_at is not None


async def test_bad_swaps_and_wrong_states_are_refused_with_medusas_answers(client, admin_headers, seeded):
    # An order not yet captured
    fresh = await placed(client, items={"variant_t_shirt_s": 1})
    o = (await client.get(f"/admin/orders/{fresh.id}", headers=admin_headers)).json()["order"]
    body = await exchange(o)
    r = await swap(client, admin_headers, o, 400, **body)
    assert r["message"] == "Cannot swap an order that has not been captured"
    assert (await post(client, admin_headers, fresh.id, "/capture")).status_code == 200
    r = await swap(client, admin_headers, o, 400, **body)
    assert r["message"] == "Cannot swap an order that has not been fulfilled"
    order = await shipped_order(client, admin_headers)
    good = await exchange(order)
    for change, status in (
        ({"additional_items": [{"variant_id": "variant_missing", "quantity": 1}]}, 400),
        ({"additional_items": []}, 400),
        ({"return_items": []}, 400),
        ({"return_items": [{"item_id": line(order, "variant_t_shirt_s"), "quantity": 0}]}, 400),
        ({"return_items": [{"item_id": line(order, "variant_t_shirt_s"), "quantity": 3}]}, 400),
        ({"return_items": [{"item_id": "item_missing", "quantity": 1}]}, 404),
        ({"custom_shipping_options": [{"option_id": "so_missing", "price": 0}]}, 404),
        ({"custom_shipping_options": [{"option_id": await na_option(), "price": -1}]}, 400),
        ({"return_shipping": {"option_id": await na_option()}}, 404),  # not a return option
        ({"return_items": "all"}, 400),
    ):
        r = await client.post(f"/admin/orders/{order['id']}/swaps", json={**good, **change}, headers=admin_headers)
        assert r.status_code == status, (change, r.text)
    assert await Swap.all().count() == 0 and await Cart.filter(type="swap").count() == 0
    # Another order's swap, an unknown swap, a fulfillment of the order's own
    o2, s = await made(client, admin_headers)
    for path, message in (
        (f"/admin/orders/{order['id']}/swaps/{s['id']}/process-payment",
         f"no swap was found with the id: {s['id']} related to order: {order['id']}"),
        (f"/admin/orders/{o2['id']}/swaps/swap_missing/cancel", "Swap was not found"),
        (f"/admin/orders/{o2['id']}/swaps/{s['id']}/fulfillments/{o2['fulfillments'][0]['id']}/cancel",
         f"no fulfillment was found with the id: {o2['fulfillments'][0]['id']} related to swap: {s['id']}"),
    ):
        r = await client.post(path, headers=admin_headers, json={})
        assert (r.status_code, r.json()["message"]) == (404, message), path
    r = await client.post(f"/admin/orders/{o2['id']}/swaps/{s['id']}/fulfillments", headers=admin_headers, json={})
    assert (r.status_code, r.json()["message"]) == (
        400, "Cannot fulfill a swap that hasn't been confirmed by the customer")
    r = await client.get("/store/swaps/cart_missing")
    assert (r.status_code, r.json()["message"]) == (404, "Swap was not found")


async def test_a_returned_unit_is_swapped_once(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    body = await exchange(order)
    body["return_items"][0]["quantity"] = 2
    await swap(client, admin_headers, order, **body)
    r = await swap(client, admin_headers, order, 400, **await exchange(order))
    assert r["message"] == "Cannot return more items than have been purchased"


async def test_a_guest_makes_a_swap_in_the_store_and_a_stranger_cannot(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    body = {"order_id": order["id"], "return_items": [{"item_id": line(order, "variant_t_shirt_s"), "quantity": 1}],
            "additional_items": [{"variant_id": "variant_t_shirt_m", "quantity": 1}]}
    option = await return_option(0)
    r = await client.post("/store/swaps", json={**body, "return_shipping_option": option.id},
                          headers={"Idempotency-Key": "store-swap"})
    assert r.status_code == 200, r.text
    s = r.json()["swap"]
    again = await client.post("/store/swaps", json={**body, "return_shipping_option": option.id},
                              headers={"Idempotency-Key": "store-swap"})
    assert again.json()["swap"]["id"] == s["id"] and await Swap.all().count() == 1
    assert (s["order_id"], s["allow_backorder"], s["cart"]["total"]) == (order["id"], False, 100)
    assert s["return_order"]["shipping_method"]["shipping_option_id"] == option.id
    r = await client.post("/store/swaps", json={**body, "order_id": "order_missing"})
    assert r.status_code == 404, r.text


@requires_postgres()
async def test_concurrent_processing_of_a_refund_difference_gives_it_back_once(client, admin_headers, seeded):
    o, s = await made(client, admin_headers, "variant_cap_black")
    assert (await pay_swap_cart(client, s, pay=False)).status_code == 200
    answers = await asyncio.gather(*(process(client, admin_headers, o, s, f"k-{i}") for i in range(8)))
    assert [a.status_code for a in answers] == [200] * 8
    assert [(x.amount, x.reason) for x in await Refund.filter(order_id=o["id"])] == [(500, "swap")]


@requires_postgres()
async def test_concurrent_completions_of_a_swap_cart_confirm_it_once(client, admin_headers, seeded):
    before = await stock("variant_t_shirt_m")
    o, s = await made(client, admin_headers)
    cart_id = s["cart_id"]
    [offer] = (await client.get(f"/store/shipping-options/{cart_id}")).json()["shipping_options"]
    await client.post(f"/store/carts/{cart_id}/shipping-methods", json={"option_id": offer["id"]})
    await pay_with_manual(client, {"id": cart_id})
    answers = await asyncio.gather(*(complete(client, cart_id, f"c-{i}") for i in range(6)))
    assert {(a.status_code, a.json().get("type")) for a in answers} <= {(200, "swap"), (409, None)}
    assert any(a.status_code == 200 for a in answers)
    assert await stock("variant_t_shirt_m") == before - 1
    assert await Payment.filter(swap_id=s["id"], canceled_at=None).count() == 1
    assert await LineItem.filter(swap_id=s["id"]).count() == 1

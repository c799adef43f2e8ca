"""A merchant runs a shopper's order from the dashboard's order page, over HTTP only: the
end-to-end story (capture the payment, fulfil two of three items, ship them with a
tracking number, fulfil and ship the third, receive a return of one item with its refund, refund a
goodwill amount, and cancel another order that was never fulfilled), with the statuses and totals
the order page shows after each step."""

from models import ProductVariant
from tests.checkout_factories import ADDRESS

SHIRT, SWEATSHIRT, CAP = "variant_t_shirt_s", "variant_sweatshirt_s", "variant_cap_black"  # 2000, 3500, 1500 usd


async def call(client, method: str, path: str, headers: dict | None = None, body: dict | None = None) -> dict:
    r = await client.request(method, path, json=body, headers=headers or {})
    assert r.status_code == 200, (method, path, r.text)
    return r.json()


async def bought(client, variants: list[str]) -> dict:
    """A guest's order of one of each variant in the NA region (no tax), placed through checkout."""
    region = next(r["id"] for r in (await call(client, "GET", "/store/regions"))["regions"] if r["currency_code"] == "usd")
    cart = (await call(client, "POST", "/store/carts", body={
        "region_id": region, "items": [{"variant_id": v, "quantity": 1} for v in variants]}))["cart"]
    path = f"/store/carts/{cart['id']}"
    await call(client, "POST", path, body={"email": "buyer@example.com", "shipping_address": ADDRESS})
    option = next(o for o in (await call(client, "GET", f"/store/shipping-options/{cart['id']}"))["shipping_options"]
                  if o["name"] == "NA Flat Rate")
    await call(client, "POST", f"{path}/shipping-methods", body={"option_id": option["id"]})
    await call(client, "POST", f"{path}/payment-sessions")
    await call(client, "POST", f"{path}/payment-session", body={"provider_id": "manual"})
    done = await call(client, "POST", f"{path}/complete")
    assert done["type"] == "order"
    return done["data"]


def statuses(order: dict) -> tuple[str, str, str]:
    return order["status"], order["payment_status"], order["fulfillment_status"]


def line(order: dict, variant_id: str) -> dict:
    return next(i for i in order["items"] if i["variant_id"] == variant_id)


async def stock(variant_id: str) -> int:
    return (await ProductVariant.get(id=variant_id)).inventory_quantity


async def test_a_merchant_captures_fulfils_ships_takes_a_return_refunds_and_cancels(client, admin_headers, seeded):
    admin = admin_headers
    order = await bought(client, [SHIRT, SWEATSHIRT, CAP])
    path = f"/admin/orders/{order['id']}"
    assert (order["total"], order["paid_total"]) == (8000, 8000)  # 7000 of goods and 1000 shipping, no tax
    assert statuses(order) == ("pending", "awaiting", "not_fulfilled")

    # The merchant captures the payment
    order = (await call(client, "POST", f"{path}/capture", {**admin, "Idempotency-Key": "capture-1"}))["order"]
    assert statuses(order) == ("pending", "captured", "not_fulfilled") and order["refundable_amount"] == 8000

    # ... fulfils two of the three items
    two = [{"item_id": line(order, v)["id"], "quantity": 1} for v in (SHIRT, SWEATSHIRT)]
    order = (await call(client, "POST", f"{path}/fulfillment", admin, {"items": two}))["order"]
    assert order["fulfillment_status"] == "partially_fulfilled"
    [first] = order["fulfillments"]
    assert sorted(i["item_id"] for i in first["items"]) == sorted(i["item_id"] for i in two)
    assert [line(order, v)["fulfilled_quantity"] for v in (SHIRT, SWEATSHIRT, CAP)] == [1, 1, None]

    # ... ships them with a tracking number
    order = (await call(client, "POST", f"{path}/shipment", admin,
                        {"fulfillment_id": first["id"], "tracking_numbers": ["TRACK-1"]}))["order"]
    assert order["fulfillment_status"] == "partially_shipped"
    shipped = next(f for f in order["fulfillments"] if f["id"] == first["id"])
    assert shipped["shipped_at"] and [t["tracking_number"] for t in shipped["tracking_links"]] == ["TRACK-1"]

    # ... fulfils and ships the third (the status says what the lines are: two shipped, one not yet)
    cap = [{"item_id": line(order, CAP)["id"], "quantity": 1}]
    order = (await call(client, "POST", f"{path}/fulfillment", admin, {"items": cap}))["order"]
    assert order["fulfillment_status"] == "partially_shipped"
    assert all(i["fulfilled_quantity"] == 1 for i in order["items"])
    second = next(f for f in order["fulfillments"] if f["id"] != first["id"])
    order = (await call(client, "POST", f"{path}/shipment", admin,
                        {"fulfillment_id": second["id"], "tracking_numbers": ["TRACK-2"]}))["order"]
    assert order["fulfillment_status"] == "shipped"
    assert all(i["shipped_quantity"] == 1 for i in order["items"])

    # ... takes the T-shirt back, shipped back for 500, and receives it: the shopper gets 1500
    region = order["region_id"]
    profiles = (await call(client, "GET", "/admin/shipping-profiles", admin))["shipping_profiles"]
    returns_option = (await call(client, "POST", "/admin/shipping-options", admin, {
        "name": "NA Returns", "region_id": region, "provider_id": "manual", "is_return": True,
        "profile_id": next(p["id"] for p in profiles if p["type"] == "default"),
        "data": {"id": "manual-fulfillment-return"}, "price_type": "flat_rate", "amount": 500,
    }))["shipping_option"]
    reason = (await call(client, "POST", "/admin/return-reasons", admin,
                         {"value": "too_small", "label": "Too small"}))["return_reason"]
    shirt_stock = await stock(SHIRT)
    order = (await call(client, "POST", f"{path}/return", admin, {
        "items": [{"item_id": line(order, SHIRT)["id"], "quantity": 1, "reason_id": reason["id"]}],
        "return_shipping": {"option_id": returns_option["id"]},
    }))["order"]
    [requested] = order["returns"]
    assert requested["status"] == "requested" and requested["refund_amount"] == 1500
    assert requested["items"][0]["reason"]["value"] == "too_small"
    assert requested["shipping_method"]["price"] == 500
    received = (await call(client, "POST", f"/admin/returns/{requested['id']}/receive", admin, {
        "items": [{"item_id": line(order, SHIRT)["id"], "quantity": 1}]}))["return"]
    assert received["status"] == "received"
    order = (await call(client, "GET", path, admin))["order"]
    assert order["fulfillment_status"] == "partially_returned" and line(order, SHIRT)["returned_quantity"] == 1
    assert (order["payment_status"], order["refunded_total"]) == ("partially_refunded", 1500)
    assert await stock(SHIRT) == shirt_stock + 1

    # ... and refunds a goodwill amount
    order = (await call(client, "POST", f"{path}/refund", {**admin, "Idempotency-Key": "goodwill-1"},
                        {"amount": 1000, "reason": "other", "note": "Sorry for the wait"}))["order"]
    assert (order["refunded_total"], order["refundable_amount"]) == (2500, 5500)
    assert sorted((r["amount"], r["reason"]) for r in order["refunds"]) == [(1000, "other"), (1500, "return")]
    # A second click on the same button refunds nothing more
    again = await client.post(f"{path}/refund", json={"amount": 1000, "reason": "other", "note": "Sorry for the wait"},
                              headers={**admin, "Idempotency-Key": "goodwill-1"})
    assert again.status_code == 200 and again.json()["order"]["refunded_total"] == 2500

    # Another order, never fulfilled, is canceled: its stock comes back and its payment is canceled
    other = await bought(client, [CAP])
    cap_stock = await stock(CAP)
    canceled = (await call(client, "POST", f"/admin/orders/{other['id']}/cancel", admin))["order"]
    assert statuses(canceled) == ("canceled", "canceled", "canceled")
    assert canceled["canceled_at"] and canceled["updated_at"] > other["updated_at"]  # the timeline dates it so
    assert await stock(CAP) == cap_stock + 1
    # ... and the first order cannot be canceled now that it was shipped
    r = await client.post(f"{path}/cancel", headers=admin)
    assert r.status_code == 400 and r.json()["type"] == "not_allowed"

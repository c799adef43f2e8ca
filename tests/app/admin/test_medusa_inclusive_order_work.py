"""After-sale work in a tax-inclusive shop refunds what Medusa v1.20 refunded: each order Medusa
worked (tests/fixtures/medusa_inclusive: a line returned and refunded, a line exchanged, a line
claimed for a refund, an order edited) is placed again here through our store API in the same
shop, worked again through our admin API the way Medusa's dashboard does it, and read with
`GET /admin/orders/{id}`: its refunds, returns, exchanges, claims, lines' `refundable` and totals
are compared with Medusa's recorded answer."""

from __future__ import annotations

import pytest

from tests.medusa_inclusive_factories import ANSWERS, CARTS, build_region, fill_cart, order_differences


async def _post(client, headers, path: str, body: dict | None = None) -> dict:
    r = await client.post(path, json=body, headers=headers)
    assert r.status_code == 200, f"POST {path} {body}: {r.status_code} {r.text}"
    return r.json()


async def _shipped(client, headers, order_id: str) -> dict:
    await _post(client, headers, f"/admin/orders/{order_id}/capture")
    order = (await client.get(f"/admin/orders/{order_id}", headers=headers)).json()["order"]
    items = [{"item_id": i["id"], "quantity": i["quantity"]} for i in order["items"]]
    order = (await _post(client, headers, f"/admin/orders/{order_id}/fulfillment", {"items": items}))["order"]
    return (await _post(client, headers, f"/admin/orders/{order_id}/shipment",
                        {"fulfillment_id": order["fulfillments"][0]["id"]}))["order"]


def _line(order: dict, sku: str) -> str:
    return next(i["id"] for i in order["items"] if i["variant"]["sku"] == sku)


async def _return_a_mug(client, headers, ids, order_id, spec):
    order = await _shipped(client, headers, order_id)
    items = [{"item_id": _line(order, "MUG"), "quantity": 1}]
    order = (await _post(client, headers, f"/admin/orders/{order_id}/return", {"items": items}))["order"]
    await _post(client, headers, f"/admin/returns/{order['returns'][0]['id']}/receive", {"items": items})


async def _exchange_the_poster(client, headers, ids, order_id, spec):
    order = await _shipped(client, headers, order_id)
    items = [{"item_id": _line(order, "POSTER"), "quantity": 1}]
    option = ids["shipping_options"][spec["shipping"]]  # the cart's own option, free for the new item
    order = (await _post(client, headers, f"/admin/orders/{order_id}/swaps", {
        "return_items": items, "additional_items": [{"variant_id": ids["variants"]["CAP"], "quantity": 1}],
        "custom_shipping_options": [{"option_id": option, "price": 0}]}))["order"]
    swap = (await client.get(f"/admin/swaps/{order['swaps'][0]['id']}", headers=headers)).json()["swap"]
    cart = f"/store/carts/{swap['cart_id']}"
    await _post(client, None, f"{cart}/shipping-methods", {"option_id": option})
    if (await _post(client, None, f"{cart}/payment-sessions"))["cart"]["total"] > 0:
        await _post(client, None, f"{cart}/payment-session", {"provider_id": "manual"})
    await _post(client, None, f"{cart}/complete")
    await _post(client, headers, f"/admin/orders/{order_id}/swaps/{swap['id']}/process-payment")
    await _post(client, headers, f"/admin/returns/{swap['return_order']['id']}/receive", {"items": items})


async def _claim_the_tee(client, headers, ids, order_id, spec):
    order = await _shipped(client, headers, order_id)
    await _post(client, headers, f"/admin/orders/{order_id}/claims", {"type": "refund", "claim_items": [
        {"item_id": _line(order, "TEE-S"), "quantity": 1, "reason": "production_failure"}]})


async def _add_a_cap(client, headers, ids, order_id, spec):
    await _post(client, headers, f"/admin/orders/{order_id}/capture")
    edit = (await _post(client, headers, "/admin/order-edits", {"order_id": order_id}))["order_edit"]
    await _post(client, headers, f"/admin/order-edits/{edit['id']}/items",
                {"variant_id": ids["variants"]["CAP"], "quantity": 1})
    await _post(client, headers, f"/admin/order-edits/{edit['id']}/request")
    await _post(client, headers, f"/admin/order-edits/{edit['id']}/confirm")


# what inclusive_shop.py's work_orders says it did -> the same work here
WORK = {"returned": _return_a_mug, "exchanged": _exchange_the_poster, "claimed": _claim_the_tee,
        "edited": _add_a_cap}


def _work_of(name: str):
    return next(work for word, work in WORK.items() if word in ANSWERS["work"][name])


@pytest.mark.parametrize("name", sorted(ANSWERS["work"]))
async def test_worked_order_refunds_and_totals_what_medusa_did(client, admin_headers, name):
    # Given Medusa's order placed again in the same shop
    medusa_cart = CARTS[name]
    ids = await build_region(client, admin_headers, medusa_cart["region"])
    cart_id = await fill_cart(client, ids, medusa_cart)
    r = await client.post(f"/store/carts/{cart_id}/complete")
    assert r.status_code == 200 and r.json()["type"] == "order", r.text
    order_id = r.json()["data"]["id"]
    # When it is worked as Medusa's was
    await _work_of(name)(client, admin_headers, ids, order_id, medusa_cart)
    # I expect Medusa's refunds, returns, exchanges, claims, lines and totals
    ours = (await client.get(f"/admin/orders/{order_id}", headers=admin_headers)).json()["order"]
    found = order_differences(ANSWERS["orders"][medusa_cart["order_id"]], ours, same_ids=False)
    assert not found, f"{name}: {len(found)} differ (Medusa's, ours): {found}"

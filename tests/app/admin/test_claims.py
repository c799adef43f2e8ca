"""Claims over HTTP: a replacement sent out, a refund given back, the
claim canceled; stock and money change once."""

from __future__ import annotations

import asyncio

import pytest

from models import ClaimItem, ClaimOrder, LineItem, ProductVariant, Refund, ShippingOption
from tests.app.admin.test_order_operations import placed, post
from tests.app.admin.test_returns import line, return_option, shipped_order
from tests.conftest import requires_postgres


async def stock(variant_id: str) -> int:
    return (await ProductVariant.get(id=variant_id)).inventory_quantity


async def claim(client, admin_headers, order: dict, status: int = 200, headers: dict | None = None, **body):
    r = await client.post(f"/admin/orders/{order['id']}/claims", json=body, headers={**admin_headers, **(headers or {})})
    assert r.status_code == status, r.text
    return r.json()


def replacement(order: dict, option_id: str, **more) -> dict:
    return {
        "type": "replace",
        "claim_items": [{"item_id": line(order, "variant_t_shirt_s"), "quantity": 1, "reason": "production_failure",
                         "note": "Seam torn", "tags": [" Seam ", "seam", "QA"], "images": ["https://img.example/1.jpg"]}],
        "additional_items": [{"variant_id": "variant_t_shirt_m", "quantity": 1}],
        "shipping_methods": [{"option_id": option_id, "price": 0}], **more,
    }


async def na_option() -> str:
    return (await ShippingOption.get(name="NA Flat Rate")).id


async def test_a_replacement_is_claimed_fulfilled_and_shipped(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    before = await stock("variant_t_shirt_m")
    o = (await claim(client, admin_headers, order, **replacement(order, await na_option())))["order"]
    [c] = o["claims"]
    assert (c["type"], c["payment_status"], c["fulfillment_status"], c["refund_amount"]) == (
        "replace", "na", "not_fulfilled", None)
    [item] = c["claim_items"]
    assert (item["reason"], item["note"], item["quantity"], item["item"]["title"]) == (
        "production_failure", "Seam torn", 1, "Medusa T-Shirt")
    assert sorted(t["value"] for t in item["tags"]) == ["qa", "seam"]
    assert [i["url"] for i in item["images"]] == ["https://img.example/1.jpg"]
    [extra] = c["additional_items"]
    assert (extra["variant_id"], extra["unit_price"], extra["quantity"], extra["claim_order_id"]) == (
        "variant_t_shirt_m", 2100, 1, c["id"])
    assert extra["tax_lines"] and c["shipping_methods"][0]["price"] == 0
    assert c["shipping_address"]["id"] == o["shipping_address_id"]
    assert await stock("variant_t_shirt_m") == before - 1
    # The order's own lines and totals are untouched
    assert len(o["items"]) == 2 and o["refunded_total"] == 0
    # The dashboard's order page reads the replacements' products and their profiles
    r = await client.get(f"/admin/orders/{order['id']}", headers=admin_headers, params={
        "expand": "claims.claim_items.item,claims.fulfillments,claims.return_order,"
                  "claims.additional_items.variant.product.profiles,returnable_items"})
    assert r.status_code == 200, r.text
    shown = r.json()["order"]["claims"][0]["additional_items"][0]["variant"]["product"]
    assert shown["title"] == "Medusa T-Shirt" and shown["profiles"][0]["type"] == "default"
    # Fulfilled, then shipped with a tracking number
    path = f"/admin/orders/{order['id']}/claims/{c['id']}"
    r = await client.post(f"{path}/fulfillments", headers=admin_headers)
    assert r.status_code == 200, r.text
    c = r.json()["order"]["claims"][0]
    assert c["fulfillment_status"] == "fulfilled" and len(c["fulfillments"]) == 1
    assert c["fulfillments"][0]["items"] == [{"fulfillment_id": c["fulfillments"][0]["id"], "item_id": extra["id"],
                                               "quantity": 1}]
    r = await client.post(f"{path}/fulfillments", headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, "The claim has already been fulfilled.")
    r = await client.post(f"{path}/shipments", headers=admin_headers,
                          json={"fulfillment_id": c["fulfillments"][0]["id"], "tracking_numbers": ["CLAIM-1"]})
    assert r.status_code == 200, r.text
    c = r.json()["order"]["claims"][0]
    assert c["fulfillment_status"] == "shipped"
    assert [t["tracking_number"] for t in c["fulfillments"][0]["tracking_links"]] == ["CLAIM-1"]
    # ... and it cannot be canceled with a live fulfillment
    r = await client.post(f"{path}/cancel", headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (
        400, "All fulfillments must be canceled before the claim can be canceled")


async def test_a_refund_claim_gives_the_money_back_once_and_takes_the_item_back(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    option = await return_option(500)
    body = {"type": "refund", "claim_items": [{"item_id": line(order, "variant_cap_black"), "quantity": 1,
                                               "reason": "wrong_item"}],
            "return_shipping": {"option_id": option.id}}
    headers = {"Idempotency-Key": "claim-1"}
    o = (await claim(client, admin_headers, order, headers=headers, **body))["order"]
    again = await claim(client, admin_headers, order, headers=headers, **body)
    assert again["order"]["claims"] == o["claims"]
    [c] = o["claims"]
    assert (c["refund_amount"], c["payment_status"]) == (1500, "refunded")
    assert [(r["amount"], r["reason"]) for r in o["refunds"]] == [(1500, "claim")]
    assert (o["refunded_total"], o["payment_status"]) == (1500, "partially_refunded")
    assert c["return_order"]["status"] == "requested" and c["return_order"]["refund_amount"] == 0
    assert c["return_order"]["items"][0]["item_id"] == line(order, "variant_cap_black")
    assert await ClaimOrder.filter(order_id=order["id"]).count() == 1
    # Receiving the claim's return refunds nothing more
    r = await client.post(f"/admin/returns/{c['return_order']['id']}/receive", headers=admin_headers,
                          json={"items": [{"item_id": line(order, "variant_cap_black"), "quantity": 1}]})
    assert r.status_code == 200, r.text
    assert await Refund.filter(order_id=order["id"]).count() == 1
    r = await client.post(f"/admin/orders/{order['id']}/claims/{c['id']}/cancel", headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, "Claim with a refund cannot be canceled")


async def test_canceling_a_replacement_claim_gives_its_stock_back_once(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    before = await stock("variant_t_shirt_m")
    c = (await claim(client, admin_headers, order, **replacement(order, await na_option())))["order"]["claims"][0]
    path = f"/admin/orders/{order['id']}/claims/{c['id']}"
    for _ in range(2):
        r = await client.post(f"{path}/cancel", headers=admin_headers)
        assert r.status_code == 200, r.text
    c = r.json()["order"]["claims"][0]
    assert c["canceled_at"] and c["fulfillment_status"] == "canceled"
    assert await stock("variant_t_shirt_m") == before
    r = await client.post(f"{path}/fulfillments", headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, "Canceled claim cannot be fulfilled")


@pytest.mark.parametrize("change,status,message", [
    ({"type": "swap"}, 400, 'Claim type must be one of "refund" or "replace".'),
    ({"claim_items": []}, 400, "Claims must have at least one claim item."),
    ({"additional_items": []}, 400, 'Claims with type "replace" must have at least one additional item.'),
    ({"refund_amount": 100}, 400, 'Claim has type "replace" but must be type "refund" to have a refund_amount.'),
    ({"claim_items": [{"item_id": "$shirt", "quantity": 1, "reason": "meh"}]}, 400,
     'Claim Item reason must be one of "missing_item", "wrong_item", "production_failure" or "other".'),
    ({"claim_items": [{"item_id": "$shirt", "quantity": 3, "reason": "other"}]}, 400,
     "Cannot claim more of an item than has been fulfilled."),
    ({"claim_items": [{"item_id": "item_nope", "quantity": 1, "reason": "other"}]}, 404,
     "Line item with item_nope was not found"),
    ({"additional_items": [{"variant_id": "variant_nope", "quantity": 1}]}, 400, "variant_nope"),
    ({"shipping_methods": [{"option_id": "so_nope"}]}, 404, "Shipping Option with so_nope was not found"),
])
async def test_bad_claims_are_refused_and_nothing_is_written(client, admin_headers, seeded, change, status, message):
    order = await shipped_order(client, admin_headers)
    body = {**replacement(order, await na_option()), **change}
    body["claim_items"] = [{**i, "item_id": line(order, "variant_t_shirt_s") if i["item_id"] == "$shirt" else i["item_id"]}
                           for i in body["claim_items"]]
    before = await stock("variant_t_shirt_m")
    r = await client.post(f"/admin/orders/{order['id']}/claims", json=body, headers=admin_headers)
    assert r.status_code == status, r.text
    assert message in r.json()["message"]
    assert not await ClaimOrder.exists() and not await ClaimItem.exists()
    assert not await LineItem.filter(claim_order_id__not_isnull=True).exists()
    assert await stock("variant_t_shirt_m") == before


async def test_an_unfulfilled_item_cannot_be_claimed_and_routes_need_a_user(client, admin_headers, seeded):
    order = await placed(client)
    lines = await LineItem.filter(order_id=order.id)
    r = await post(client, admin_headers, order.id, "/claims", json={
        "type": "refund", "claim_items": [{"item_id": lines[0].id, "quantity": 1, "reason": "missing_item"}]})
    assert (r.status_code, r.json()["message"]) == (400, "Cannot claim more of an item than has been fulfilled.")
    r = await client.post(f"/admin/orders/{order.id}/claims", json={})
    assert r.status_code == 401
    r = await client.post(f"/admin/orders/{order.id}/claims/claim_nope/cancel", headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (404, "Claim with claim_nope was not found")


async def test_a_claim_is_changed_its_photos_tags_and_shipping_replaced(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    c = (await claim(client, admin_headers, order, **replacement(order, await na_option())))["order"]["claims"][0]
    item = c["claim_items"][0]
    path = f"/admin/orders/{order['id']}/claims/{c['id']}"
    qa = next(t for t in item["tags"] if t["value"] == "qa")
    r = await client.post(path, headers=admin_headers, json={
        "metadata": {"ticket": "Z-1"}, "no_notification": True,
        "shipping_methods": [{"id": order["shipping_methods"][0]["id"]}],
        "claim_items": [{"id": item["id"], "note": "Both seams", "reason": "wrong_item",
                         "images": [{"url": "https://img.example/2.jpg"}], "tags": [{"id": qa["id"]}, {"value": "Urgent "}]}],
    })
    assert r.status_code == 200, r.text
    c = r.json()["order"]["claims"][0]
    item = c["claim_items"][0]
    assert (c["metadata"], c["no_notification"]) == ({"ticket": "Z-1"}, True)
    assert (item["note"], item["reason"]) == ("Both seams", "wrong_item")
    assert [i["url"] for i in item["images"]] == ["https://img.example/2.jpg"]
    assert sorted(t["value"] for t in item["tags"]) == ["qa", "urgent"]
    assert [m["order_id"] for m in c["shipping_methods"]] == [order["id"]]  # the order's method ships it now
    r = await client.post(path, headers=admin_headers, json={"claim_items": [
        {"id": item["id"], "reason": "meh", "images": [], "tags": []}]})
    assert r.status_code == 400 and "Claim Item reason" in r.json()["message"]
    assert (await client.post(f"{path}/cancel", headers=admin_headers)).status_code == 200
    r = await client.post(path, headers=admin_headers, json={"metadata": {"x": 1}})
    assert (r.status_code, r.json()["message"]) == (400, "Canceled claim cannot be updated")


async def test_a_claim_fulfillment_is_called_back_once(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    other = await shipped_order(client, admin_headers)
    c = (await claim(client, admin_headers, order, **replacement(order, await na_option())))["order"]["claims"][0]
    path = f"/admin/orders/{order['id']}/claims/{c['id']}"
    f = (await client.post(f"{path}/fulfillments", headers=admin_headers)).json()["order"]["claims"][0]["fulfillments"][0]
    r = await client.post(f"{path}/shipments", headers=admin_headers, json={"fulfillment_id": other["fulfillments"][0]["id"]})
    assert r.status_code == 404
    for _ in range(2):
        r = await client.post(f"{path}/fulfillments/{f['id']}/cancel", headers=admin_headers)
        assert r.status_code == 200, r.text
    c = r.json()["order"]["claims"][0]
    assert c["fulfillment_status"] == "not_fulfilled" and c["fulfillments"][0]["canceled_at"]
    assert (await LineItem.get(claim_order_id=c["id"])).fulfilled_quantity == 0
    r = await client.post(f"{path}/fulfillments", headers=admin_headers)
    assert r.status_code == 200 and r.json()["order"]["claims"][0]["fulfillment_status"] == "fulfilled"


def cap_refund(order: dict) -> dict:
    return {"type": "refund", "claim_items": [{"item_id": line(order, "variant_cap_black"), "quantity": 1,
                                               "reason": "missing_item"}]}


async def test_a_unit_is_claimed_once_until_its_claim_is_canceled(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    option = await na_option()
    body = {**replacement(order, option), "claim_items": [
        {"item_id": line(order, "variant_cap_black"), "quantity": 1, "reason": "missing_item"}]}
    c = (await claim(client, admin_headers, order, **body))["order"]["claims"][0]
    # The same cap cannot be refunded by a second claim
    r = await client.post(f"/admin/orders/{order['id']}/claims", json=cap_refund(order), headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, "Cannot claim more of an item than has been fulfilled.")
    assert not await Refund.exists()
    # ... until the first claim is canceled
    r = await client.post(f"/admin/orders/{order['id']}/claims/{c['id']}/cancel", headers=admin_headers)
    assert r.status_code == 200, r.text
    await claim(client, admin_headers, order, **cap_refund(order))
    assert await Refund.filter(order_id=order["id"]).count() == 1


@requires_postgres()
async def test_two_concurrent_claims_of_one_unit_refund_it_once(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)
    answers = await asyncio.gather(*(client.post(f"/admin/orders/{order['id']}/claims", json=cap_refund(order),
                                                 headers=admin_headers) for _ in range(2)))
    assert sorted(a.status_code for a in answers) == [200, 400]
    assert await Refund.filter(order_id=order["id"]).count() == 1 and await ClaimOrder.all().count() == 1

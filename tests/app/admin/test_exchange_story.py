"""Issue 19's story end to end over HTTP, on both backends: on one shipped order a merchant
handles a claim with a replacement and a claim with a refund, and exchanges an item for another
size whose difference the shopper pays through the storefront's swap cart. Every operation is
sent twice with the same Idempotency-Key and changes nothing the second time; the order page then
shows each with its statuses and the order's totals."""

from __future__ import annotations

from models import Fulfillment, Payment, ProductVariant, Refund
from tests.app.admin.test_claims import na_option
from tests.app.admin.test_returns import line, shipped_order
from tests.checkout_factories import complete, pay_with_manual


async def twice(client, path: str, headers: dict, key: str, body: dict | None = None) -> dict:
    """POST the same request twice with one key: the second answer is the first, replayed."""
    answers = []
    for _ in range(2):
        r = await client.post(path, json=body or {}, headers={**headers, "Idempotency-Key": key})
        assert r.status_code == 200, r.text
        answers.append(r)
    assert answers[1].headers.get("idempotent-replayed") == "true"
    assert answers[1].json() == answers[0].json()
    return answers[0].json()


async def stock(variant_id: str) -> int:
    return (await ProductVariant.get(id=variant_id)).inventory_quantity


async def test_claims_and_an_exchange_on_one_order_each_change_things_once(client, admin_headers, seeded):
    order = await shipped_order(client, admin_headers)  # 2 shirts S (2000 each), 1 cap (1500), 1000 shipping
    base = f"/admin/orders/{order['id']}"
    shirt_s, cap = line(order, "variant_t_shirt_s"), line(order, "variant_cap_black")
    shirt_m = await stock("variant_t_shirt_m")

    # A claim: one shirt arrived torn; a size M goes out in its place
    o = (await twice(client, f"{base}/claims", admin_headers, "claim-replace", {
        "type": "replace", "claim_items": [{"item_id": shirt_s, "quantity": 1, "reason": "production_failure"}],
        "additional_items": [{"variant_id": "variant_t_shirt_m", "quantity": 1}],
        "shipping_methods": [{"option_id": await na_option(), "price": 0}],
    }))["order"]
    replace = o["claims"][0]
    o = (await twice(client, f"{base}/claims/{replace['id']}/fulfillments", admin_headers, "claim-fulfil"))["order"]
    replace = o["claims"][0]
    o = (await twice(client, f"{base}/claims/{replace['id']}/shipments", admin_headers, "claim-ship",
                     {"fulfillment_id": replace["fulfillments"][0]["id"], "tracking_numbers": ["C-1"]}))["order"]
    assert (o["claims"][0]["fulfillment_status"], o["claims"][0]["payment_status"]) == ("shipped", "na")
    assert await stock("variant_t_shirt_m") == shirt_m - 1

    # A claim: the cap was the wrong one; its money goes back
    o = (await twice(client, f"{base}/claims", admin_headers, "claim-refund", {
        "type": "refund", "claim_items": [{"item_id": cap, "quantity": 1, "reason": "wrong_item"}],
    }))["order"]
    refund_claim = o["claims"][1]
    assert (refund_claim["payment_status"], refund_claim["refund_amount"]) == ("refunded", 1500)

    # An exchange: the other small shirt for a medium, the shopper pays the 100 difference
    o = (await twice(client, f"{base}/swaps", admin_headers, "swap", {
        "return_items": [{"item_id": shirt_s, "quantity": 1}],
        "additional_items": [{"variant_id": "variant_t_shirt_m", "quantity": 1}],
        "custom_shipping_options": [{"option_id": await na_option(), "price": 0}],
    }))["order"]
    s = o["swaps"][0]
    cart_id = s["cart_id"]
    [offer] = (await client.get(f"/store/shipping-options/{cart_id}")).json()["shipping_options"]
    r = await client.post(f"/store/carts/{cart_id}/shipping-methods", json={"option_id": offer["id"]})
    assert r.status_code == 200, r.text
    await pay_with_manual(client, r.json()["cart"])
    first = await complete(client, cart_id, "swap-cart")
    again = await complete(client, cart_id, "swap-cart")
    assert first.status_code == again.status_code == 200, first.text
    assert again.json() == first.json() and first.json()["type"] == "swap"
    assert await stock("variant_t_shirt_m") == shirt_m - 2
    o = (await twice(client, f"{base}/swaps/{s['id']}/process-payment", admin_headers, "swap-pay"))["order"]
    s = o["swaps"][0]
    o = (await twice(client, f"{base}/swaps/{s['id']}/fulfillments", admin_headers, "swap-fulfil"))["order"]
    s = o["swaps"][0]
    o = (await twice(client, f"{base}/swaps/{s['id']}/shipments", admin_headers, "swap-ship",
                     {"fulfillment_id": s["fulfillments"][0]["id"]}))["order"]

    # The order page as the dashboard reads it
    r = await client.get(base, headers=admin_headers, params={
        "expand": "claims.claim_items.item,claims.additional_items.variant.product.profiles,claims.fulfillments,"
                  "swaps.additional_items.variant.product.profiles,swaps.return_order,swaps.fulfillments,"
                  "swaps.payment,refunds,payments"})
    assert r.status_code == 200, r.text
    page = r.json()["order"]
    assert [(c["type"], c["payment_status"], c["fulfillment_status"]) for c in page["claims"]] == [
        ("replace", "na", "shipped"), ("refund", "refunded", "not_fulfilled")]
    [s] = page["swaps"]
    assert (s["payment_status"], s["fulfillment_status"], s["difference_due"]) == ("captured", "shipped", 100)
    assert s["return_order"]["status"] == "requested"
    assert [(x["amount"], x["reason"]) for x in page["refunds"]] == [(1500, "claim")]
    assert (page["paid_total"], page["refunded_total"], page["payment_status"]) == (6600, 1500, "partially_refunded")
    # Each thing happened once
    assert await Refund.filter(order_id=order["id"]).count() == 1
    assert await Payment.filter(swap_id=s["id"], captured_at__not_isnull=True).count() == 1
    assert await Fulfillment.filter(claim_order_id=page["claims"][0]["id"]).count() == 1
    assert await Fulfillment.filter(swap_id=s["id"]).count() == 1

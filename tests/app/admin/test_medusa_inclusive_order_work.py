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


# Where ours differs from Medusa on purpose, (Medusa's, ours) by order (docs/medusaref.md's list).
_UK_MUG = {"items[MUG].refundable": (2501, 2500)}  # refundable never exceeds what the line paid
MEDUSA_FAULTS = {
    "uk-freeship": _UK_MUG, "uk-giftcard": _UK_MUG, "uk-pct": {"items[MUG].refundable": (2201, 2200)},
    # A 500 discount takes 500 off (Medusa takes 688 in this cart mixing inclusive and exclusive
    # lines), and the refund claim of the Tee gives back what the line paid (2737 here), where
    # Medusa's claim ignores the line's discount (2500 plus 21 %: 3025, though its line paid 2564).
    "eu-fixed": {
        "order.discount_total": (688, 500), "order.tax_total": (1124, 1164), "order.total": (6480, 6708),
        "order.paid_total": (6480, 6708), "order.refunded_total": (3025, 2737),
        "order.refundable_amount": (3455, 3971), "order.item_tax_total": (956, 996),
        "items[POSTER].discount_total": (119, 74), "items[POSTER].tax_total": (138, 148),
        "items[POSTER].total": (796, 851), "items[POSTER].refundable": (796, 851),
        "items[TEE-S].discount_total": (381, 238), "items[TEE-S].tax_total": (445, 475),
        "items[TEE-S].total": (2564, 2737), "items[TEE-S].refundable": (2564, 2737),
        "payments[pay_01M8JYJBHF8614NCYQM14SEDAE].amount": (6480, 6708),
        "payments[pay_01M8JYJBHF8614NCYQM14SEDAE].amount_refunded": (3025, 2737),
        "refunds[ref_01M8JYM9C3KTHX5GKS505MXNJY].amount": (3025, 2737),
        "claims[claim_01M8JYM981XDD3NPJ3NEHT4DVM].refund_amount": (3025, 2737)},
    # The exchange's Cap does not get FIXEDUS's whole 500 again (Medusa's Cap costs 540 and the
    # shopper gets 102 back): the Cap at its 1080 less the Poster's 643 is 437 to pay, captured.
    "us-fixed": {
        "order.paid_total": (6858, 7295), "order.refunded_total": (102, 0), "order.refundable_amount": (6756, 7295),
        "payments[pay_01M8JYJV72Y7S1FXXR1KT8XTDG].amount_refunded": (102, 0),
        "refunds[ref_01M8JYM5P3GG4F3WGMMNRJPGFW].amount": (102, None),
        "refunds[ref_01M8JYM5P3GG4F3WGMMNRJPGFW].reason": ("swap", None),
        "swaps[swap_01M8JYM30AAB857RXV9PAAJJZP].difference_due": (-102, 437),
        "swaps[swap_01M8JYM30AAB857RXV9PAAJJZP].payment_status": ("difference_refunded", "captured")},
}
# Where Medusa's line cannot be had in whole units (tests/app/store/test_medusa_inclusive_carts.py
# WHOLE_UNITS): the US Mug takes 257 of FIXEDUS to keep Medusa's tax on 256.41 (219); its
# refundable is Medusa's per-unit rule on 257 (129 a unit).
WHOLE_UNITS = {"us-fixed": {"items[MUG].discount_total": (256, 257), "items[MUG].total": (2963, 2962),
                            "items[MUG].refundable": (2964, 2961)}}


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
    # (but our own where we differ on purpose or whole units cannot give Medusa's line)
    found = order_differences(ANSWERS["orders"][medusa_cart["order_id"]], ours, same_ids=False)
    expected = {**MEDUSA_FAULTS.get(name, {}), **WHOLE_UNITS.get(name, {})}
    assert found == expected, f"{name}: {len(found)} differ (Medusa's, ours): {found}"

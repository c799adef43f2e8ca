"""Every relation path the admin order routes accept answers 200 with that relation in the answer
Medusa v1's lists of what lies under an order (its order, swap, claim and return
routes, and the dashboard's pages) are accepted, on an order that has one of everything."""

from __future__ import annotations

from app.shapes.orders import ADMIN_ALLOWED_RELATIONS
from models import ReturnItem, ReturnReason, TrackingLink
from tests.app.admin.test_claims import na_option
from tests.app.admin.test_returns import line, return_option, shipped_order
from tests.app.admin.test_swaps import pay_swap_cart
from tests.conftest import count_queries

# Medusa v1.20.10's `defaultAdminOrdersRelations` (types/orders.ts) is ADMIN_RELATIONS; these are
# the other lists naming what lies under an order, rooted at the order.
MEDUSA_PATHS = (
    # The dashboard's order page (admin-ui use-admin-expand-paramter.ts) and exchange page
    "claims.claim_items.item", "claims.fulfillments", "claims.return_order",
    "claims.additional_items.variant.product.profiles", "swaps.return_order",
    "swaps.additional_items.variant.product.profiles", "swaps.fulfillments", "edits",
    "swaps", "swaps.return_order.items", "swaps.additional_items", "items",
    # The order routes' answers (x-expanded-relations of routes/admin/orders/*)
    "claims.additional_items.tax_lines", "claims.additional_items.adjustments", "swaps.additional_items.tax_lines",
    "swaps.additional_items.adjustments", "items.tax_lines", "items.adjustments", "items.variant",
    "items.variant.product", "items.variant.product.profiles", "returns.items.reason",
    # The swap route's defaults (routes/admin/swaps), under the order's swaps, but its cart and order
    "swaps.additional_items.adjustments", "swaps.fulfillments", "swaps.payment", "swaps.return_order",
    "swaps.shipping_address", "swaps.shipping_methods", "swaps.shipping_methods.shipping_option",
)
# Relations the walk's order has none of (no discount, gift card or edit): their key shows, empty.
EMPTY_HERE = {"discounts", "gift_cards", "gift_card_transactions", "edits", "items.adjustments",
              "claims.additional_items.adjustments", "swaps.additional_items.adjustments",
              "claims.return_order.items.reason"}


async def busy_order(client, admin_headers) -> str:
    """A shipped order with a refund, a claimed replacement with its return (shipped back) fulfilled
    and shipped, and an exchange (its return shipped back too) paid, fulfilled and shipped."""
    order = await shipped_order(client, admin_headers)  # 2 shirts S, 1 cap, captured, fulfilled, shipped
    base, option = f"/admin/orders/{order['id']}", (await return_option(0)).id
    shirt = line(order, "variant_t_shirt_s")

    async def post(path: str, body: dict) -> dict:
        r = await client.post(f"{base}{path}", json=body, headers=admin_headers)
        assert r.status_code == 200, r.text
        return r.json()["order"]

    await post("/refund", {"amount": 100, "reason": "discount"})
    await post("", {"billing_address": {"first_name": "Jane", "address_1": "1 Main St", "country_code": "us"}})
    await TrackingLink.create(fulfillment_id=order["fulfillments"][0]["id"], tracking_number="O-1")
    reason = await ReturnReason.create(value="too_small", label="Too small")
    o = await post("/claims", {
        "type": "replace", "return_shipping": {"option_id": option},
        "claim_items": [{"item_id": shirt, "quantity": 1, "reason": "production_failure", "tags": ["seam"],
                         "images": ["https://img.example/1.jpg"]}],
        "additional_items": [{"variant_id": "variant_t_shirt_m", "quantity": 1}],
        "shipping_methods": [{"option_id": await na_option(), "price": 0}],
    })
    claim = o["claims"][0]["id"]
    # The claim's return is the order's return: its item gets a reason (the API gives a claim's none)
    await ReturnItem.filter(return_id=o["claims"][0]["return_order"]["id"]).update(reason_id=reason.id)
    o = await post(f"/claims/{claim}/fulfillments", {})
    await post(f"/claims/{claim}/shipments", {"fulfillment_id": o["claims"][0]["fulfillments"][0]["id"],
                                              "tracking_numbers": ["C-1"]})
    o = await post("/swaps", {
        "return_items": [{"item_id": shirt, "quantity": 1, "reason_id": reason.id}],
        "return_shipping": {"option_id": option},
        "additional_items": [{"variant_id": "variant_t_shirt_m", "quantity": 1}],
        "custom_shipping_options": [{"option_id": await na_option(), "price": 0}],
    })
    swap = o["swaps"][0]
    assert (await pay_swap_cart(client, swap)).status_code == 200
    await post(f"/swaps/{swap['id']}/process-payment", {})
    o = await post(f"/swaps/{swap['id']}/fulfillments", {})
    await post(f"/swaps/{swap['id']}/shipments", {"fulfillment_id": o["swaps"][0]["fulfillments"][0]["id"],
                                                  "tracking_numbers": ["S-1"]})
    return order["id"]


def reached(answer: dict, path: str) -> bool:
    """Whether the answer shows `path`: its key is on every object along it. True when a row
    shows its last name; False when the walk ran out of rows before (an empty list, a null)."""
    level: list = [answer]
    for name in path.split("."):
        for row in level:
            assert name in row, f"{path}: no {name!r} in {sorted(row)}"
        values = [row[name] for row in level]
        level = [x for v in values for x in (v if isinstance(v, list) else [v]) if x is not None]
        if not level:
            return False
    return True


async def test_every_relation_medusa_names_under_an_order_is_accepted():
    assert set(MEDUSA_PATHS) <= set(ADMIN_ALLOWED_RELATIONS)


async def test_the_exchange_pages_nested_expand_shows_each_swaps_return_items(client, admin_headers, seeded):
    order_id = await busy_order(client, admin_headers)
    r = await client.get(f"/admin/orders/{order_id}", headers=admin_headers, params={
        "expand": "swaps,swaps.return_order,swaps.return_order.items,swaps.additional_items,items"})
    assert r.status_code == 200, r.text
    [swap] = r.json()["order"]["swaps"]
    assert [i["quantity"] for i in swap["return_order"]["items"]] == [1]
    assert [i["variant_id"] for i in swap["additional_items"]] == ["variant_t_shirt_m"]


async def test_each_accepted_path_shows_its_relation(client, admin_headers, seeded):
    order_id = await busy_order(client, admin_headers)
    unseen = []
    for path in ADMIN_ALLOWED_RELATIONS:
        r = await client.get(f"/admin/orders/{order_id}", headers=admin_headers, params={"expand": path})
        assert r.status_code == 200, f"{path}: {r.text}"
        if not reached(r.json()["order"], path) and not any(path == e or path.startswith(e + ".") for e in EMPTY_HERE):
            unseen.append(path)
    assert unseen == [], unseen


async def test_every_path_at_once_runs_as_many_statements_for_two_claims_as_for_one(client, admin_headers, seeded):
    # Given the busy order, whose answer grows by a second claim (with its return, lines and parcel)
    order_id = await busy_order(client, admin_headers)
    url, every = f"/admin/orders/{order_id}", {"expand": ",".join(ADMIN_ALLOWED_RELATIONS)}
    async with count_queries() as one:
        assert (await client.get(url, headers=admin_headers, params=every)).status_code == 200
    o = (await client.get(url, headers=admin_headers)).json()["order"]
    cap = line(o, "variant_cap_black")
    r = await client.post(f"{url}/claims", headers=admin_headers, json={
        "type": "replace", "return_shipping": {"option_id": (await return_option(0)).id},
        "claim_items": [{"item_id": cap, "quantity": 1, "reason": "wrong_item", "tags": ["cap"]}],
        "additional_items": [{"variant_id": "variant_cap_black", "quantity": 1}],
        "shipping_methods": [{"option_id": await na_option(), "price": 0}],
    })
    assert r.status_code == 200, r.text
    async with count_queries() as two:
        r = await client.get(url, headers=admin_headers, params=every)
    assert r.status_code == 200 and len(r.json()["order"]["claims"]) == 2
    assert len(two) == len(one)

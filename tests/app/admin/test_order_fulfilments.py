"""Fulfilments and shipments over HTTP: the lines'
counters and the order's fulfillment status move once, under an Idempotency-Key like capture's."""

from __future__ import annotations

import asyncio

import pytest

from models import Fulfillment, FulfillmentProvider, LineItem, Order, ShippingMethod, ShippingOption, TrackingLink
from services.fulfillment import _PROVIDERS as FULFILLERS
from services.fulfillment import register
from services.fulfillment.manual import ManualProvider
from tests.app.admin.test_order_operations import placed, post
from tests.conftest import requires_postgres

THREE = {"variant_t_shirt_s": 2, "variant_sweatshirt_s": 1, "variant_cap_black": 1}


def items(order: dict, **quantities: int) -> list[dict]:
    """{item_id, quantity} of the order's lines by variant id."""
    by_variant = {i["variant_id"]: i["id"] for i in order["items"]}
    return [{"item_id": by_variant[v], "quantity": q} for v, q in quantities.items()]


async def order_json(client, admin_headers, order_id: str) -> dict:
    return (await client.get(f"/admin/orders/{order_id}", headers=admin_headers)).json()["order"]


async def fulfil(client, admin_headers, order_id: str, lines: list[dict], status: int = 200, **more):
    r = await post(client, admin_headers, order_id, "/fulfillment", json={"items": lines, **more})
    assert r.status_code == status, r.text
    return r.json()


async def test_fulfilling_and_shipping_move_the_counters_and_the_status(client, admin_headers, seeded):
    order = await order_json(client, admin_headers, (await placed(client, items=THREE)).id)
    # Part of the order is fulfilled
    body = await fulfil(client, admin_headers, order["id"], items(order, variant_t_shirt_s=1, variant_cap_black=1))
    o = body["order"]
    assert o["fulfillment_status"] == "partially_fulfilled"
    [first] = o["fulfillments"]
    assert (first["provider_id"], first["shipped_at"], first["canceled_at"]) == ("manual", None, None)
    assert sorted(i["quantity"] for i in first["items"]) == [1, 1]
    assert {i["variant_id"]: i["fulfilled_quantity"] for i in o["items"]} == {
        "variant_t_shirt_s": 1, "variant_sweatshirt_s": None, "variant_cap_black": 1}
    # ... then the rest
    o = (await fulfil(client, admin_headers, order["id"],
                      items(order, variant_t_shirt_s=1, variant_sweatshirt_s=1)))["order"]
    assert o["fulfillment_status"] == "fulfilled" and len(o["fulfillments"]) == 2
    # The first parcel leaves with two tracking numbers
    r = await post(client, admin_headers, order["id"], "/shipment",
                   json={"fulfillment_id": first["id"], "tracking_numbers": ["T-1", "T-2"]})
    assert r.status_code == 200, r.text
    o = r.json()["order"]
    assert o["fulfillment_status"] == "partially_shipped"
    shipped = next(f for f in o["fulfillments"] if f["id"] == first["id"])
    assert shipped["shipped_at"] and [t["tracking_number"] for t in shipped["tracking_links"]] == ["T-1", "T-2"]
    assert shipped["tracking_numbers"] == ["T-1", "T-2"]
    # ... and the second
    second = next(f for f in o["fulfillments"] if f["id"] != first["id"])
    o = (await post(client, admin_headers, order["id"], "/shipment", json={"fulfillment_id": second["id"]})).json()
    assert o["order"]["fulfillment_status"] == "shipped"
    assert all(i["shipped_quantity"] == i["quantity"] for i in o["order"]["items"])


async def test_a_shipped_fulfillment_is_shipped_once_and_cannot_be_canceled(client, admin_headers, seeded):
    order = await order_json(client, admin_headers, (await placed(client, items=THREE)).id)
    f = (await fulfil(client, admin_headers, order["id"], items(order, variant_cap_black=1)))["order"]["fulfillments"][0]
    assert (await post(client, admin_headers, order["id"], "/shipment", json={"fulfillment_id": f["id"]})).status_code == 200
    r = await post(client, admin_headers, order["id"], "/shipment", json={"fulfillment_id": f["id"]})
    assert (r.status_code, r.json()["message"]) == (400, "The fulfillment has already been shipped")
    r = await post(client, admin_headers, order["id"], f"/fulfillments/{f['id']}/cancel")
    assert (r.status_code, r.json()["message"]) == (
        400, "The fulfillment has already been shipped. Shipped fulfillments cannot be canceled")
    assert (await LineItem.get(id=f["items"][0]["item_id"])).shipped_quantity == 1


async def test_canceling_a_fulfillment_gives_its_units_back_once(client, admin_headers, seeded):
    order = await order_json(client, admin_headers, (await placed(client, items=THREE)).id)
    o = (await fulfil(client, admin_headers, order["id"], items(order, variant_t_shirt_s=2)))["order"]
    kept = (await fulfil(client, admin_headers, order["id"], items(order, variant_cap_black=1)))["order"]
    canceled_id = o["fulfillments"][0]["id"]
    for _ in range(2):  # a repeat changes nothing
        r = await post(client, admin_headers, order["id"], f"/fulfillments/{canceled_id}/cancel")
        assert r.status_code == 200, r.text
    o = r.json()["order"]
    assert {i["variant_id"]: i["fulfilled_quantity"] for i in o["items"]}["variant_t_shirt_s"] == 0
    # Another fulfillment is still live: the status says so (Medusa would say "canceled")
    assert o["fulfillment_status"] == "partially_fulfilled"
    assert next(f for f in o["fulfillments"] if f["id"] == canceled_id)["canceled_at"]
    # A canceled fulfillment cannot be shipped; the units can be fulfilled again
    r = await post(client, admin_headers, order["id"], "/shipment", json={"fulfillment_id": canceled_id})
    assert (r.status_code, r.json()["message"]) == (400, "Fulfillment has been canceled")
    await fulfil(client, admin_headers, order["id"], items(order, variant_t_shirt_s=2))
    assert len(kept["fulfillments"]) == 2


@pytest.mark.parametrize("body,status,message", [
    ({"items": []}, 400, "items must contain at least 1 element"),
    ({"items": [{"item_id": "item_nope", "quantity": 1}]}, 404, "Line item with id item_nope was not found"),
    ({"items": "x"}, 400, "items"),
    ({"items": [{"item_id": "", "quantity": 1}]}, 400, "item_id"),
    ({"items": [{"item_id": "$cap", "quantity": 0}]}, 400, "quantity must not be less than 1"),
    ({"items": [{"item_id": "$cap", "quantity": 2}]}, 400, "Cannot fulfill more items than have been purchased"),
    ({"items": [{"item_id": "$cap", "quantity": 1}, {"item_id": "$cap", "quantity": 1}]}, 400, "more than once"),
    ({"items": [{"item_id": "$cap", "quantity": "1"}]}, 400, "quantity"),
])
async def test_bad_fulfillments_are_refused_and_nothing_is_written(client, admin_headers, seeded, body, status, message):
    order = await order_json(client, admin_headers, (await placed(client, items=THREE)).id)
    cap = items(order, variant_cap_black=1)[0]["item_id"]
    if isinstance(body["items"], list):
        body = {"items": [{**i, "item_id": cap if i["item_id"] == "$cap" else i["item_id"]} for i in body["items"]]}
    r = await post(client, admin_headers, order["id"], "/fulfillment", json=body)
    assert r.status_code == status, r.text
    assert message in r.json()["message"]
    assert not await Fulfillment.exists()
    assert not await LineItem.filter(order_id=order["id"], fulfilled_quantity__gt=0).exists()


async def test_wrong_states_and_ids_get_medusas_answers(client, admin_headers, seeded):
    order = await order_json(client, admin_headers, (await placed(client, items=THREE)).id)
    other = await order_json(client, admin_headers, (await placed(client)).id)
    f = (await fulfil(client, admin_headers, order["id"], items(order, variant_cap_black=1)))["order"]["fulfillments"][0]
    r = await post(client, admin_headers, other["id"], "/shipment", json={"fulfillment_id": f["id"]})
    assert (r.status_code, r.json()["message"]) == (404, "Could not find fulfillment")
    r = await post(client, admin_headers, other["id"], f"/fulfillments/{f['id']}/cancel")
    assert r.status_code == 404
    r = await post(client, admin_headers, order["id"], "/shipment", json={"fulfillment_id": "ful_nope"})
    assert (r.status_code, r.json()["message"]) == (404, "Fulfillment with id: ful_nope was not found")
    r = await post(client, admin_headers, "order_nope", "/fulfillment", json={"items": items(order, variant_cap_black=1)})
    assert r.status_code == 404
    assert (await post(client, admin_headers, other["id"], "/cancel")).status_code == 200
    r = await post(client, admin_headers, other["id"], "/fulfillment", json={"items": items(other, variant_cap_black=1)})
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed", "message": "A canceled order cannot be fulfilled"})
    await ShippingMethod.filter(order_id=order["id"]).delete()
    r = await post(client, admin_headers, order["id"], "/fulfillment", json={"items": items(order, variant_t_shirt_s=1)})
    assert (r.status_code, r.json()["message"]) == (400, "Cannot fulfill an order that lacks shipping methods")


async def test_a_fulfillment_replays_for_its_key(client, admin_headers, seeded):
    order = await order_json(client, admin_headers, (await placed(client, items=THREE)).id)
    headers = {**admin_headers, "Idempotency-Key": "fulfil-1"}
    body = {"items": items(order, variant_t_shirt_s=1)}
    first = await post(client, headers, order["id"], "/fulfillment", json=body)
    again = await post(client, headers, order["id"], "/fulfillment", json=body)
    assert first.status_code == again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert await Fulfillment.filter(order_id=order["id"]).count() == 1
    assert (await LineItem.get(id=body["items"][0]["item_id"])).fulfilled_quantity == 1


class FailingCarrier(ManualProvider):
    id = "failing-carrier"

    async def create_fulfillment(self, method_data: dict, items: list[dict], order_id: str) -> dict:
        raise ConnectionError("carrier down")


async def test_a_carrier_failing_leaves_nothing_and_answers_503(client, admin_headers, seeded):
    register(FailingCarrier())
    await FulfillmentProvider.create(id="failing-carrier", is_installed=True)
    try:
        order = await order_json(client, admin_headers, (await placed(client, items=THREE)).id)
        method = await ShippingMethod.get(order_id=order["id"]).prefetch_related("shipping_option")
        await ShippingOption.filter(id=method.shipping_option_id).update(provider_id="failing-carrier")
        r = await post(client, {**admin_headers, "Idempotency-Key": "f-1"}, order["id"], "/fulfillment",
                       json={"items": items(order, variant_t_shirt_s=1)})
        assert (r.status_code, r.json()["code"]) == (503, "provider_unavailable")
        assert not await Fulfillment.exists() and not await TrackingLink.exists()
        assert (await Order.get(id=order["id"])).fulfillment_status == "not_fulfilled"
    finally:
        FULFILLERS.pop("failing-carrier", None)


async def test_a_shipping_method_is_added_taxed_and_replaces_its_profiles_one(client, admin_headers, seeded):
    order = await order_json(client, admin_headers, (await placed(client)).id)
    option = await ShippingOption.get(name="NA Flat Rate")
    r = await post(client, admin_headers, order["id"], "/shipping-methods", json={"option_id": option.id, "price": 700})
    assert r.status_code == 200, r.text
    o = r.json()["order"]
    assert [(m["shipping_option_id"], m["price"]) for m in o["shipping_methods"]] == [(option.id, 700)]
    assert o["shipping_total"] == 700 and o["shipping_methods"][0]["tax_lines"]
    r = await post(client, admin_headers, order["id"], "/shipping-methods", json={"option_id": "so_nope", "price": 1})
    assert (r.status_code, r.json()["message"]) == (404, "Shipping Option with so_nope was not found")
    for price in (-1, 10**20):
        r = await post(client, admin_headers, order["id"], "/shipping-methods", json={"option_id": option.id, "price": price})
        assert r.status_code == 400 and "price" in r.json()["message"]
    r = await post(client, admin_headers, order["id"], "/shipment", json={"fulfillment_id": "ful_" + "9" * 300})
    assert r.status_code == 404


@requires_postgres()
async def test_five_concurrent_fulfillments_of_the_last_unit_fulfil_it_once(client, admin_headers, seeded):
    order = await order_json(client, admin_headers, (await placed(client, items=THREE)).id)
    body = {"items": items(order, variant_cap_black=1)}
    answers = await asyncio.gather(*(post(client, admin_headers, order["id"], "/fulfillment", json=body)
                                     for _ in range(5)))
    assert sorted(a.status_code for a in answers) == [200] + [400] * 4
    assert (await LineItem.get(id=body["items"][0]["item_id"])).fulfilled_quantity == 1
    assert await Fulfillment.filter(order_id=order["id"]).count() == 1

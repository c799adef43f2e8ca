"""A signed-in customer's own orders: `GET /store/customers/me/orders`."""

from __future__ import annotations

from models import Order
from tests.cart_factories import shopper
from tests.order_factories import STORE_RELATIONS, STORE_TOTALS, place_order

STORE_COLUMNS = {
    "id", "status", "fulfillment_status", "payment_status", "display_id", "cart_id", "customer_id", "email",
    "region_id", "currency_code", "tax_rate", "created_at",
}


async def mine(client, headers, **params) -> dict:
    r = await client.get("/store/customers/me/orders", params=params, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


async def test_without_signing_in_the_list_is_a_json_401(client, seeded):
    r = await client.get("/store/customers/me/orders")
    assert (r.status_code, r.json()) == (401, {"type": "unauthorized", "message": "Unauthorized"})


async def test_a_customer_sees_only_their_own_orders_even_when_naming_anothers(client, seeded):
    # Given Jane with two orders and Bob with one
    jane, jane_headers = await shopper(client, email="jane@example.com")
    bob, bob_headers = await shopper(client, email="bob@example.com")
    janes = [await place_order(client, headers=jane_headers) for _ in range(2)]
    bobs = await place_order(client, headers=bob_headers)
    # When each lists their orders
    body = await mine(client, jane_headers)
    # I expect Jane's, newest first, ten to a page, with the store's shape and totals
    assert [o["id"] for o in body["orders"]] == [janes[1].id, janes[0].id]
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 10)
    assert set(body["orders"][0]) == STORE_COLUMNS | STORE_RELATIONS | STORE_TOTALS | {"object"}
    assert body["orders"][0]["total"] == 3000 and body["orders"][0]["customer_id"] == jane.id
    assert [o["id"] for o in (await mine(client, bob_headers))["orders"]] == [bobs.id]
    # and Bob's order stays out of Jane's list whatever she filters by
    for params in ({"id": bobs.id}, {"cart_id": bobs.cart_id}, {"display_id": bobs.display_id},
                   {"email": "bob@example.com"}, {"q": "bob"}):
        assert (await mine(client, jane_headers, **params)) == {"orders": [], "count": 0, "offset": 0, "limit": 10}
    r = await client.get("/store/customers/me/orders", params={"customer_id": bob.id}, headers=jane_headers)
    assert (r.status_code, r.json()["message"]) == (400, "property customer_id should not exist")


async def test_status_filters_keep_the_orders_in_those_states(client, seeded):
    # Given Jane's completed, canceled and pending orders
    _, headers = await shopper(client)
    completed = await place_order(client, headers=headers, status="completed")
    canceled = await place_order(client, headers=headers, status="canceled")
    pending = await place_order(client, headers=headers)
    # I expect each status filter to keep its orders
    body = await mine(client, headers, **{"status[]": "completed"})
    assert [o["id"] for o in body["orders"]] == [completed.id]
    body = await mine(client, headers, **{"status[]": ["canceled", "completed"]})
    assert {o["id"] for o in body["orders"]} == {canceled.id, completed.id}
    body = await mine(client, headers, display_id=pending.display_id)
    assert [o["id"] for o in body["orders"]] == [pending.id]
    body = await mine(client, headers, **{"payment_status[]": "awaiting", "region_id": pending.region_id})
    assert body["count"] == 3
    await Order.filter(id=pending.id).update(currency_code="eur")
    assert [o["id"] for o in (await mine(client, headers, currency_code="eur"))["orders"]] == [pending.id]


async def test_paging_and_fields_follow_the_query_conventions(client, seeded):
    _, headers = await shopper(client)
    placed = [await place_order(client, headers=headers) for _ in range(3)]
    body = await mine(client, headers, limit=1, offset=1, fields="status", expand="items")
    assert (body["count"], body["limit"], body["offset"]) == (3, 1, 1)
    assert [o["id"] for o in body["orders"]] == [placed[1].id]
    assert set(body["orders"][0]) == {"id", "created_at", "status", "items"} | STORE_TOTALS


async def test_bad_filters_are_clear_400s(client, seeded):
    _, headers = await shopper(client)
    cases = [
        ({"status[]": "lost"}, "each value in status must be one of the following values: pending, completed, "
                               "archived, canceled, requires_action"),
        ({"fulfillment_status[]": "lost"}, "each value in fulfillment_status must be one of the following values: "
         "not_fulfilled, partially_fulfilled, fulfilled, partially_shipped, shipped, partially_returned, returned, "
         "canceled, requires_action"),
        ({"fields": "idempotency_key"}, "Requested fields [idempotency_key] are not valid"),
        ({"sales_channel_id": "sc_1"}, "property sales_channel_id should not exist"),
    ]
    for params, message in cases:
        r = await client.get("/store/customers/me/orders", params=params, headers=headers)
        assert (r.status_code, r.json()["message"]) == (400, message), params

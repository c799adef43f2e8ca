"""The order list's lean page (services/orders/list_reads.py) against the full views it stands in
for: for every query whose answer shows only the orders' columns, totals and one-row relations, the
list answers byte for byte what it answers read the general way (services/orders/view.py), on both
backends, over orders with discounts, gift cards, refunds, tax-inclusive lines, a canceled payment,
an order's own tax rate and no shipping address, and over the real Medusa v1 shops moved in; and the
page costs the same statements whatever its size."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from urllib.parse import urlencode

import pytest

from models import LineItem, Order, Payment, ShippingMethod
from services.orders import listing
from services.orders.list_reads import read_listed, reads_lean
from tests.app.admin.test_orders import DASHBOARD_LIST
from tests.cart_factories import discount, gift_card, shopper
from tests.conftest import count_queries
from tests.order_factories import place_order
from tests.services.batch_jobs.test_order_export_reads import newest_first, vary
from tests.services.migration.conftest import (  # noqa: F401 (fixtures)
    imported, imported_inclusive, medusa_inclusive_source, medusa_source,
)

_TOTALS = (
    "shipping_total,discount_total,tax_total,refunded_total,total,subtotal,paid_total,refundable_amount,"
    "gift_card_total,gift_card_tax_total,item_tax_total,shipping_tax_total"
)
_EVERY_ONE_ROW = "shipping_address,billing_address,customer,sales_channel,region"
# The admin's list queries read lean: the dashboard's, without `total`, with every other total,
# with each cheap relation alone and all at once, without `fields` (every order of the moved shop,
# page by page), with a relation named in `fields`, filtered, paged, ordered and searched.
ADMIN_QUERIES = [
    urlencode(DASHBOARD_LIST),
    urlencode({**DASHBOARD_LIST, "fields": "id,status,display_id,created_at,email,payment_status,currency_code"}),
    urlencode({**DASHBOARD_LIST, "fields": f"id,{_TOTALS}"}),
    *(f"expand={name}&limit=100" for name in (*_EVERY_ONE_ROW.split(","), "edits")),
    f"expand={_EVERY_ONE_ROW},edits&fields=id,object,metadata,tax_rate,canceled_at,total&limit=100",
    "expand=&limit=100", "expand=&limit=100&offset=100", "expand=&limit=100&offset=200",
    "expand=customer&fields=id,customer.email,shipping_address.city&limit=100",
    urlencode({**DASHBOARD_LIST, "payment_status[]": "captured"}),
    urlencode({**DASHBOARD_LIST, "offset": "3", "limit": "4", "order": "display_id"}),
    urlencode({**DASHBOARD_LIST, "q": "example"}),
]
STORE_QUERIES = ["expand=shipping_address", "expand=region,customer,billing_address&fields=id,total,display_id", "expand="]


async def _answer(client, path: str, query: str, headers: dict) -> bytes:
    r = await client.get(f"{path}?{query}", headers=headers)
    assert r.status_code == 200, (query, r.text)
    return r.content


async def assert_lean_answers_as_the_views(
    client, headers, monkeypatch, queries, path="/admin/orders",
) -> list[dict]:
    """Each query answered lean, then the general way: the same bytes. The lean answers' orders."""
    read, lean_pages = listing.read_listed, []

    async def counted(ids, relations):
        lean_pages.append(relations)
        return await read(ids, relations)

    monkeypatch.setattr(listing, "read_listed", counted)
    lean = [await _answer(client, path, q, headers) for q in queries]
    assert len(lean_pages) == len(queries)  # every one was read lean
    monkeypatch.setattr(listing, "reads_lean", lambda relations: False)
    general = [await _answer(client, path, q, headers) for q in queries]
    assert len(lean_pages) == len(queries)  # and none of these
    assert sum(len(json.loads(a)["orders"]) for a in lean) > len(queries)
    for query, mine, theirs in zip(queries, lean, general):
        assert json.loads(mine) == json.loads(theirs), query
        assert mine == theirs, query
    return [order for answer in lean for order in json.loads(answer)["orders"]]


def _told_apart(orders: list[dict]) -> set[str]:
    """The totals some of `orders` have."""
    return {key for key in ("discount_total", "gift_card_total", "refunded_total", "tax_total", "paid_total")
            if any(o[key] for o in orders)}


async def _shop(client, admin_headers) -> dict:
    """Orders of every kind the totals tell apart; a shopper's headers."""
    await discount("TENOFF")
    await discount("FIVEOFF", kind="fixed", value=500, regions=("NA",))
    card = await gift_card(1500)
    _, headers = await shopper(client)
    await place_order(client, "NA", {"variant_t_shirt_s": 2, "variant_cap_black": 1}, headers=headers,
                      discount_code="TENOFF")
    await place_order(client, "NA", {"variant_cap_black": 2}, discount_code="FIVEOFF", headers=headers)
    await place_order(client, "NA", {"variant_t_shirt_s": 1}, gift_card_codes=(card.code,))
    refunded = await place_order(client, "EU", {"variant_t_shirt_s": 3})
    for path, body in (("capture", {}), ("refund", {"amount": 700, "reason": "discount"})):
        r = await client.post(f"/admin/orders/{refunded.id}/{path}", json=body, headers=admin_headers)
        assert r.status_code == 200, r.text
    inclusive = await place_order(client, "EU", {"variant_cap_black": 1, "variant_t_shirt_s": 1})
    await LineItem.filter(order_id=inclusive.id).update(includes_tax=True)
    await ShippingMethod.filter(order_id=inclusive.id).update(includes_tax=True)
    canceled = await place_order(client, "NA", status="canceled", payment_status="canceled",
                                 canceled_at=datetime.now(timezone.utc))
    await Payment.filter(order_id=canceled.id).update(canceled_at=datetime.now(timezone.utc))
    await place_order(client, "NA", tax_rate=12.5, metadata={"note": "own rate"})
    bare = await place_order(client, "EU", shipping=None)
    await Order.filter(id=bare.id).update(shipping_address_id=None)
    return {"shopper": headers}


async def test_the_lean_page_answers_each_query_as_the_views_do(client, admin_headers, seeded, monkeypatch):
    await _shop(client, admin_headers)
    orders = await assert_lean_answers_as_the_views(client, admin_headers, monkeypatch, ADMIN_QUERIES)
    assert _told_apart(orders) == {"discount_total", "gift_card_total", "refunded_total", "tax_total", "paid_total"}


async def test_a_customers_own_list_answers_lean_as_the_views_do(client, admin_headers, seeded, monkeypatch):
    shop = await _shop(client, admin_headers)
    orders = await assert_lean_answers_as_the_views(client, shop["shopper"], monkeypatch, STORE_QUERIES,
                                                    "/store/customers/me/orders")
    assert len(orders) == 2 * len(STORE_QUERIES) and _told_apart(orders) >= {"discount_total"}  # her two orders


def test_only_answers_without_rows_below_the_orders_read_lean():
    assert reads_lean(("shipping_address",)) and reads_lean(()) and reads_lean(tuple(_EVERY_ONE_ROW.split(",")))
    for below in ("items", "payments", "discounts", "fulfillments", "refunds", "returns", "claims", "swaps",
                  "gift_cards", "gift_card_transactions", "shipping_methods", "items.variant"):
        assert not reads_lean(("shipping_address", below)), below


async def test_the_moved_shop_lists_lean_as_its_views_do(imported, admin_headers, client, monkeypatch):
    # Given the moved Medusa shop (gift cards, refunds, returns, swaps, claims, currencies), varied
    # with discounts, an order's own rate, a returned line and no address, and a canceled payment
    ids = await newest_first()
    await vary(ids)
    await Payment.filter(order_id=ids[-1]).update(canceled_at=datetime.now(timezone.utc))
    # I expect every query answered lean as read the general way
    orders = await assert_lean_answers_as_the_views(client, admin_headers, monkeypatch, ADMIN_QUERIES)
    assert _told_apart(orders) == {"discount_total", "gift_card_total", "refunded_total", "tax_total", "paid_total"}


async def test_the_tax_inclusive_shop_lists_lean_as_its_views_do(imported_inclusive, admin_headers, client,
                                                                   monkeypatch):
    orders = await assert_lean_answers_as_the_views(client, admin_headers, monkeypatch, ADMIN_QUERIES)
    assert "tax_total" in _told_apart(orders)


async def test_a_lean_page_costs_two_statements_whatever_its_size(client, admin_headers, seeded):
    # Given a dozen orders, some of several lines, with a discount and a gift card
    await _shop(client, admin_headers)
    for n in range(4):
        await place_order(client, "EU", {"variant_t_shirt_s": n + 1, "variant_cap_black": 1})
    ids = await newest_first()
    counts = []
    for n in (1, 5, len(ids)):
        async with count_queries() as ran:
            assert len(await read_listed(ids[:n], ("shipping_address", "customer"))) == n
        counts.append(len(ran))
    assert counts == [2, 2, 2]
    # and the dashboard's whole page as many statements for one order as for a full page
    listed = []
    for limit in ("1", "10"):
        async with count_queries() as ran:
            r = await client.get("/admin/orders", params={**DASHBOARD_LIST, "limit": limit}, headers=admin_headers)
        assert len(r.json()["orders"]) == int(limit)
        listed.append(len(ran))
    assert listed[0] == listed[1]


@pytest.mark.parametrize("relations", [(), ("region", "billing_address", "sales_channel")])
async def test_an_unknown_order_is_left_out_and_the_asked_order_kept(client, admin_headers, seeded, relations):
    first, second = await place_order(client, "NA"), await place_order(client, "EU")
    listed = await read_listed([second.id, "order_missing", first.id], relations)
    assert [o.order.id for o in listed] == [second.id, first.id]
    assert all(o.totals.total > 0 for o in listed)

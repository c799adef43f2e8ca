"""Admin orders, reading: the list with its filters and the get."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from app.config import MAX_CACHED_STATEMENT_BYTES
from models import Customer, Discount, LineItem, Order, ProductVariant
from tests.cart_factories import discount, shopper
from tests.conftest import count_queries
from tests.order_factories import STORE_TOTALS, place_order

TOTALS = STORE_TOTALS
COLUMNS = {
    "id", "status", "fulfillment_status", "payment_status", "display_id", "cart_id", "draft_order_id", "customer_id",
    "email", "billing_address_id", "shipping_address_id", "region_id", "currency_code", "tax_rate", "canceled_at",
    "no_notification", "idempotency_key", "external_id", "sales_channel_id", "created_at", "updated_at", "metadata",
}
RELATIONS = {
    "billing_address", "claims", "customer", "discounts", "fulfillments", "gift_card_transactions", "gift_cards",
    "items", "payments", "refunds", "region", "returns", "shipping_address", "shipping_methods", "swaps",
    "sales_channel",
}
STATUS_MESSAGE = (
    "each value in status must be one of the following values: pending, completed, archived, canceled, requires_action"
)


async def ids(client, headers, **params) -> list[str]:
    r = await client.get("/admin/orders", params=params, headers=headers)
    assert r.status_code == 200, r.text
    return [o["id"] for o in r.json()["orders"]]


# ---------------------------------------------------------------- authentication


async def test_order_routes_need_a_signed_in_user(client, seeded):
    order = await place_order(client)
    for path in ("/admin/orders", f"/admin/orders/{order.id}"):
        r = await client.get(path)
        assert (r.status_code, r.json()["type"]) == (401, "unauthorized"), path


# ---------------------------------------------------------------- list


async def test_the_list_pages_newest_first_with_every_column_relation_and_total(client, admin_headers, seeded):
    # Given three orders
    placed = [await place_order(client, "NA", {"variant_t_shirt_s": n}) for n in (1, 2, 3)]
    # When the back office lists them
    r = await client.get("/admin/orders", headers=admin_headers)
    # I expect them newest first, fifty to a page, each with its totals
    assert r.status_code == 200
    body = r.json()
    assert (body["count"], body["offset"], body["limit"]) == (3, 0, 50)
    assert [o["id"] for o in body["orders"]] == [o.id for o in reversed(placed)]
    first = body["orders"][0]
    assert set(first) == COLUMNS | RELATIONS | TOTALS | {"object"}
    assert (first["subtotal"], first["shipping_total"], first["total"], first["paid_total"]) == (6000, 1000, 7000, 7000)
    assert first["items"][0]["refundable"] == 6000 and first["swaps"] == [] and first["refunds"] == []
    page = (await client.get("/admin/orders", params={"limit": 1, "offset": 1}, headers=admin_headers)).json()
    assert ([o["id"] for o in page["orders"]], page["count"]) == ([placed[1].id], 3)


async def test_the_dashboards_list_query_shows_its_fields_customer_address_and_totals(client, admin_headers, seeded):
    await place_order(client)
    r = await client.get("/admin/orders", headers=admin_headers, params={
        "fields": "id,status,display_id,created_at,email,fulfillment_status,payment_status,total,currency_code",
        "expand": "customer,shipping_address",
    })
    order = r.json()["orders"][0]
    assert set(order) == {
        "id", "status", "display_id", "created_at", "email", "fulfillment_status", "payment_status", "currency_code",
        "customer", "shipping_address",
    } | TOTALS
    assert order["total"] == 3000 and order["customer"]["email"] == "shopper@example.com"


async def test_fields_and_expand_pick_the_keys_and_every_total_stays(client, admin_headers, seeded):
    await place_order(client)
    r = await client.get("/admin/orders", headers=admin_headers,
                         params={"fields": "id,created_at", "expand": "billing_address"})
    assert set(r.json()["orders"][0]) == {"id", "created_at", "billing_address"} | TOTALS
    r = await client.get("/admin/orders", headers=admin_headers, params={"fields": "id"})
    assert set(r.json()["orders"][0]) == {"id", "created_at"} | RELATIONS | TOTALS


async def test_list_filters_narrow_the_orders(client, admin_headers, seeded):
    # Given orders in both regions, of two emails, in several states
    na = await place_order(client, "NA", email="anna@example.com")
    eu = await place_order(client, "EU", email="bert@example.com", status="completed", payment_status="captured")
    canceled = await place_order(client, "NA", email="anna@example.com", status="canceled",
                                 canceled_at=datetime.now(timezone.utc))
    h = admin_headers
    # I expect each filter to keep exactly its orders
    assert set(await ids(client, h, **{"status[]": "completed"})) == {eu.id}
    assert set(await ids(client, h, **{"status[]": "completed,canceled"})) == {eu.id, canceled.id}
    assert set(await ids(client, h, **{"payment_status[]": "awaiting"})) == {na.id, canceled.id}
    assert set(await ids(client, h, **{"fulfillment_status[]": "not_fulfilled"})) == {na.id, eu.id, canceled.id}
    assert set(await ids(client, h, email="ANNA@example.com")) == {na.id, canceled.id}
    assert set(await ids(client, h, display_id=str(eu.display_id))) == {eu.id}
    assert set(await ids(client, h, region_id=eu.region_id)) == {eu.id}
    assert set(await ids(client, h, currency_code="EUR")) == {eu.id}
    assert set(await ids(client, h, id=na.id)) == {na.id}
    assert set(await ids(client, h, cart_id=na.cart_id)) == {na.id}
    assert set(await ids(client, h, customer_id=eu.customer_id)) == {eu.id}
    assert set(await ids(client, h, sales_channel_id=na.sales_channel_id)) == {na.id, eu.id, canceled.id}
    assert set(await ids(client, h, **{"canceled_at[lt]": "2999-01-01T00:00:00Z"})) == {canceled.id}
    future = (datetime.now(timezone.utc) + timedelta(days=1)).isoformat()
    assert await ids(client, h, **{"created_at[gt]": future}) == []
    assert len(await ids(client, h, **{"created_at[lt]": future})) == 3


async def test_q_searches_email_names_phone_and_number_even_without_a_customer_address(client, admin_headers, seeded):
    # Given Jane's order shipped to "Jane", a guest's order shipped to "Max", and an order with no address
    jane, headers = await shopper(client, email="jane@example.com")
    await Customer.filter(id=jane.id).update(phone="+44 20 7946 0000")
    janes = await place_order(client, headers=headers)
    guests = await place_order(client, email="guest@example.org", address={
        "first_name": "Max", "last_name": "Power", "address_1": "2 High St", "city": "Leeds", "country_code": "us",
        "postal_code": "LS1 1AA",
    })
    bare = await place_order(client, email="bare@example.net")
    await Order.filter(id=bare.id).update(shipping_address_id=None)
    h = admin_headers
    # I expect q to find each by what it holds, and the other filters to still apply with it
    assert set(await ids(client, h, q="jane@")) == {janes.id}
    assert set(await ids(client, h, q="doe")) == {janes.id}  # Jane's last name
    assert set(await ids(client, h, q="7946")) == {janes.id}
    assert set(await ids(client, h, q="max")) == {guests.id}
    assert set(await ids(client, h, q="example.net")) == {bare.id}
    assert set(await ids(client, h, q=f"#{guests.display_id}")) == {guests.id}
    assert await ids(client, h, q="example", email="guest@example.org") == [guests.id]


async def test_list_query_errors_are_clear_400s(client, admin_headers, seeded):
    cases = [
        ({"status[]": "shipped"}, STATUS_MESSAGE),
        ({"payment_status[]": "paid"}, "each value in payment_status must be one of the following values: not_paid, "
                                       "awaiting, captured, partially_refunded, refunded, canceled, requires_action"),
        ({"display_id": "abc"}, "display_id must be an integer number"),
        ({"tax_rate": "high"}, "tax_rate must be a number conforming to the specified constraints"),
        ({"created_at[gt]": "yesterday"}, "gt must be a date (ISO 8601) or unix seconds"),
        ({"color": "red"}, "property color should not exist"),
        ({"order": "password"}, "Order field password is not valid"),
        ({"expand": "cart"}, "Requested relations [cart] are not valid"),
        ({"expand": "returnable_items"}, 'The field "returnable_items" is not supported by this end point. '),
        ({"limit": "-1"}, "limit must not be less than 0"),
    ]
    for params, message in cases:
        r = await client.get("/admin/orders", params=params, headers=admin_headers)
        assert (r.status_code, r.json()["type"], r.json()["message"]) == (400, "invalid_data", message), params


async def test_a_page_of_orders_takes_the_same_statements_for_one_order_or_many(client, admin_headers, seeded):
    # Given one order, then five more of four lines each, with a discount
    await discount("TENOFF")
    variants = await ProductVariant.all().order_by("id").limit(4).values_list("id", flat=True)
    await place_order(client, "NA", {variants[0]: 1}, discount_code="TENOFF")
    async with count_queries() as one:
        r = await client.get("/admin/orders", headers=admin_headers)
    assert len(r.json()["orders"]) == 1
    for _ in range(5):
        await place_order(client, "EU", {v: 2 for v in variants}, discount_code="TENOFF")
    # When the page is read
    async with count_queries() as many:
        r = await client.get("/admin/orders", headers=admin_headers)
    # I expect the same number of statements
    assert len(r.json()["orders"]) == 6 and all(o["discount_total"] > 0 for o in r.json()["orders"])
    assert len(one) == len(many), (len(one), len(many))


# ---------------------------------------------------------------- get


async def test_an_order_read_by_id_shows_every_column_the_default_relations_and_totals(client, admin_headers, seeded):
    await discount("TENOFF", value=10)
    order = await place_order(client, "EU", {"variant_t_shirt_s": 2}, discount_code="TENOFF")
    r = await client.get(f"/admin/orders/{order.id}", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()["order"]
    assert set(body) == COLUMNS | RELATIONS | TOTALS | {"object"}
    assert (body["total"], body["tax_total"], body["discount_total"]) == (5300, 1060, 360)
    assert body["sales_channel"]["id"] == body["sales_channel_id"]
    assert body["shipping_methods"][0]["tax_lines"][0]["rate"] == 25.0


async def test_get_with_fields_and_expand_shows_those_and_the_totals(client, admin_headers, seeded):
    await discount("TENOFF", value=10)
    order = await place_order(client, "NA", {"variant_t_shirt_s": 4}, discount_code="TENOFF")
    r = await client.get(f"/admin/orders/{order.id}", params={"fields": "id", "expand": "region"},
                         headers=admin_headers)
    body = r.json()["order"]
    assert body.pop("region")["name"] == "NA"
    assert body == {
        "id": order.id, "shipping_total": 1000, "shipping_tax_total": 0, "discount_total": 800, "item_tax_total": 0,
        "tax_total": 0, "refunded_total": 0, "total": 8200, "subtotal": 8000, "paid_total": 8200,
        "refundable_amount": 8200, "gift_card_total": 0, "gift_card_tax_total": 0,
    }


async def test_returnable_items_are_the_lines_shipped_more_than_returned(client, admin_headers, seeded):
    # Given an order of two lines, of which one was shipped
    order = await place_order(client, "NA", {"variant_t_shirt_s": 2, "variant_cap_black": 1})
    await LineItem.filter(order_id=order.id, variant_id="variant_t_shirt_s").update(shipped_quantity=2)
    # When the back office asks for the returnable items
    r = await client.get(f"/admin/orders/{order.id}", params={"expand": "returnable_items"}, headers=admin_headers)
    # I expect the shipped line there, and the order with its default relations
    body = r.json()["order"]
    assert [i["variant_id"] for i in body["returnable_items"]] == ["variant_t_shirt_s"]
    assert body["returnable_items"][0]["refundable"] == 4000 and RELATIONS <= set(body)
    # ... each with its variant's product, which the dashboard's return forms show
    assert body["returnable_items"][0]["variant"]["product"]["title"] == "Medusa T-Shirt"
    r = await client.get(f"/admin/orders/{order.id}", params={"expand": "returnable_items,items"},
                         headers=admin_headers)
    assert set(r.json()["order"]) == COLUMNS | {"object", "items", "returnable_items"} | TOTALS


DASHBOARD_EXPAND = (
    "customer,billing_address,shipping_address,discounts,discounts.rule,shipping_methods,"
    "shipping_methods.shipping_option,payments,items,fulfillments,fulfillments.tracking_links,returns,"
    "returns.shipping_method,returns.shipping_method.shipping_option,returns.shipping_method.tax_lines,refunds,"
    "claims.claim_items.item,claims.fulfillments,claims.return_order,claims.additional_items.variant.product.profiles,"
    "swaps.return_order,swaps.additional_items.variant.product.profiles,swaps.fulfillments,returnable_items,edits"
)


async def test_the_dashboards_order_page_query_is_answered(client, admin_headers, seeded):
    # Given an order
    order = await place_order(client, "NA", {"variant_t_shirt_s": 2})
    # When the dashboard's order page reads it with every relation it expands
    r = await client.get(f"/admin/orders/{order.id}", params={"expand": DASHBOARD_EXPAND}, headers=admin_headers)
    # I expect the order, with empty lists for what does not exist yet
    assert r.status_code == 200, r.text
    body = r.json()["order"]
    assert all(body[k] == [] for k in ("returns", "fulfillments", "refunds", "swaps", "claims", "edits"))
    assert body["items"][0]["quantity"] == 2 and body["returnable_items"] == []


async def test_lines_show_their_product_and_its_profile_at_the_same_cost_for_any_number(
    client, admin_headers, seeded,
):
    params = {"expand": "items,items.variant.product.profiles"}
    variants = await ProductVariant.all().order_by("id").limit(4).values_list("id", flat=True)
    one = await place_order(client, "NA", {variants[0]: 1})
    async with count_queries() as few:
        r = await client.get(f"/admin/orders/{one.id}", params=params, headers=admin_headers)
    product = r.json()["order"]["items"][0]["variant"]["product"]
    assert product["id"] and [p["id"] for p in product["profiles"]] == [product["profile_id"]]
    four = await place_order(client, "NA", {v: 1 for v in variants})
    async with count_queries() as more:
        r = await client.get(f"/admin/orders/{four.id}", params=params, headers=admin_headers)
    assert len(r.json()["order"]["items"]) == 4 and len(few) == len(more), (len(few), len(more))


async def test_deleted_variants_and_discounts_still_show_on_the_order(client, admin_headers, seeded):
    await discount("TENOFF")
    order = await place_order(client, "NA", {"variant_t_shirt_s": 1}, discount_code="TENOFF")
    now = datetime.now(timezone.utc)
    await ProductVariant.filter(id="variant_t_shirt_s").update(deleted_at=now)
    await Discount.filter(code="TENOFF").update(deleted_at=now)
    body = (await client.get(f"/admin/orders/{order.id}", headers=admin_headers)).json()["order"]
    assert body["items"][0]["variant"]["id"] == "variant_t_shirt_s" and body["discounts"][0]["code"] == "TENOFF"
    assert body["discount_total"] == 200


async def test_an_unknown_order_is_not_found_and_other_query_keys_are_refused(client, admin_headers, seeded):
    r = await client.get("/admin/orders/order_missing", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Order with id: order_missing was not found"}
    order = await place_order(client)
    r = await client.get(f"/admin/orders/{order.id}", params={"limit": "1"}, headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, "property limit should not exist")


DASHBOARD_LIST = {
    "expand": "shipping_address", "limit": "15", "offset": "0",
    "fields": "id,status,display_id,created_at,email,fulfillment_status,payment_status,total,currency_code",
}


async def test_the_dashboards_order_list_and_page_take_the_same_statements_for_one_line_or_many(
    client, admin_headers, seeded,
):
    # Given one order of one line, captured and fulfilled
    variants = await ProductVariant.all().order_by("id").limit(4).values_list("id", flat=True)

    async def worked(items):
        order = await place_order(client, "NA", items)
        for path, body in (("capture", {}), ("fulfillment", {"items": [
                {"item_id": i.id, "quantity": i.quantity} for i in await LineItem.filter(order_id=order.id)]})):
            r = await client.post(f"/admin/orders/{order.id}/{path}", json=body, headers=admin_headers)
            assert r.status_code == 200, r.text
        return order

    first = await worked({variants[0]: 1})
    await client.get("/admin/orders", params=DASHBOARD_LIST, headers=admin_headers)  # the user is now remembered
    counts = {}
    for name, path, params in (("list", "/admin/orders", DASHBOARD_LIST),
                               ("page", f"/admin/orders/{first.id}", {"expand": DASHBOARD_EXPAND})):
        async with count_queries() as counts[name]:
            assert (await client.get(path, params=params, headers=admin_headers)).status_code == 200
    # When there are six such orders, the last of four lines, and the dashboard reads them
    for _ in range(4):
        await worked({variants[0]: 1})
    last = await worked({v: 2 for v in variants})
    for name, path, params in (("list", "/admin/orders", DASHBOARD_LIST),
                               ("page", f"/admin/orders/{last.id}", {"expand": DASHBOARD_EXPAND})):
        async with count_queries() as more:
            r = await client.get(path, params=params, headers=admin_headers)
        # I expect the same statements as for one order of one line
        assert r.status_code == 200 and len(more) == len(counts[name]), (name, len(counts[name]), len(more))
        if name == "list":
            assert len(r.json()["orders"]) == 6 and all(o["fulfillment_status"] == "fulfilled" for o in r.json()["orders"])
        else:
            body = r.json()["order"]
            assert len(body["items"]) == 4 and len(body["fulfillments"]) == 1 and body["payment_status"] == "captured"
    # and few of them: the signed-in user, the page's ids, its orders with their one-row
    # relations, and every row below them in one statement (eleven before, one per relation);
    # the order page reads its order, the rows below (with the after-sale ones) and the
    # fulfillment's items and tracking links (sixteen before)
    assert len(counts["list"]) <= 4 and len(counts["page"]) <= 5, {k: len(v) for k, v in counts.items()}
    # and each is short enough for the pool's prepared-statement cache: a longer one would be
    # parsed and planned again on every read (the page's one read of the rows below is ~27 KiB)
    sizes = [len(q.rpartition(": [")[0] or q) for qs in counts.values() for q in qs]
    assert max(sizes) <= MAX_CACHED_STATEMENT_BYTES, sizes

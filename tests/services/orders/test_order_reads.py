"""The one-statement loader of the rows below a page of orders reads what reading them relation
by relation reads, with the same instances set on the same owners, on both backends."""

from __future__ import annotations

from tortoise.transactions import in_transaction

from models import (
    GiftCardTransaction, LineItem, LineItemAdjustment, LineItemTaxLine, Order, Payment, ShippingMethod,
    ShippingMethodTaxLine,
)
from services.orders.order_reads import load_order_rows, read_orders
from tests.cart_factories import discount, gift_card, update_cart
from tests.checkout_factories import complete, ready_cart
from tests.conftest import count_queries, requires_postgres
from tests.row_values import column_values as _values


def _ids(rows) -> list[str]:
    return [r.id for r in rows]


async def _placed(client, region: str, items: dict[str, int], **changes) -> str:
    cart = await ready_cart(client, region, items)
    if changes:
        cart = await update_cart(client, cart, **changes)
        r = await client.post(f"/store/carts/{cart['id']}/payment-sessions", json={})
        assert r.status_code == 200, r.text
    r = await complete(client, cart)
    assert r.status_code == 200 and r.json()["type"] == "order", r.text
    return r.json()["data"]["id"]


async def test_the_rows_below_orders_are_those_read_relation_by_relation(client, seeded):
    # Given orders with a percentage discount (adjustments), a gift card (a transaction), taxes
    # (EU tax lines) and several lines, and one plain
    await discount("TENOFF")
    card = await gift_card(500)
    ids = [
        await _placed(client, "NA", {"variant_cap_black": 2, "variant_t_shirt_s": 1}, discounts=[{"code": "TENOFF"}]),
        await _placed(client, "NA", {"variant_cap_black": 1}, gift_cards=[{"code": card.code}]),
        await _placed(client, "EU", {"variant_cap_black": 1, "variant_t_shirt_s": 3}),
    ]
    orders = list(await Order.filter(id__in=ids).order_by("created_at"))
    # When they are read in one statement, lines in detail
    rows = await load_order_rows(orders, line_detail=True)
    # I expect every relation as the ORM reads it, in creation order
    order_rows = {o.id: o for o in await Order.filter(id__in=ids).prefetch_related("discounts__rule", "gift_cards")}
    for order in orders:
        expected = order_rows[order.id]
        assert _ids(order.discounts) == _ids(sorted(expected.discounts, key=lambda d: (d.created_at, d.id)))
        assert [d.rule.id for d in order.discounts] == [d.rule.id for d in expected.discounts]
        assert _ids(order.gift_cards) == _ids(expected.gift_cards)
        items = await LineItem.filter(order_id=order.id).select_related("variant__product__profile").order_by(
            "created_at", "id")
        assert _ids(rows.items[order.id]) == _ids(items)
        for mine, theirs in zip(rows.items[order.id], items):
            assert mine.variant.id == theirs.variant.id and mine.variant.product.id == theirs.variant.product.id
            assert mine.variant.product.profile.id == theirs.variant.product.profile.id
            assert (mine.unit_price, mine.quantity, mine.metadata) == (theirs.unit_price, theirs.quantity, theirs.metadata)
            assert _ids(rows.adjustments[mine.id]) == _ids(
                await LineItemAdjustment.filter(item_id=mine.id).order_by("created_at", "id"))
            assert [(t.id, t.rate) for t in rows.item_tax_lines[mine.id]] == [
                (t.id, t.rate) for t in await LineItemTaxLine.filter(item_id=mine.id).order_by("created_at", "id")]
        methods = await ShippingMethod.filter(order_id=order.id).select_related("shipping_option").order_by(
            "created_at", "id")
        assert [(m.id, m.shipping_option.id, m.price) for m in rows.shipping_methods[order.id]] == [
            (m.id, m.shipping_option.id, m.price) for m in methods]
        for method in methods:
            assert _ids(rows.method_tax_lines[method.id]) == _ids(
                await ShippingMethodTaxLine.filter(shipping_method_id=method.id).order_by("created_at", "id"))
        transactions = await GiftCardTransaction.filter(order_id=order.id).select_related("gift_card")
        assert [(t.id, t.amount, t.gift_card.code) for t in rows.transactions[order.id]] == [
            (t.id, t.amount, t.gift_card.code) for t in transactions]
        assert [(p.id, p.amount) for p in rows.payments[order.id]] == [
            (p.id, p.amount) for p in await Payment.filter(order_id=order.id).order_by("created_at", "id")]
    # and the kinds of rows this story has are all there
    assert sum(len(v) for v in rows.adjustments.values()) >= 2
    assert sum(len(v) for v in rows.transactions.values()) == 1
    assert sum(len(v) for v in rows.item_tax_lines.values()) >= 5


async def test_orders_read_by_hand_are_the_orders_the_orm_reads(client, seeded):
    # Given two orders, one with a customer, addresses and a channel, in two regions
    ids = [await _placed(client, "NA", {"variant_cap_black": 1}),
           await _placed(client, "EU", {"variant_t_shirt_s": 2})]
    # When they are read by hand, with an unknown id between them and in an order of my own
    found = await read_orders([ids[1], "order_nope", ids[0]])
    # I expect the ORM's orders in the order asked, each with its joined one-row relations
    relations = ("region", "customer", "shipping_address", "billing_address", "sales_channel")
    theirs = {o.id: o for o in await Order.filter(id__in=ids).select_related(*relations)}
    assert [o.id for o in found] == [ids[1], ids[0]]
    for mine in found:
        assert _values(mine) == _values(theirs[mine.id])
        for relation in relations:
            assert _values(getattr(mine, relation)) == _values(getattr(theirs[mine.id], relation)), relation
    assert all(getattr(o, relation) is not None for o in found for relation in ("region", "customer"))
    # and nothing asked, nothing read
    assert await read_orders([]) == []


@requires_postgres("PostgreSQL's planner")
async def test_a_big_orders_tax_lines_are_read_by_index_in_a_shop_with_history(client, seeded):
    # Given an order of 45 taxed lines (copies of its first, each with a tax line), in a shop whose
    # tax-line table holds 8,000 rows of other lines (fake ids: foreign keys are not checked while
    # these go in), with statistics
    order_id = await _placed(client, "EU", {"variant_cap_black": 1})
    db = Order._meta.db
    async with in_transaction() as connection:
        await connection.execute_script(
            "SET LOCAL session_replication_role = replica; "
            "INSERT INTO line_item SELECT (jsonb_populate_record(NULL::line_item, "
            "  to_jsonb(li) || jsonb_build_object('id', 'item_copy_' || n))).* "
            f"FROM line_item li, generate_series(1, 44) AS n WHERE li.order_id = '{order_id}'; "
            "INSERT INTO line_item_tax_line (id, item_id, rate, name, created_at, updated_at) "
            "SELECT 'litl_copy_' || n, 'item_copy_' || n, 20, 'VAT', now(), now() FROM generate_series(1, 44) AS n; "
            "INSERT INTO line_item_tax_line (id, item_id, rate, name, created_at, updated_at) "
            "SELECT 'litl_history_' || n, 'item_' || md5(n::text), 20, 'VAT', now(), now() "
            "FROM generate_series(1, 8000) AS n")
    await db.execute_script("ANALYZE line_item_tax_line; ANALYZE line_item")
    # When the order's rows are read (the statement the pool prepares for them)
    async with count_queries() as queries:
        rows = await load_order_rows(list(await Order.filter(id=order_id)), line_detail=False)
    assert len(rows.items[order_id]) == 45 and sum(len(t) for t in rows.item_tax_lines.values()) == 45
    sql = next(q for q in queries if "line_item_tax_line" in q).rpartition(": [")[0]
    _, plan = await db.execute_query(f"EXPLAIN {sql}", [order_id])
    plan = "\n".join(row["QUERY PLAN"] for row in plan)
    # I expect them found through their lines' index, not by reading the whole table
    assert "Seq Scan on line_item_tax_line" not in plan, plan
    assert "Index Cond: ((item_id)::text = (i.id)::text)" in plan, plan

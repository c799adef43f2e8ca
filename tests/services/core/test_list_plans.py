"""The back office's list queries, as the services build them, find their rows and their order by
index on PostgreSQL (migration 0029), whatever the shop's size: each page and count statement is
planned with sequential scans (and, where an index gives the order, sorts) priced out of reach,
and the plan must still contain neither. A filter or order without an index would still scan or
sort, and fail here; a test shop is too small for the planner to show it by itself. The count of a
whole list (nothing filtered but deleted rows) may read rows in any order: it stops at
COUNT_EXACT_UP_TO (services/core/listing.py)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from tortoise import Tortoise
from tortoise.transactions import in_transaction

from models import Discount, DraftOrder, GiftCard, Product, Return, Swap
from services.batch_jobs.order_export import after
from services.core.listing import FindConfig, _Count, _ordered, _statement
from services.core.search_pages import AnyStatements
from services.customers.customers import CustomerFilter, _filtered as filtered_customers
from services.orders.listing import OrderFilter, _search_places, filtered_orders
from tests.conftest import requires_postgres

pytestmark = requires_postgres("plans are PostgreSQL's")

NEWEST = FindConfig(limit=15)
SINCE = {"gt": datetime(2024, 1, 1, tzinfo=timezone.utc), "lt": datetime(2024, 2, 1, tzinfo=timezone.utc)}

# name: (the list's query set, its order, whether the order comes from an index: a search's matches
# are few and sorted once found). WHOLE: the lists that filter nothing.
LISTS = {
    "orders, newest first": (lambda: filtered_orders(OrderFilter()), NEWEST, True),
    "orders by status": (lambda: filtered_orders(OrderFilter(status=["pending"])), NEWEST, True),
    "orders by payment status": (lambda: filtered_orders(OrderFilter(payment_status=["captured"])), NEWEST, True),
    "orders by fulfilment status": (
        lambda: filtered_orders(OrderFilter(fulfillment_status=["not_fulfilled"])), NEWEST, True),
    "orders created in a month": (lambda: filtered_orders(OrderFilter(created_at=SINCE)), NEWEST, True),
    "a customer's orders": (lambda: filtered_orders(OrderFilter(customer_id="cus_1")), NEWEST, True),
    "orders by last change": (lambda: filtered_orders(OrderFilter()), FindConfig(order=(("updated_at", True),)), True),
    "orders by number": (lambda: filtered_orders(OrderFilter()), FindConfig(order=(("display_id", False),)), True),
    "orders by e-mail": (lambda: filtered_orders(OrderFilter()), FindConfig(order=(("email", False),)), True),
    "orders by status, sorted": (lambda: filtered_orders(OrderFilter()), FindConfig(order=(("status", False),)), True),
    "orders searched by e-mail or name": (lambda: filtered_orders(OrderFilter(q="na.smit")), NEWEST, False),
    "orders searched by number": (lambda: filtered_orders(OrderFilter(q="#1042")), NEWEST, False),
    "customers, newest first": (lambda: filtered_customers(CustomerFilter()), NEWEST, True),
    "customers searched": (lambda: filtered_customers(CustomerFilter(q="smith")), NEWEST, False),
    "gift cards, newest first": (lambda: GiftCard.filter(deleted_at=None), NEWEST, True),
    "draft orders, newest first": (lambda: DraftOrder.all(), NEWEST, True),
    "returns, newest first": (lambda: Return.all(), NEWEST, True),
    "swaps, newest first": (lambda: Swap.filter(deleted_at=None), NEWEST, True),
    "products, newest first": (lambda: Product.filter(deleted_at=None), NEWEST, True),
    "discounts, newest first": (lambda: Discount.filter(deleted_at=None), NEWEST, True),
    "order export's next page": (
        lambda: after(filtered_orders(OrderFilter()), "order_1", SINCE["lt"]),
        FindConfig(limit=100, order=(("created_at", True), ("id", True))), True),
}

WHOLE = {
    "orders, newest first", "order export's next page", "orders by last change", "orders by number", "orders by e-mail", "customers, newest first",
    "gift cards, newest first", "draft orders, newest first", "returns, newest first", "swaps, newest first",
    "orders by status, sorted", "products, newest first", "discounts, newest first",
}

# Orders whose first column has few values: an index on that column alone leaves the rows of each
# value (a whole status) to be sorted by the primary key, so even an incremental sort reads them all.
FEW_VALUES = {"orders by status, sorted"}
# Lists whose rows are often written many in one statement (a bulk load), so that many share a
# `created_at`: the same holds, so their index holds the id too (migration 0038).
TIED = {"discounts, newest first", "draft orders, newest first"}


def _nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", ()):
        yield from _nodes(child)


async def _plan(sql: str, params: tuple, sorted_by_index: bool, wholly: bool = False) -> list[dict]:
    async with in_transaction() as connection:
        await connection.execute_query("SET LOCAL enable_seqscan = off")
        if sorted_by_index:
            await connection.execute_query("SET LOCAL enable_sort = off")
        if wholly:  # an incremental sort is a sort too (see FEW_VALUES)
            await connection.execute_query("SET LOCAL enable_incremental_sort = off")
        _, rows = await connection.execute_query(f"EXPLAIN (FORMAT JSON) {sql}", list(params))
    plan = next(iter(dict(rows[0]).values()))
    return list(_nodes((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]))


@pytest.mark.parametrize("name", LISTS)
async def test_a_lists_page_and_count_find_their_rows_and_order_by_index(clean_db, name):
    build, config, sorted_by_index = LISTS[name]
    page = _statement(_ordered(build(), config).offset(0).limit(config.limit).values_list("id", flat=True))
    count = _Count.of(build(), "postgres")
    nodes = await _plan(*page, sorted_by_index, wholly=name in FEW_VALUES | TIED)
    assert not _scanned(nodes), f"{name}: {page[0]} reads every row of {_scanned(nodes)}"
    if sorted_by_index:
        sorts = {"Sort", "Incremental Sort"} if name in FEW_VALUES | TIED else {"Sort"}
        assert not [n for n in nodes if n["Node Type"] in sorts], f"{name}: {page[0]} sorts the whole list"
    nodes = await _plan(count.sql, count.params, False)
    if name in WHOLE:
        assert nodes[1]["Node Type"] == "Limit", f"{name}: {count.sql} counts past the limit"
    else:
        assert not _scanned(nodes), f"{name}: {count.sql} reads every row of {_scanned(nodes)}"


@pytest.mark.parametrize("name", ["a customer's orders", "order export's next page"])
async def test_a_page_that_starts_at_a_key_reads_the_index_from_that_key(clean_db, name):
    # A filter the rows are few for (one customer's) or a key to go on from (the export's last
    # order) bounds the index scan itself, rather than filtering an index read from its start
    build, config, _ = LISTS[name]
    page = _statement(_ordered(build(), config).offset(0).limit(config.limit).values_list("id", flat=True))
    # The orders' indexes as a fresh shop has them: the rows earlier tests wrote and took away leave
    # their index pages behind (a DELETE does not shrink an index), and over an empty table the
    # planner then prices the one-customer index, grown by those pages, above reading the date index
    # from its start.
    await Tortoise.get_connection("default").execute_script("REINDEX TABLE orders")
    nodes = await _plan(*page, True)
    unbounded = [n for n in nodes if "Index Name" in n and "Index Cond" not in n]
    assert not unbounded, f"{name}: {page[0]} reads {unbounded[0]['Index Name']} from its start"


def _scanned(nodes: list[dict]) -> list[str]:
    return [n.get("Relation Name") for n in nodes if n["Node Type"] == "Seq Scan"]


SEARCHES = {  # the order list's search read place by place (services/orders/listing.py `_page_ids`)
    "an e-mail or a name": (OrderFilter(), "na.smit", NEWEST),
    "a number": (OrderFilter(), "#1042", NEWEST),
    "a name among pending orders": (OrderFilter(status=["pending"]), "smith", NEWEST),
    "a name, by number": (OrderFilter(), "smith", FindConfig(order=(("display_id", False),))),
}


@pytest.mark.parametrize("name", SEARCHES)
async def test_each_place_a_search_looks_in_is_read_by_index(clean_db, name):
    f, q, config = SEARCHES[name]
    statements = AnyStatements(
        filtered_orders(f), _search_places(q), config, capped=True)
    for sql, params in (statements.matched, statements.page, statements.count):
        nodes = await _plan(sql, tuple(params), False)
        assert not _scanned(nodes), f"{name}: {sql} reads every row of {_scanned(nodes)}"


async def test_every_gin_index_takes_its_rows_at_once(clean_db):
    # A GIN index's pending list is read whole by every search until it is merged: a search index
    # must have none (migration 0033)
    _, rows = await Tortoise.get_connection("default").execute_query(
        "SELECT c.relname, c.reloptions FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'gin'")
    gin = {row["relname"]: row["reloptions"] or [] for row in rows}
    assert "orders_email_trgm" in gin and "product_search_tsv" in gin
    assert {name for name, options in gin.items() if "fastupdate=off" not in options} == set()


async def test_a_deep_page_of_the_order_list_reads_the_orders_before_it_in_the_lists_order(clean_db):
    # The order list's ties are broken by id: an index in the list's very order (migration 0034)
    # passes the rows before a deep page without sorting each moment's orders
    page = _statement(_ordered(filtered_orders(OrderFilter()), NEWEST).offset(30_000).limit(15).values_list("id", flat=True))
    nodes = await _plan(*page, sorted_by_index=True, wholly=True)
    assert not [n for n in nodes if n["Node Type"] in {"Sort", "Incremental Sort"}], nodes
    assert {n.get("Index Name") for n in nodes} >= {"ix_orders_created_at_id"}, nodes


async def test_every_substring_search_expression_keeps_a_thousand_buckets_of_statistics(clean_db):
    # The planner guesses a `LIKE '%…%'` from the expression's histogram: the default 100 buckets
    # guess 100 rows for a word a few percent of a million orders hold (migration 0036)
    _, rows = await Tortoise.get_connection("default").execute_query(
        "SELECT c.relname, a.attstattarget FROM pg_class c JOIN pg_am m ON m.oid = c.relam"
        " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = 1"
        " WHERE m.amname = 'gin' AND pg_get_indexdef(c.oid) LIKE '%upper(%'")
    targets = {row["relname"]: row["attstattarget"] for row in rows}
    assert "orders_email_trgm" in targets and "product_variant_sku_trgm" in targets
    assert {name for name, target in targets.items() if target < 1000} == set()

"""The order list's search read place by place (services/orders/listing.py `_page_ids`, through
services/core/search_pages.py `find_page_ids_of_any`): each place with the other filters, in the list's
order, cut at the page's end, then one union. It must give the page and the count that the one
query over all the places gives (`find_page_ids` of `filtered_orders`), for every order the
dashboard offers, at every offset, with orders that several places match counted once."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from tortoise import Tortoise

import services.core.search_pages as search_pages
from models import Address, Customer, Order, Region
from services.core.listing import FindConfig, find_page_ids
from services.orders.listing import OrderFilter, _page_ids, _search_places, filtered_orders
from tests.conftest import BACKEND, count_queries

ORDERS = [(("created_at", True),), (("display_id", False),), (("display_id", True),), (("email", False),),
          (("status", False),), (("updated_at", True),)]
PAGES = [(1, 0), (3, 0), (3, 1), (3, 4), (50, 0), (2, 11)]
FILTERS = [
    OrderFilter(q="smith"),  # e-mails, a customer's last name and a shipping first name, overlapping
    OrderFilter(q="Smith", status=["pending"]),
    OrderFilter(q="smith", payment_status=["captured"], fulfillment_status=["shipped"]),
    OrderFilter(q="#9103"),  # a number, and the e-mails holding it
    OrderFilter(q="9103"),
    OrderFilter(q="nobody"),
]


@pytest.fixture
async def searched_orders(seeded):
    region = await Region.first()
    smith = await Customer.create(email="ann@example.com", first_name="Ann", last_name="Smith")
    other = await Customer.create(email="bo@example.com", first_name="Bo", last_name="Jones")
    smithers = await Address.create(first_name="Smithers", last_name="Jones", address_1="1 Road", city="Leeds",
                                    country_code="gb", postal_code="LS1")
    plain = await Address.create(first_name="Bo", last_name="Jones", address_1="2 Road", city="Leeds",
                                 country_code="gb", postal_code="LS1")
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for n in range(14):
        customer = smith if n % 3 == 0 else other
        email = [f"smith{n}@example.com", f"bo{n}+9103@example.com", customer.email][n % 3 if n % 5 else 0]
        created = start + timedelta(hours=n // 2)  # pairs of orders made at the same moment: ties
        await Order.create(
            display_id=9100 + n, customer_id=customer.id, email=email, region_id=region.id, currency_code="usd",
            shipping_address_id=(smithers if n % 4 == 1 else plain).id,
            status=["pending", "completed", "canceled"][n % 3], payment_status=["captured", "awaiting"][n % 2],
            fulfillment_status=["shipped", "not_fulfilled"][n % 2 if n % 7 else 0],
            created_at=created, updated_at=start + timedelta(hours=(n * 5) % 14),
        )


@pytest.mark.parametrize("f", FILTERS, ids=[f"{f.q}|{f.status}{f.payment_status}" for f in FILTERS])
async def test_a_search_read_place_by_place_gives_the_one_querys_page_and_count(searched_orders, f):
    for order in ORDERS:
        for limit, offset in PAGES:
            config = FindConfig(limit=limit, offset=offset, order=order)
            expected = await find_page_ids(filtered_orders(f), config)
            assert await _page_ids(f, config) == expected, (order, limit, offset)


@pytest.mark.parametrize("f", FILTERS[:3], ids=[f"{f.q}|{f.status}{f.payment_status}" for f in FILTERS[:3]])
async def test_a_search_with_more_matches_than_it_counts_gives_the_one_querys_page(searched_orders, monkeypatch, f):
    # Given a search whose places each match more orders than it counts one by one (two), so that
    # on PostgreSQL the page is read again place by place in the list's order
    monkeypatch.setattr(search_pages, "SEARCH_COUNT_EXACT_UP_TO", 2)
    for order in ORDERS:
        for limit, offset in PAGES:
            config = FindConfig(limit=limit, offset=offset, order=order)
            expected_ids, expected_count = await find_page_ids(filtered_orders(f), config)
            ids, count = await _page_ids(f, config)
            # I expect the same page, and a count never below what the page shows
            assert ids == expected_ids, (order, limit, offset)
            assert count >= len(ids) + offset if ids else count >= 0, (order, limit, offset)
            if BACKEND != "postgres":
                assert count == expected_count


async def test_a_search_with_few_matches_costs_one_statement_whatever_its_page_size(searched_orders):
    for limit in (1, 5):
        async with count_queries() as statements:
            ids, count = await _page_ids(OrderFilter(q="smith"), FindConfig(limit=limit))
        assert len(ids) == limit and count > limit
        assert len(statements) == 1, statements  # the matches, paged and counted at once


async def test_a_page_past_a_searchs_end_is_empty_and_counted(searched_orders):
    expected = (await find_page_ids(filtered_orders(OrderFilter(q="smith")), FindConfig(limit=50)))[1]
    ids, count = await _page_ids(OrderFilter(q="smith"), FindConfig(limit=5, offset=expected + 3))
    assert ids == [] and count == expected


async def test_a_search_past_its_exact_limit_is_counted_by_the_estimate_on_postgresql(searched_orders, monkeypatch):
    # Given a search counted exactly up to two matches
    monkeypatch.setattr(search_pages, "SEARCH_COUNT_EXACT_UP_TO", 2)
    expected = (await find_page_ids(filtered_orders(OrderFilter(q="smith")), FindConfig(limit=50)))[1]
    # When a page of one is read
    async with count_queries() as statements:
        ids, count = await _page_ids(OrderFilter(q="smith"), FindConfig(limit=1))
    estimated = [s for s in statements if "EXPLAIN" in s]
    if BACKEND == "postgres":
        # I expect PostgreSQL's estimate, never less than the three counted
        assert len(estimated) == 1 and count >= 3 and expected > 3
    else:
        # and SQLite's exact count
        assert not estimated and count == expected


async def test_a_search_one_place_shows_broad_reads_no_further_place_and_is_estimated(searched_orders, monkeypatch):
    # Given a search counted exactly up to two matches, whose first place (the orders of the
    # customers named Smith: five) alone holds more
    monkeypatch.setattr(search_pages, "SEARCH_COUNT_EXACT_UP_TO", 2)
    f, config = OrderFilter(q="smith"), FindConfig(limit=2)
    # When a page is read
    async with count_queries() as statements:
        ids, count = await _page_ids(f, config)
    # I expect the one query's page, and on PostgreSQL three statements: the matches (stopped at
    # the first place), the page in the list's order, the estimate, never less than was read
    assert ids == (await find_page_ids(filtered_orders(f), config))[0]
    if BACKEND == "postgres":
        assert len(statements) == 3 and "EXPLAIN" in statements[2] and count >= 3
        # and the matches' statement read neither the e-mails nor the shipping addresses
        statement = search_pages.AnyStatements(filtered_orders(OrderFilter()), _search_places("smith"), config, True)
        sql, params = statement.matched
        _, rows = await Tortoise.get_connection("default").execute_query(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params)
        plan = next(iter(dict(rows[0]).values()))
        nodes, todo = [], [(json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]]
        while todo:
            nodes.append(todo.pop())
            todo += nodes[-1].get("Plans", [])
        read = {n["Relation Name"]: n["Actual Loops"] for n in nodes if "Relation Name" in n and n["Actual Loops"]}
        assert "customer" in read and "address" not in read, read
        assert all("email" not in n.get("Recheck Cond", n.get("Filter", "")) for n in nodes if n["Actual Loops"]), nodes


async def test_a_search_whose_places_each_hold_few_but_together_more_is_estimated(searched_orders, monkeypatch):
    # Given a search counted exactly up to seven matches, whose places hold 5, 7 and 4 orders, 9
    # together
    monkeypatch.setattr(search_pages, "SEARCH_COUNT_EXACT_UP_TO", 7)
    f = OrderFilter(q="smith")
    expected_ids, expected = await find_page_ids(filtered_orders(f), FindConfig(limit=3))
    assert expected == 9
    # When a page of three is read
    async with count_queries() as statements:
        ids, count = await _page_ids(f, FindConfig(limit=3))
    # I expect the one query's page; on PostgreSQL the union's nine read, then the page in the
    # list's order and the estimate, never less than the nine; SQLite's exact count in one statement
    assert ids == expected_ids
    if BACKEND == "postgres":
        assert len(statements) == 3 and "EXPLAIN" in statements[2] and count >= 9
    else:
        assert len(statements) == 1 and count == 9


async def test_a_search_the_planner_thinks_broad_is_counted_exactly_when_it_matches_few(searched_orders, monkeypatch):
    # Given a planner whose estimate of any search is a million rows
    async def a_million(db, estimate, counted, at_least):
        return 1_000_000

    monkeypatch.setattr(search_pages, "_estimated", a_million)
    for q in ("smith", "#9103", "nobody"):
        f = OrderFilter(q=q)
        expected = await find_page_ids(filtered_orders(f), FindConfig(limit=2))
        # When a page of a search with its few matches is read
        async with count_queries() as statements:
            answer = await _page_ids(f, FindConfig(limit=2))
        # I expect its exact count, from the one statement that read them; no estimate asked for
        assert answer == expected and len(statements) == 1, (q, statements)

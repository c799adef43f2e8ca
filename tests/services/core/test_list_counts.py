"""A list's count (services/core/listing.py): exact up to COUNT_EXACT_UP_TO rows; past that, on
PostgreSQL, the planner's estimate (one `EXPLAIN`, no row read), never less than what was counted;
SQLite counts exactly. The limit is lowered here so that a few rows cross it."""

from __future__ import annotations

import pytest
from tortoise import Tortoise

import services.core.listing as listing
from models import Customer
from services.core.listing import FindConfig
from services.customers.customers import CustomerFilter, list_customers
from tests.conftest import BACKEND, count_queries


@pytest.fixture
async def eight_customers(monkeypatch):
    monkeypatch.setattr(listing, "COUNT_EXACT_UP_TO", 3)
    monkeypatch.setattr(listing, "_PLAIN", {})  # statements built under the usual limit are not reused
    for n in range(8):
        await Customer.create(email=f"shopper{n}@example.com", first_name="Ada" if n < 2 else "Bo")
    if BACKEND == "postgres":
        await Tortoise.get_connection("default").execute_script("ANALYZE customer")


@pytest.mark.parametrize("relations", [(), ("shipping_addresses",)], ids=["plain page", "page with relations"])
async def test_a_count_past_the_limit_is_the_databases_estimate_not_a_count_of_every_row(eight_customers, relations):
    # Given eight customers (their statistics fresh on PostgreSQL) and a limit of three exact rows
    # When a page of two is listed
    async with count_queries() as statements:
        page, count = await list_customers(CustomerFilter(), FindConfig(limit=2, relations=relations))
    # I expect the count of all eight, PostgreSQL's from its plan after counting four rows at most
    assert len(page) == 2 and count == 8
    estimated = [s for s in statements if "EXPLAIN" in s]
    assert len(estimated) == (1 if BACKEND == "postgres" else 0)


async def test_a_count_within_the_limit_is_exact(eight_customers):
    # Given two of the eight customers named Ada
    # When a page of one Ada is listed
    async with count_queries() as statements:
        page, count = await list_customers(CustomerFilter(q="ada"), FindConfig(limit=1))
    # I expect both counted, exactly, with no estimate asked for
    assert len(page) == 1 and count == 2
    assert not [s for s in statements if "EXPLAIN" in s]

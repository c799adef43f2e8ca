"""A moved shop on PostgreSQL is left as a settled one: its statistics taken and its visibility map
set, so that its first requests are planned on what it holds and the lists' index-only scans
(the order list's deep page) do not visit the heap page of every row they pass."""

from __future__ import annotations

import io

import pytest
from tortoise import Tortoise

from services.migration.medusa_v1 import Progress, move
from services.migration.medusa_v1 import run
from tests.conftest import BACKEND

pytestmark = pytest.mark.skipif(BACKEND != "postgres", reason="PostgreSQL's statistics and visibility map")


async def test_a_move_leaves_the_tables_analyzed_and_all_visible(medusa_copy, monkeypatch):
    # The fixture shop is small (some 6,700 rows): a move that writes this much settles its tables.
    monkeypatch.setattr(run, "ANALYZE_AFTER", 1000)
    url, _ = medusa_copy
    report = await move(url, progress=Progress(io.StringIO()))
    assert sum(e.written for e in report.entities) >= 1000
    rows = await Tortoise.get_connection("default").execute_query_dict(
        "SELECT c.relname, c.relpages, c.relallvisible, s.last_analyze IS NOT NULL AS analyzed "
        "FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid "
        "WHERE c.relname IN ('orders', 'line_item', 'customer', 'payment') ORDER BY c.relname"
    )
    assert [r["relname"] for r in rows] == ["customer", "line_item", "orders", "payment"]
    for r in rows:
        assert r["analyzed"], r
        assert r["relpages"] > 0 and r["relallvisible"] == r["relpages"], r

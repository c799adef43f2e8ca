"""The admin order list's CPU in process (not a test): each page read and answered as the route does
it (the query parsed, the page's ids and count, its orders, the answer's JSON), through the lean
page (services/orders/list_reads.py) and the general way (the order views) in turn, round by round,
on the store at `DATABASE_URL`; the CPU-ms a page cost this process and, on a local PostgreSQL, the
backends serving this process's own connections (found by their client ports, so another session
on the same database is not counted). Nothing is written.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bigshop_1m \\
        .venv/bin/python -m bench.order_list_cpu --rounds 4 --pages 150
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from contextlib import contextmanager
from urllib.parse import urlencode

import orjson

from app.config import Settings
from bench.dashboard_reads import ORDER_LIST
from bench.in_process import load_average, open_store

QUERIES = {
    "order list (dashboard default)": ORDER_LIST,
    "order list, payment captured": {**ORDER_LIST, "payment_status[]": "captured"},
    "order list, page 2,000": {**ORDER_LIST, "offset": 15 * 1999},
}


def _own_ports() -> set[int]:
    """The local ports of this process's TCP sockets."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        try:
            with open(table) as f:
                for line in f.readlines()[1:]:
                    fields = line.split()
                    if fields[9] in inodes:
                        ports.add(int(fields[1].rsplit(":", 1)[1], 16))
        except OSError:
            pass
    return ports


async def _own_backends() -> list[int]:
    """The PostgreSQL backends serving this process's connections (none on SQLite)."""
    from tortoise import connections

    db = connections.get("default")
    if db.capabilities.dialect != "postgres":
        return []
    _, rows = await db.execute_query("SELECT pid, client_port FROM pg_stat_activity WHERE datname = current_database()")
    ports = _own_ports()
    return [row[0] for row in rows if row[1] in ports]


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def _general(on: bool):
    """The list read the general way while `on`."""
    from services.orders import listing

    lean = listing.reads_lean
    if on:
        listing.reads_lean = lambda relations: False
    try:
        yield
    finally:
        listing.reads_lean = lean


async def _page(query: str) -> bytes:
    """The page as `GET /admin/orders` answers it (app/admin/orders.py)."""
    from app.shapes.order_query import admin_list_query, order_filter
    from app.shapes.orders import order_json, with_claims_and_swaps
    from services.orders.listing import list_orders

    q = admin_list_query(query)
    views, count = await list_orders(order_filter(q.filters), q.find())
    return orjson.dumps({
        "orders": [order_json(v, q.relations, q.fields) for v in await with_claims_and_swaps(views)],
        "count": count, "offset": q.offset, "limit": q.limit,
    })


async def _measure(query: str, pages: int, backends: list[int]) -> tuple[float, float]:
    """CPU-ms a page: this process's, its backends'."""
    started = time.process_time()
    before = sum(_cpu_seconds(pid) for pid in backends)
    for _ in range(pages):
        await _page(query)
    process = time.process_time() - started
    return process * 1000 / pages, (sum(_cpu_seconds(pid) for pid in backends) - before) * 1000 / pages


async def run(rounds: int, pages: int) -> None:
    async with open_store(Settings.from_env(), broker=False):
        await asyncio.gather(*(_page(urlencode(ORDER_LIST)) for _ in range(4)))  # the pool's connections open
        backends = await _own_backends()
        figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for name, params in QUERIES.items():
            query = urlencode(params)
            with _general(True):
                general = await _page(query)
            lean = await _page(query)
            assert lean == general, f"{name}: the lean answer differs"
            for n in range(rounds):
                for way in (("lean", "general") if n % 2 == 0 else ("general", "lean")):
                    with _general(way == "general"):
                        await _page(query)  # warm
                        figures.setdefault((name, way), []).append(await _measure(query, pages, backends))
    print(f"CPU-ms a page, median of {rounds} rounds of {pages} pages (this process / its PostgreSQL backends); "
          f"load average {load_average()}")
    print("| page | lean | general |\n|---|---|---|")
    for name in QUERIES:
        cells = []
        for way in ("lean", "general"):
            rows = figures[(name, way)]
            cells.append(f"{statistics.median(r[0] for r in rows):.2f} / {statistics.median(r[1] for r in rows):.2f}")
        print(f"| {name} | {cells[0]} | {cells[1]} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--pages", type=int, default=150)
    args = parser.parse_args()
    asyncio.run(run(args.rounds, args.pages))


if __name__ == "__main__":
    main()

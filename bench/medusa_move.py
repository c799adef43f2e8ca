"""Benchmark of `commerce import medusa-v1` (not a test): restores the Medusa v1 fixture shop into
a scratch PostgreSQL database, scales its trade by copying every order with everything below it
(carts, lines, taxes, payments, fulfilments, returns, swaps, claims, edits, drafts) `--copies`
times with new ids inside Medusa's own schema, moves it into `DATABASE_URL` in-process, and prints
orders per second, rows per second and the process's peak memory.

    createdb -h 127.0.0.1 -U postgres move_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/move_bench .venv/bin/python -m bench.medusa_move --copies 450

450 copies of the fixture's 223 orders make about 100,000. The target should be a new database.
Copy k is dated k days before the fixture (`--spread-days 1`): a shop with 450 days of the
fixture's trade, whose abandoned carts of the last 30 days (`--carts-days`) come along.
`--spread-days 0` keeps every copy at the fixture's own dates, so every abandoned cart (about
2,600 a copy, over a million) counts as recent and moves too: the worst case.
`--source URL` moves an already scaled source (made by an earlier run with `--keep-source`).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import resource
import subprocess
import time
import uuid
from pathlib import Path

import asyncpg
from tortoise import Tortoise

from app.config import Settings

FIXTURE = Path(__file__).resolve().parents[2] / "shared/fixtures/medusa-v1-shop/medusa-v1-shop.sql.gz"
TRADE = (
    "order", "cart", "line_item", "line_item_adjustment", "line_item_tax_line", "shipping_method",
    "shipping_method_tax_line", "payment", "payment_session", "refund", "fulfillment", "fulfillment_item",
    "tracking_link", "return", "return_item", "swap", "claim_order", "claim_item", "order_edit",
    "order_item_change", "draft_order", "cart_discounts", "cart_gift_cards", "order_discounts", "order_gift_cards",
    "gift_card_transaction", "payment_collection",
)
FOREIGN_KEYS = """
SELECT tc.table_name, kcu.column_name, ccu.table_name AS target
FROM information_schema.table_constraints tc
JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name
JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name
WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public'
"""


def restore(admin_url: str, name: str) -> str:
    subprocess.run(["psql", "-q", admin_url, "-c", f'CREATE DATABASE "{name}"'], check=True)
    url = admin_url.rsplit("/", 1)[0] + f"/{name}"
    with subprocess.Popen(["gunzip", "-c", str(FIXTURE)], stdout=subprocess.PIPE) as unzip:
        subprocess.run(["psql", "-q", url], stdin=unzip.stdout, check=True, stdout=subprocess.DEVNULL)
    return url


async def scale(url: str, copies: int, spread_days: int = 1) -> None:
    """Copy every trade row `copies` times, ids and references among trade rows suffixed `_c<k>`,
    copy k dated `k * spread_days` days earlier."""
    conn = await asyncpg.connect(url.replace("postgres://", "postgresql://", 1))
    try:
        fks = {(r["table_name"], r["column_name"]): r["target"] for r in await conn.fetch(FOREIGN_KEYS)}
        await conn.execute("SET session_replication_role = replica")  # no FK checks while copying
        for table in TRADE:
            typed = await conn.fetch("SELECT column_name, data_type FROM information_schema.columns "
                                     "WHERE table_name = $1 ORDER BY ordinal_position", table)
            columns = [r["column_name"] for r in typed]
            dated = {r["column_name"] for r in typed if r["data_type"].startswith("timestamp")}
            select = []
            for column in columns:
                ref = fks.get((table, column))
                if column == "id" or (ref in TRADE and ref != table) or (ref == table and column != "id"):
                    select.append(f"\"{column}\" || '_c' || k")
                elif column == "display_id":
                    select.append(f'"{column}" + k * 1000')
                elif column in ("idempotency_key", "code"):
                    select.append("NULL")
                elif column in dated and spread_days:
                    select.append(f'"{column}" - make_interval(days => k * {int(spread_days)})')
                else:
                    select.append(f'"{column}"')
            names = ", ".join(f'"{c}"' for c in columns)
            await conn.execute(
                f'INSERT INTO "{table}" ({names}) SELECT {", ".join(select)} FROM "{table}", generate_series(1, {copies}) k'
            )
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def run(source: str, target: str) -> None:
    from services.migration.medusa_v1 import Progress, move
    from workers.cli import migrate

    settings = Settings(database_url=target)
    await migrate(settings)
    await Tortoise.init(config=settings.tortoise_config())
    try:
        started, cpu_before = time.monotonic(), _cpu()
        report = await move(source, progress=Progress(io.StringIO()))
        seconds, cpu = time.monotonic() - started, _cpu() - cpu_before
        peak_first = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        again_started, again_cpu = time.monotonic(), _cpu()  # nothing changed: a re-run reads and checks only what did
        again = await move(source, progress=Progress(io.StringIO()))
        again_seconds, again_cpu = time.monotonic() - again_started, _cpu() - again_cpu
    finally:
        await Tortoise.close_connections()
    orders = report.entity("orders").copied
    rows = sum(e.copied for e in report.entities)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"orders: {orders} in {seconds:.1f} s = {orders / seconds:,.0f} orders/s "
          f"({rows:,} rows, {rows / seconds:,.0f} rows/s); peak memory {peak_first:.0f} MB ({peak:.0f} MB after the second run); "
          f"money differences: {len(report.money_differences)}")
    print(f"copying {report.copy_seconds:.1f} s ({report.copy_cpu_seconds:.1f} s CPU), money check "
          f"{report.check_seconds:.1f} s ({report.check_cpu_seconds:.1f} s CPU); this process's CPU {cpu:.1f} s; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"second run, nothing changed: {again_seconds:.1f} s ({again_cpu:.1f} s CPU), "
          f"{sum(e.copied for e in again.entities):,} rows read whole or changed, "
          f"{sum(e.written for e in again.entities):,} written, {sum(e.removed for e in again.entities):,} removed, "
          f"{again.money_orders_checked} orders checked")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--copies", type=int, default=450, help="copies of the fixture's orders (450: about 100,000)")
    p.add_argument("--admin-url", default=os.environ.get("PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    p.add_argument("--spread-days", type=int, default=1, help="copy k is dated k times this many days earlier")
    p.add_argument("--source", help="an already scaled source database to move (neither made nor dropped)")
    p.add_argument("--keep-source", action="store_true", help="keep the scaled source and print its URL")
    args = p.parse_args()
    target = os.environ.get("DATABASE_URL", "sqlite://move_bench.sqlite3")
    if args.source:
        asyncio.run(run(args.source, target))
        return
    name = f"medusa_bench_src_{uuid.uuid4().hex[:8]}"
    source = restore(args.admin_url, name)
    try:
        asyncio.run(scale(source, args.copies, args.spread_days))
        asyncio.run(run(source, target))
    finally:
        if args.keep_source:
            print(f"source kept: {source}")
        else:
            subprocess.run(["psql", "-q", args.admin_url, "-c", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'], check=True)


if __name__ == "__main__":
    main()

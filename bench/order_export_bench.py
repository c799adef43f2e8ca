"""Order export benchmark (not a test): exports every order of the configured database through
the batch-job runs the workers use, and prints orders/s and the process's peak memory before and
after the export. A database with fewer than N orders first gets plain ones (two lines each) up
to N; a big shop (bench/big_shop.py: discounts, gift cards, refunds, returns, swaps and claims)
is exported as it is.

    .venv/bin/python -m bench.big_shop --orders 100000
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bigshop_100000 .venv/bin/python -m bench.order_export_bench --orders 100000

The plain orders are written in bulk (not through checkout) once; a second run finds them and only
exports. Peak memory should not move with --orders: the export holds one page at a time. The
runs are called directly, as an actor would; the broker is the in-memory one.

CPU is given for this process and for the PostgreSQL backends serving it (on a local server),
told from other clients of the same database by the bench's own `application_name`.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import time
from dataclasses import replace

from app.config import Settings
from bench.in_process import load_average, open_store, peak_rss_mb, run_and_print

BULK = 2000  # rows written per INSERT
APPLICATION = f"order-export-bench-{os.getpid()}"  # this bench's PostgreSQL sessions


def _named(settings: Settings) -> Settings:
    url = settings.database_url
    if not url.startswith(("postgres://", "postgresql://")):
        return settings
    return replace(settings, database_url=f"{url}{'&' if '?' in url else '?'}application_name={APPLICATION}")


async def _backends() -> list[int]:
    """The PostgreSQL backends serving this bench (none on SQLite)."""
    from tortoise import connections

    connection = connections.get("default")
    if connection.capabilities.dialect != "postgres":
        return []
    _, rows = await connection.execute_query(
        "SELECT pid FROM pg_stat_activity WHERE application_name = $1", [APPLICATION])
    return [row[0] for row in rows]


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:  # the backend ended, or the server is not on this machine
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def add_orders(count: int) -> None:
    from models import Address, Customer, LineItem, Order, Region

    have = await Order.all().count()
    region = await Region.filter(name="Bench", deleted_at=None).first() or await Region.create(
        name="Bench", currency_code="usd")
    customer = await Customer.filter(email="bench@example.com").first() or await Customer.create(
        email="bench@example.com", first_name="Bench", last_name="Shopper")
    first = 10_000_000  # the bench's own numbers, far above the shop's sequence
    for start in range(have, count, BULK):
        size = min(BULK, count - start)
        addresses = [Address(first_name="Bench", address_1=f"{i} Main St; rear", city="Springfield",
                             country_code="us", postal_code="12345") for i in range(start, start + size)]
        await Address.bulk_create(addresses)
        orders = [Order(display_id=first + i, email=f"bench-{i}@example.com", customer_id=customer.id,
                        region_id=region.id, currency_code="usd", shipping_address_id=a.id, payment_status="awaiting")
                  for i, a in zip(range(start, start + size), addresses)]
        await Order.bulk_create(orders)
        await LineItem.bulk_create([LineItem(order_id=o.id, title=f"Item {n}", unit_price=1000 + n, quantity=n + 1)
                                    for o in orders for n in range(2)])
        print(f"  {start + size} orders", end="\r", flush=True)
    print()


async def run(settings: Settings, orders: int) -> dict:
    from app.shapes.completion import ApiAnswers
    from models import BatchJob
    from services import setup
    from services.batch_jobs.lifecycle import create_batch_job, run_pre_processing, run_processing
    from services.files import storage

    settings = _named(settings)
    async with open_store(settings):
        started = time.perf_counter()
        await add_orders(orders)
        print(f"orders in place in {time.perf_counter() - started:.1f}s")
        setup.configure(settings, answers=ApiAnswers())  # as the worker process starts
        gc.collect()
        gc.freeze()  # as its boot ends (workers/boot.py FreezeBoot)
        rss_before = peak_rss_mb()
        job = await create_batch_job("bench", "order-export", {})
        backends = await _backends()
        server_cpu = sum(_cpu_seconds(pid) for pid in backends)
        started, cpu = time.perf_counter(), time.process_time()
        await run_pre_processing(job.id)
        await run_processing(job.id)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        # Backends the pool opened during the export started at none
        server_cpu = sum(_cpu_seconds(pid) for pid in set(backends) | set(await _backends())) - server_cpu
        job = await BatchJob.get(id=job.id)
        digest = hashlib.md5()
        with storage().open_read(job.result["file_key"]) as f:  # after the timing: to compare runs' files
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        return {
            "orders": job.result.get("count"), "status": job.status,
            "file_mb": round((job.result.get("file_size") or 0) / 1e6, 1),
            "export_s": round(seconds, 2), "orders_per_s": round((job.result.get("count") or 0) / seconds),
            # This process's CPU time (not the database's): what the figure is on a machine others share
            "export_cpu_s": round(cpu, 2), "orders_per_cpu_s": round((job.result.get("count") or 0) / cpu),
            # ... and the PostgreSQL backends' serving it meanwhile
            "postgres_cpu_s": round(server_cpu, 2),
            "load_average_1_5_15": load_average(),
            "peak_rss_mb_before_export": round(rss_before, 1), "peak_rss_mb": round(peak_rss_mb(), 1),
            "file_md5": digest.hexdigest(),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=100_000)
    args = parser.parse_args()
    run_and_print(lambda settings: run(settings, args.orders), "export-bench-")


if __name__ == "__main__":
    main()

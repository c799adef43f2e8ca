"""Worker profile (not a test): what an order placement costs the `commerce worker` process.
Places N orders in this process (the whole checkout, through the API, against `DATABASE_URL`
with the demo seed, no worker running), then runs the jobs they asked for as a worker does, one
at a time, until none is left: the outbox claim, the actor, the finish (workers/tracking.py),
and the send of the jobs a job asks for. Reports the worker's CPU-ms and statements per order,
per actor; `--sql` counts the statements (and prints each actor's last), `--profile` prints the heaviest functions
(own time) of that part.

    DATABASE_URL=postgres://... .venv/bin/python -m bench.worker_profile --orders 30 [--sql] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import logging
import os
import pstats
import time
from collections import defaultdict

from app.config import Settings
from bench.checkout_driver import _catalogue, checkout
from bench.checkout_profile import _Statements
from bench.in_process import open_store, served


async def _place(settings: Settings, orders: int) -> None:
    async with served(settings, "worker_profile") as client:
        region_id, country, variants = await _catalogue(client, "usd")
        timings: dict = defaultdict(list)
        for n in range(orders):
            await checkout(client, region_id, country, variants, n, timings)


last_sql: dict[str, list[str]] = {}  # the statements of the last job of each actor


async def _work(actors: tuple[str, ...], count: bool) -> dict[str, list[tuple[float, int]]]:
    """Run every unfinished job of `actors` as the worker would; CPU ms each, and with `count`
    its statements (Tortoise's query log, which costs CPU of its own: not counted by default)."""
    import dramatiq

    from services.core import outbox
    from models import Job

    broker = dramatiq.get_broker()
    handler = _Statements()
    logger = logging.getLogger("tortoise.db_client")
    if count:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
    ran: dict[str, list[tuple[float, int]]] = defaultdict(list)
    last_sql.clear()
    try:
        while True:
            jobs = await Job.filter(status__in=("pending", "enqueued"), actor_name__in=actors).order_by("created_at")
            if not jobs:
                return ran
            for job in jobs:
                handler.queries.clear()
                c = time.process_time()
                attempt = await outbox.claim(job.id)
                result = await broker.get_actor(job.actor_name).fn.__wrapped__(*job.args, **job.kwargs)
                await outbox.finish(job.id, result, attempt=attempt)
                ran[job.actor_name].append(((time.process_time() - c) * 1000, len(handler.queries)))
                last_sql[job.actor_name] = list(handler.queries)
    finally:
        logger.removeHandler(handler)
        for queue in broker.queues:
            broker.flush(queue)


async def _run(orders: int, profile: bool, sql: bool) -> None:
    settings = Settings.from_env()
    actors = ("dispatch_event", "send_notification", "deliver_webhook")
    async with open_store(settings):
        from app.shapes.completion import ApiAnswers
        from services import setup

        setup.configure(settings, answers=ApiAnswers())  # as the worker process starts
        await _work(actors, False)  # what earlier runs left
        await _place(settings, orders)
        profiler = cProfile.Profile()
        if profile:
            profiler.enable()
        c0 = time.process_time()
        ran = await _work(actors, sql)
        total = (time.process_time() - c0) * 1000
        if profile:
            profiler.disable()
    print(f"{orders} orders placed; the worker's part, one job at a time (claim, actor, finish):")
    print("| actor | jobs | CPU ms per job (mean) | statements per job |")
    print("|---|---|---|---|")
    for name, rows in ran.items():
        stmts = "/".join(map(str, sorted({s for _, s in rows}))) if sql else "(--sql)"
        print(f"| {name} | {len(rows)} | {sum(c for c, _ in rows) / len(rows):.2f} | {stmts} |")
    print(f"per order: {total / orders:.2f} CPU-ms; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if sql:
        for name, queries in last_sql.items():
            print(f"\n-- {name}: {len(queries)} statements")
            for q in queries:
                print(q[:300])
    if profile:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(45)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--orders", type=int, default=30)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--sql", action="store_true", help="print the statements of each actor's last job")
    args = parser.parse_args()
    asyncio.run(_run(args.orders, args.profile, args.sql))

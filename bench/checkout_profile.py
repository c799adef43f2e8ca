"""Checkout profile (not a test): whole checkouts, one request at a time, in this process against
`DATABASE_URL` (the demo seed loaded), each request counted: its statements, its wall time and the
process's CPU time over it (the server's work plus the in-process client's, about 1 ms a
request). The wall time less the CPU time is, on a quiet machine, time spent waiting on
PostgreSQL. On a PostgreSQL database of this host the backends' CPU over the checkouts is
reported too (run it with nothing else on that database). With `--profile STEP` the requests of
that step (`all`: of every step) run under cProfile, timed by the process's CPU time, and the heaviest functions
(cumulative; `--sort tottime` by their own time) are printed; `--sql STEP` prints that step's
statements of the last checkout.

    .venv/bin/python -m bench.checkout_profile --checkouts 30 [--profile complete] [--sql add_shipping]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import logging
import os
import pstats
import statistics
import time
from collections import defaultdict
from urllib.parse import urlparse

from app.config import Settings
from bench.checkout_driver import ADDRESS, _catalogue, _cpu_ms, _pg_backends, _ticks
from bench.in_process import open_store, served

STEPS = ("create_cart", "add_item", "address_email", "shipping_options", "add_shipping", "payment_sessions",
         "select_session", "complete")


class _Statements(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.queries: list[str] = []

    def emit(self, record):
        message = record.getMessage()
        if not message.startswith(("Created connection", "Closed connection")):
            self.queries.append(message)


async def _run(checkouts: int, profile: str | None, sql: str | None, sort: str = "cumulative") -> None:
    settings = Settings.from_env()
    async with open_store(settings):
        async with served(settings, "checkout_profile") as client:
            region_id, country, variants = await _catalogue(client, "usd")
            handler = _Statements()
            logger = logging.getLogger("tortoise.db_client")
            logger.addHandler(handler)
            logger.setLevel(logging.DEBUG)
            logger.propagate = False
            rows: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
            profiler = cProfile.Profile(time.process_time)  # CPU, not the wait on PostgreSQL
            last_sql: list[str] = []

            async def step(name, method, path, body=None):
                handler.queries.clear()
                if profile in (name, "all"):
                    profiler.enable()
                c, t = time.process_time(), time.perf_counter()
                response = await client.request(method, path, json=body)
                wall, cpu = time.perf_counter() - t, time.process_time() - c
                if profile in (name, "all"):
                    profiler.disable()
                if response.status_code != 200:
                    raise SystemExit(f"{name}: {response.status_code} {response.text[:300]}")
                rows[name].append((len(handler.queries), wall * 1000, cpu * 1000))
                if name == sql:
                    last_sql[:] = list(handler.queries)
                return response.json()

            database = urlparse(settings.database_url).path.lstrip("/") if settings.database_url.startswith(
                "postgres") else None
            pg0 = _ticks(_pg_backends(database)) if database else {}
            c0, began = time.process_time(), time.perf_counter()
            for n in range(checkouts):
                cart = (await step("create_cart", "POST", "/store/carts", {"region_id": region_id}))["cart"]
                cid = cart["id"]
                for i in range(3):
                    await step("add_item", "POST", f"/store/carts/{cid}/line-items",
                               {"variant_id": variants[(n + i) % len(variants)], "quantity": 1})
                await step("address_email", "POST", f"/store/carts/{cid}", {
                    "email": f"profile{n}@example.com", "shipping_address": {**ADDRESS, "country_code": country}})
                options = (await step("shipping_options", "GET", f"/store/shipping-options/{cid}"))["shipping_options"]
                await step("add_shipping", "POST", f"/store/carts/{cid}/shipping-methods",
                           {"option_id": options[0]["id"]})
                await step("payment_sessions", "POST", f"/store/carts/{cid}/payment-sessions")
                await step("select_session", "POST", f"/store/carts/{cid}/payment-session", {"provider_id": "manual"})
                done = await step("complete", "POST", f"/store/carts/{cid}/complete")
                if done.get("type") != "order":
                    raise SystemExit(f"complete answered {done.get('type')}")
            logger.removeHandler(handler)
            pg_ms = _cpu_ms(pg0, _ticks(_pg_backends(database))) / checkouts if database else float("nan")
            own_ms = (time.process_time() - c0) * 1000 / checkouts
            wall_ms = (time.perf_counter() - began) * 1000 / checkouts

    skip = min(3, checkouts - 1)  # the first checkouts fill the per-process caches and statement caches
    print(f"{checkouts} checkouts, one request at a time (the first {skip} left out)")
    print("| step | statements | p50 ms | CPU ms (p50) | wall − CPU ms |")
    print("|---|---|---|---|---|")
    total_cpu = total_wall = 0.0
    for name in STEPS:
        per = [r for r in rows[name]][skip * (3 if name == "add_item" else 1):]
        stmts = sorted({r[0] for r in per})
        wall = statistics.median(r[1] for r in per)
        cpu = statistics.median(r[2] for r in per)
        total_cpu += cpu * (3 if name == "add_item" else 1)
        total_wall += wall * (3 if name == "add_item" else 1)
        print(f"| {name} | {'/'.join(map(str, stmts))} | {wall:.1f} | {cpu:.1f} | {wall - cpu:.1f} |")
    print(f"whole checkout: {total_wall:.0f} ms wall, {total_cpu:.0f} ms CPU (this process), medians summed")
    print(f"per checkout, all {checkouts}: {wall_ms:.0f} ms wall, {own_ms:.1f} CPU-ms this process, "
          f"{pg_ms:.1f} CPU-ms PostgreSQL; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if last_sql:
        print(f"\n-- {sql}: {len(last_sql)} statements")
        for q in last_sql:
            print(q[:400])
    if profile:
        print(f"\n-- cProfile of {profile}")
        pstats.Stats(profiler).sort_stats(sort).print_stats(45)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkouts", type=int, default=30)
    parser.add_argument("--profile", choices=(*STEPS, "all"))
    parser.add_argument("--sql", choices=STEPS)
    parser.add_argument("--sort", default="cumulative", help="the profile's order: cumulative, tottime, …")
    args = parser.parse_args()
    asyncio.run(_run(args.checkouts, args.profile, args.sql, args.sort))

"""One page's cost in this process (not a test): the pages of bench/page_speed.py, each sent
`--requests` times one at a time to the app served inside this process, on `DATABASE_URL` as it is
(no migration, no write: a big shop can be read as `commerce serve` reads it). For each page: the
statements a request sends, its wall time (one at a time), the process's CPU-ms a request (the server's work plus the in-process
client's, about 1 ms) and, on a PostgreSQL database of this host, its backends' CPU-ms a request
(those serving this process's connections); `--cold` forgets the kept answers (app/web/answer_cache.py)
before each request, so each builds its answer. `--profile` runs the requests under cProfile, timed by
the process's CPU time, and prints the heaviest functions; `--sql` prints one request's statements.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bigshop_1m \\
      .venv/bin/python -m bench.page_profile --only "discount list" --requests 50 [--profile] [--sql]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import logging
import os
import pstats
import time
from dataclasses import replace
from urllib.parse import urlparse

import aiohttp
from tortoise import Tortoise

from app.config import Settings
from bench.checkout_driver import _cpu_ms, _pg_backends, _pg_backends_serving, _ticks
from app.web.answer_cache import forget_answers
from bench.in_process import served
from bench.page_speed import Server


class _Statements(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.queries: list[str] = []

    def emit(self, record) -> None:
        message = record.getMessage()
        if not message.startswith(("Created connection", "Closed connection")):
            self.queries.append(message)


async def _run(args) -> None:
    settings = replace(Settings.from_env(), redis_url=None)
    database = urlparse(settings.database_url).path.lstrip("/") if settings.database_url.startswith("postgres") else None
    await Tortoise.init(config=settings.tortoise_config(), _enable_global_fallback=True)
    try:
        async with served(settings, "page_profile") as client:
            server = await Server(str(client.base_url).rstrip("/")).open(args)
            try:
                await _pages(server, database, args)
            finally:
                await server.close()
    finally:
        await Tortoise.close_connections()


async def _pages(server: Server, database: str | None, args) -> None:
    handler = _Statements()
    logger = logging.getLogger("tortoise.db_client")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    print("| page | statements | wall ms | server CPU-ms | PostgreSQL CPU-ms |\n|---|---|---|---|---|")
    for name, (method, path, body) in server.loads.items():
        if args.only and not any(word in name for word in args.only):
            continue
        session: aiohttp.ClientSession | None = server.session(name)
        if session is None:
            continue

        async def send() -> None:
            if args.cold:
                forget_answers()
            async with session.request(method, path, json=body) as answer:
                text = await answer.read()
                if answer.status >= 300:
                    raise SystemExit(f"{name}: {answer.status} {text[:300]!r}")

        for _ in range(3):  # warm: the process's caches, the statements built once
            await send()
        handler.queries.clear()
        await send()
        statements = list(handler.queries)
        profiler = cProfile.Profile(time.process_time) if args.profile else None
        backends = _pg_backends(database) & _pg_backends_serving({os.getpid()}) if database else set()
        pg0, cpu0, wall0 = _ticks(backends), time.process_time(), time.perf_counter()
        if profiler:
            profiler.enable()
        for _ in range(args.requests):
            await send()
        if profiler:
            profiler.disable()
        cpu = (time.process_time() - cpu0) * 1000 / args.requests
        wall = (time.perf_counter() - wall0) * 1000 / args.requests
        pg = _cpu_ms(pg0, _ticks(backends)) / args.requests if backends else float("nan")
        print(f"| {name} | {len(statements)} | {wall:.1f} | {cpu:.1f} | {pg:.1f} |", flush=True)
        if args.sql:
            for sql in statements:
                print(f"    {sql[:args.sql_width]}")
        if profiler:
            pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--email", default="admin@test.com")
    parser.add_argument("--password", default="supersecret")
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--cold", action="store_true", help="no kept answer: each request builds its answer")
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sql", action="store_true")
    parser.add_argument("--sql-width", type=int, default=400)
    parser.add_argument("--cart-lines", type=int, help="also read a cart of this many lines, made first (a write)")
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()

"""What the in-process benchmarks share: the store opened on `DATABASE_URL` as a worker opens it
(migrated, the defaults in place, the in-memory broker with the actors loaded), the app served to a
client in the same process, a batch job run as an actor runs it with its wall and CPU time, the
process's peak memory, and the run of a bench from the command line to its printed figures."""

from __future__ import annotations

import asyncio
import socket
import os
import resource
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace

import httpx
from tortoise import Tortoise

from app.config import Settings

__all__ = ["JobRun", "load_average", "open_store", "peak_rss_mb", "run_batch_job", "run_and_print", "served"]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def load_average() -> str:
    """The 1, 5 and 15 minute load averages: the machine is shared, so every figure carries them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_and_print(run: Callable[[Settings], Awaitable[dict]], files_prefix: str) -> None:
    """Run a bench on the settings from the environment, its files kept in a new temporary folder
    named `files_prefix…`, and print its figures one a line."""
    settings = replace(Settings.from_env(), file_storage_dir=tempfile.mkdtemp(prefix=files_prefix))
    result = asyncio.run(run(settings))
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")


@asynccontextmanager
async def open_store(settings: Settings, *, broker: bool = True):
    """The migrated store with its defaults, closed at the end; `broker`: the in-memory broker and
    the actors, for runs called directly as an actor would call them."""
    from tortoise.migrations.api.migrate import migrate

    from services.orders.display_ids import ensure_sequence
    from services.store.defaults import ensure_defaults
    from workers.broker import load_actors, setup_broker

    if broker:
        setup_broker(replace(settings, redis_url=None))
        load_actors()
    await migrate(config=settings.tortoise_config())
    await Tortoise.close_connections()
    await Tortoise.init(config=settings.tortoise_config(), _enable_global_fallback=True)
    try:
        await ensure_defaults()
        await ensure_sequence()
        yield
    finally:
        await Tortoise.close_connections()


@dataclass(frozen=True)
class JobRun:
    """Seconds a batch job's two runs took; `processing_cpu_s`: the CPU seconds of its processing,
    this process's plus, on a local PostgreSQL, those of the server processes serving the bench's
    connections (the figure the machine's load hardly moves); the process's peak memory before
    the job, MB."""

    pre_processing_s: float
    processing_s: float
    processing_cpu_s: float
    peak_rss_mb_before: float

    def figures(self, count: int, unit: str) -> dict:
        """The times, the rates of `count` `unit`s (rows, prices) per second and the memory, as printed."""
        cpu = self.processing_cpu_s
        return {
            "pre_processing_s": round(self.pre_processing_s, 2), "processing_s": round(self.processing_s, 2),
            f"processing_{unit}_per_s": round(count / self.processing_s),
            "processing_cpu_s": round(cpu, 2), f"processing_{unit}_per_cpu_s": round(count / cpu) if cpu else None,
            f"end_to_end_{unit}_per_s": round(count / (self.pre_processing_s + self.processing_s)),
            "load_average_1_5_15": load_average(),
            "peak_rss_mb_before_job": round(self.peak_rss_mb_before, 1), "peak_rss_mb": round(peak_rss_mb(), 1),
        }


async def run_batch_job(job_id: str) -> JobRun:
    """Pre-process and process a created batch job, called directly as the actors call them."""
    from services.batch_jobs.lifecycle import run_pre_processing, run_processing

    rss_before = peak_rss_mb()
    started = time.perf_counter()
    await run_pre_processing(job_id)
    pre_seconds = time.perf_counter() - started
    pids = await _server_pids()
    cpu_before = _cpu(pids)
    started = time.perf_counter()
    await run_processing(job_id)
    process_seconds = time.perf_counter() - started
    pids = sorted(set(pids) | set(await _server_pids()))
    return JobRun(pre_seconds, process_seconds, _cpu(pids) - cpu_before, rss_before)


def _cpu_seconds(pid: int | str = "self") -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:  # not Linux, or the server is not on this machine
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu(pids: list[int]) -> float:
    return _cpu_seconds() + sum(_cpu_seconds(pid) for pid in pids)


async def _server_pids() -> list[int]:
    """The PostgreSQL backends serving this database (the bench's pool): the bench is alone on it."""
    from tortoise import connections

    connection = connections.get("default")
    if connection.capabilities.dialect != "postgres":
        return []
    _, rows = await connection.execute_query(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
    return [row[0] for row in rows]


@asynccontextmanager
async def served(settings: Settings, name: str):
    """The app on a free loopback port inside this process (the store already open, see
    `open_store`), as an HTTP client to it; the server stops at the end."""
    from app.server import create_app

    app = create_app(settings, manage_orm=False, name=name)
    app.config.TOUCHUP = False
    with socket.socket() as probe:  # Sanic takes port 0 for its default, 8000: ask the system for a free one
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    server = await app.create_server(host="127.0.0.1", port=free, return_asyncio_server=True, access_log=False)
    await server.startup()
    await server.before_start()
    await server.after_start()
    port = server.server.sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            yield client
    finally:
        await server.before_stop()
        await server.close()

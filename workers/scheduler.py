"""`commerce scheduler`: one APScheduler process (or, embedded, a scheduler on the web loop).

Its first job re-sends outbox rows that never reached a worker; the next resumes (or fails)
batch jobs whose worker stopped reporting; the others ask for maintenance actors through the
outbox. Every job is a catch-up sweep, so a missed tick loses nothing.
Run exactly one scheduler per deployment.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from datetime import datetime, timedelta, timezone

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger
from tortoise import Tortoise

from app.config import Settings
from jobs import outbox
from services.batch_jobs import resume_stalled

__all__ = ["build_scheduler", "run_scheduler", "sweep_outbox", "sweep_batch_jobs", "ask_for_maintenance"]

log = logging.getLogger("commerce.scheduler")

MAINTENANCE_ACTORS = ("purge_sessions", "purge_jobs")


async def sweep_outbox(settings: Settings) -> int:
    return await outbox.resend_stale(settings.outbox_grace_seconds, settings.job_lease_seconds)


async def sweep_batch_jobs(settings: Settings) -> dict[str, int]:
    counts = await resume_stalled(settings.batch_job_lease_seconds)
    if any(counts.values()):
        log.info("batch job sweep: %d resumed, %d failed", counts["resumed"], counts["failed"])
    return counts


async def ask_for_maintenance() -> None:
    for actor in MAINTENANCE_ACTORS:
        await outbox.enqueue(actor, queue_name="maintenance")


def build_scheduler(settings: Settings) -> AsyncIOScheduler:
    scheduler = AsyncIOScheduler(timezone="UTC")
    now = datetime.now(timezone.utc)
    common = {"coalesce": True, "max_instances": 1, "misfire_grace_time": 60}
    scheduler.add_job(
        sweep_outbox, IntervalTrigger(seconds=settings.scheduler_interval_seconds), args=[settings],
        id="outbox", next_run_time=now + timedelta(seconds=1), **common,
    )
    scheduler.add_job(
        sweep_batch_jobs, IntervalTrigger(seconds=settings.scheduler_interval_seconds), args=[settings],
        id="batch_jobs", next_run_time=now + timedelta(seconds=2), **common,
    )
    scheduler.add_job(
        ask_for_maintenance, IntervalTrigger(hours=1), id="maintenance",
        next_run_time=now + timedelta(minutes=1), **common,
    )
    return scheduler


async def run_scheduler(settings: Settings) -> None:
    await Tortoise.init(config=settings.tortoise_config(), _enable_global_fallback=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    scheduler = build_scheduler(settings)
    scheduler.start()
    log.info("scheduler running: outbox sweep every %ss", settings.scheduler_interval_seconds)
    try:
        await stop.wait()
    finally:
        scheduler.shutdown(wait=False)
        await Tortoise.close_connections()

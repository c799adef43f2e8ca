"""`commerce scheduler`: one APScheduler process (or, embedded, a scheduler on the web loop).

Its first job re-sends outbox rows that never reached a worker; the next resumes (or fails)
batch jobs whose worker stopped reporting; the third hands stalled cart completions to their
retry actor; the others ask for maintenance actors through the outbox (among them the
reconciler of payments authorized long ago without an order). Every job is a catch-up sweep,
so a missed tick loses nothing.
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
from services.batch_jobs.lifecycle import resume_stalled
from services.checkout.completion import hand_over_stalled

__all__ = [
    "build_scheduler", "stop_scheduler", "run_scheduler", "sweep_outbox", "sweep_batch_jobs", "sweep_completions",
    "ask_for_maintenance",
]

log = logging.getLogger("commerce.scheduler")

MAINTENANCE_ACTORS = ("purge_sessions", "purge_jobs", "purge_idempotency_keys")


async def sweep_outbox(settings: Settings) -> int:
    return await outbox.resend_stale(settings.outbox_grace_seconds, settings.job_lease_seconds)


async def sweep_batch_jobs(settings: Settings) -> dict[str, int]:
    counts = await resume_stalled(settings.batch_job_lease_seconds)
    if any(counts.values()):
        log.info("batch job sweep: %d resumed, %d failed", counts["resumed"], counts["failed"])
    return counts


async def sweep_completions(settings: Settings) -> int:
    handed = await hand_over_stalled()
    if handed:
        log.info("completion sweep: %d stalled completions handed to the retry actor", handed)
    return handed


async def ask_for_maintenance(settings: Settings) -> None:
    for actor in MAINTENANCE_ACTORS:
        await outbox.enqueue(actor, queue_name="maintenance")
    await outbox.enqueue("cancel_stale_authorizations", settings.stale_authorization_seconds,
                         queue_name="maintenance")


def _tracked(job, in_flight: set[asyncio.Task]):
    """`job`, remembering its task while it runs, so a stop can let it finish first."""
    async def run(*args):
        task = asyncio.current_task()
        in_flight.add(task)
        try:
            return await job(*args)
        finally:
            in_flight.discard(task)

    run.__name__ = run.__qualname__ = job.__name__
    return run


def build_scheduler(settings: Settings) -> AsyncIOScheduler:
    scheduler = AsyncIOScheduler(timezone="UTC")
    scheduler.in_flight = set()
    now = datetime.now(timezone.utc)
    common = {"coalesce": True, "max_instances": 1, "misfire_grace_time": 60}
    sweep = IntervalTrigger(seconds=settings.scheduler_interval_seconds)
    for job, trigger, args, first_run in (
        (sweep_outbox, sweep, [settings], timedelta(seconds=1)),
        (sweep_batch_jobs, sweep, [settings], timedelta(seconds=2)),
        (sweep_completions, sweep, [settings], timedelta(seconds=3)),
        (ask_for_maintenance, IntervalTrigger(hours=1), [settings], timedelta(minutes=1)),
    ):
        scheduler.add_job(
            _tracked(job, scheduler.in_flight), trigger, args=args, id=job.__name__,
            next_run_time=now + first_run, **common,
        )
    return scheduler


async def stop_scheduler(scheduler: AsyncIOScheduler, timeout: float = 10.0) -> None:
    """No new runs, then wait (bounded) for the running ones before shutting down: APScheduler's
    shutdown cancels them mid-query, which logs a failure that is not one."""
    scheduler.pause()
    running = set(scheduler.in_flight)
    if running:
        await asyncio.wait(running, timeout=timeout)
    scheduler.shutdown(wait=False)


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
        await stop_scheduler(scheduler)
        await Tortoise.close_connections()

"""`commerce scheduler`: an APScheduler process (or, embedded, a scheduler on the web loop).

Its first job re-sends outbox rows that never reached a worker and takes over jobs whose worker
died; the next resumes (or fails) batch jobs whose run stopped reporting; the third hands stalled
cart completions to their retry actor; the fourth queues webhook deliveries whose next attempt is
due; the others ask for maintenance actors through the outbox
(among them the reconciler of payments authorized long ago without an order), and for the
plugins' scheduled jobs (services/core/plugins.py Schedule: with STRIPE_API_KEY, the built-in Stripe
plugin's reconciler of its intents, services/payments/stripe/sweep.py). Every job is a catch-up
sweep, so a missed tick loses nothing.

Any number of schedulers may run (two hosts, a rolling deploy): each sweep runs once per
interval across them. Intervals are slots of wall-clock time that every scheduler ticks in at
the same phase; the first scheduler to count a slot in the shared counters (Redis, the database
while Redis is away or when embedded) runs it, the others skip it. When that one dies, another
runs the next slot: a standby takes over within one interval.
"""

from __future__ import annotations

import asyncio
import logging
import math
import signal
import time
from datetime import datetime, timezone

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from tortoise import Tortoise

from app.config import Settings
from services import plugins
from services.core import outbox
from services.core.plugins import Schedule
from services.batch_jobs.lifecycle import resume_stalled
from services.checkout.completion import hand_over_stalled
from services.core.rate_limits import CounterStore, DatabaseCounterStore, RedisCounterStore
from services.webhooks.delivery import queue_due

__all__ = [
    "build_scheduler", "stop_scheduler", "run_scheduler", "sweep_outbox", "sweep_batch_jobs", "sweep_completions",
    "sweep_webhooks", "ask_for_maintenance", "ask_for_scheduled", "Turns", "turns_for",
]

log = logging.getLogger("commerce.scheduler")

SCHEDULER_POOL_SIZE = 5  # PostgreSQL connections: one for each sweep of build_scheduler, which may overlap

MAINTENANCE_ACTORS = (
    "purge_sessions", "purge_jobs", "purge_idempotency_keys", "purge_events", "purge_gateway_events",
)


async def sweep_outbox(settings: Settings) -> int:
    return await outbox.resend_stale(
        settings.outbox_grace_seconds, settings.job_lease_seconds, settings.job_takeover_seconds
    )


async def sweep_batch_jobs(settings: Settings) -> dict[str, int]:
    counts = await resume_stalled(settings.job_takeover_seconds)
    if any(counts.values()):
        log.info("batch job sweep: %d resumed, %d failed", counts["resumed"], counts["failed"])
    return counts


async def sweep_completions(settings: Settings) -> int:
    handed = await hand_over_stalled()
    if handed:
        log.info("completion sweep: %d stalled completions handed to the retry actor", handed)
    return handed


async def sweep_webhooks(settings: Settings) -> int:
    queued = await queue_due()
    if queued:
        log.info("webhook sweep: %d deliveries due for another attempt", queued)
    return queued


async def ask_for_maintenance(settings: Settings) -> None:
    for actor in MAINTENANCE_ACTORS:
        await outbox.enqueue(actor, queue_name="maintenance")
    await outbox.enqueue("cancel_stale_authorizations", settings.stale_authorization_seconds,
                         queue_name="maintenance")


def ask_for_scheduled(plugin: str, schedule: Schedule):
    """A plugin's scheduled job (services/core/plugins.py Schedule), asked for through the outbox:
    it runs on a worker, at least once, and `commerce jobs list` shows it."""
    async def ask(settings: Settings) -> None:
        await outbox.enqueue(schedule.actor, *schedule.args, queue_name=schedule.queue)

    ask.__name__ = ask.__qualname__ = f"{plugin}.{schedule.actor}"
    return ask


class Turns:
    """Whose turn a sweep's slot is, across every scheduler of the deployment: the first to
    count the slot. Without a store (a test's own scheduler) every slot is this one's."""

    def __init__(self, store: CounterStore | None):
        self.store = store

    async def take(self, name: str, slot: int, seconds: float) -> bool:
        """True for the first scheduler to ask for `name`'s slot number `slot`."""
        if self.store is None:
            return True
        count, _ = await self.store.hit(f"{name}:{slot}", seconds * 2)
        return count == 1


def turns_for(settings: Settings, redis_client=None) -> Turns:
    """Redis counters when the deployment has Redis (the database while it is away); the
    database when embedded, where every web process runs a scheduler of its own."""
    prefix = f"{settings.redis_namespace}:turn:"
    if redis_client is None:
        return Turns(DatabaseCounterStore(prefix))
    return Turns(RedisCounterStore(redis_client, prefix=prefix, fallback=DatabaseCounterStore(prefix)))


def _in_turn(job, turns: Turns, seconds: float):
    """`job`, run only in the slots this scheduler wins."""
    async def run(*args):
        slot = math.floor(time.time() / seconds)
        if await turns.take(job.__name__, slot, seconds):
            log.debug("%s: slot %d runs here", job.__name__, slot)
            return await job(*args)
        log.debug("%s: slot %d runs in another scheduler", job.__name__, slot)
        return None

    run.__name__ = run.__qualname__ = job.__name__
    return run


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


def _aligned(seconds: float, phase: float) -> IntervalTrigger:
    """Every `seconds`, at `phase` (0 to 1) of each wall-clock slot: the same instants on every
    host, well inside the slot, so the schedulers contend for each slot at once."""
    now = time.time()
    start = (math.floor(now / seconds) + phase) * seconds
    if start <= now:
        start += seconds
    return IntervalTrigger(seconds=seconds, start_date=datetime.fromtimestamp(start, timezone.utc))


def build_scheduler(settings: Settings, turns: Turns | None = None) -> AsyncIOScheduler:
    """The sweeps; with `turns`, each run only by the scheduler whose turn its slot is."""
    turns = turns or Turns(None)
    scheduler = AsyncIOScheduler(timezone="UTC")
    scheduler.in_flight = set()
    common = {"coalesce": True, "max_instances": 1, "misfire_grace_time": 60}
    interval = settings.scheduler_interval_seconds
    for job, seconds, phase in (
        (sweep_outbox, interval, 0.2),
        (sweep_batch_jobs, interval, 0.4),
        (sweep_completions, interval, 0.6),
        (sweep_webhooks, interval, 0.8),
        (ask_for_maintenance, 3600.0, 0.02),
    ):
        scheduler.add_job(
            _tracked(_in_turn(job, turns, seconds), scheduler.in_flight), _aligned(seconds, phase),
            args=[settings], id=job.__name__, **common,
        )
    for plugin, schedule in plugins.schedules_of(plugins.current()):  # the plugins' (Stripe's reconciliation …)
        job = ask_for_scheduled(plugin, schedule)
        if schedule.every is not None:
            trigger, seconds = _aligned(schedule.every, 0.1), schedule.every
        else:  # each minute a cron line fires in is one slot
            trigger, seconds = CronTrigger.from_crontab(schedule.cron, timezone="UTC"), 60.0
        scheduler.add_job(_tracked(_in_turn(job, turns, seconds), scheduler.in_flight), trigger, args=[settings],
                          id=job.__name__, **common)
    return scheduler


async def stop_scheduler(scheduler: AsyncIOScheduler, timeout: float = 10.0) -> None:
    """No new runs, then wait (bounded) for the running ones before shutting down: APScheduler's
    shutdown cancels them mid-query, which logs a failure that is not one."""
    scheduler.pause()
    # A run handed to the executor just before the pause starts on the loop's next turn: let it
    # register, then wait for every registered run (each is bounded by the timeout overall).
    await asyncio.sleep(0.05)
    deadline = asyncio.get_running_loop().time() + timeout
    while scheduler.in_flight and asyncio.get_running_loop().time() < deadline:
        await asyncio.wait(set(scheduler.in_flight), timeout=max(0.0, deadline - asyncio.get_running_loop().time()))
    scheduler.shutdown(wait=False)


async def run_scheduler(settings: Settings) -> None:
    await Tortoise.init(config=settings.tortoise_config(SCHEDULER_POOL_SIZE), _enable_global_fallback=True)
    redis_client = None
    if settings.redis_url:
        import redis.asyncio as aioredis

        redis_client = aioredis.from_url(settings.redis_url, socket_connect_timeout=2, socket_timeout=5)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    scheduler = build_scheduler(settings, turns_for(settings, redis_client))
    scheduler.start()
    log.info("scheduler running: outbox sweep every %ss", settings.scheduler_interval_seconds)
    try:
        await stop.wait()
    finally:
        await stop_scheduler(scheduler)
        if redis_client is not None:
            await redis_client.aclose()
        await Tortoise.close_connections()

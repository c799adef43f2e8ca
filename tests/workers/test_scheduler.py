"""Stopping the scheduler lets a running sweep finish before the database connections close."""

import asyncio
from datetime import datetime, timezone

from apscheduler.triggers.interval import IntervalTrigger

from tests.conftest import SETTINGS, wait_for
from workers.scheduler import _tracked, build_scheduler, stop_scheduler


async def test_stop_waits_for_a_run_in_flight_and_starts_no_new_one():
    scheduler = build_scheduler(SETTINGS)
    scheduler.remove_all_jobs()
    runs: list[str] = []

    async def slow_sweep():
        runs.append("started")
        await asyncio.sleep(0.2)
        runs.append("finished")

    scheduler.add_job(_tracked(slow_sweep, scheduler.in_flight), IntervalTrigger(seconds=0.05),
                      next_run_time=datetime.now(timezone.utc), max_instances=1)
    scheduler.start()
    await wait_for(lambda: asyncio.sleep(0, result=bool(scheduler.in_flight)), timeout=5, interval=0.01)
    # When the scheduler is stopped while the sweep runs
    await stop_scheduler(scheduler)
    # I expect the sweep to have finished, and nothing to start afterwards
    assert runs == ["started", "finished"] and not scheduler.in_flight
    await asyncio.sleep(0.1)
    assert runs == ["started", "finished"]

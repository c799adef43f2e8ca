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
    await wait_for(lambda: asyncio.sleep(0, result=bool(scheduler.in_flight)), interval=0.01)
    # When the scheduler is stopped while the sweep runs
    await stop_scheduler(scheduler)
    # I expect the sweep to have finished, and nothing to start afterwards
    assert runs == ["started", "finished"] and not scheduler.in_flight
    await asyncio.sleep(0.1)
    assert runs == ["started", "finished"]


async def test_two_schedulers_sharing_the_database_take_each_slot_once():
    from workers.scheduler import turns_for

    first, second = turns_for(SETTINGS), turns_for(SETTINGS)  # embedded: the database's counters
    # Given both ask for the same sweep's slot, in either order
    assert await first.take("sweep_outbox", 100, 15) is True
    assert await second.take("sweep_outbox", 100, 15) is False
    # I expect the next slot to go to whichever asks first (a standby, once the other is gone)
    assert await second.take("sweep_outbox", 101, 15) is True
    assert await first.take("sweep_outbox", 101, 15) is False
    # and other sweeps to have slots of their own
    assert await second.take("sweep_batch_jobs", 100, 15) is True


async def test_the_sweeps_tick_at_the_same_phase_of_each_slot_on_every_host():
    scheduler = build_scheduler(SETTINGS)
    interval = SETTINGS.scheduler_interval_seconds
    for job in scheduler.get_jobs():
        if job.id != "ask_for_maintenance":
            start = job.trigger.start_date.timestamp()
            assert round((start / interval) % 1, 3) in (0.2, 0.4, 0.6, 0.8)

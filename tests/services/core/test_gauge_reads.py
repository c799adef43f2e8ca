"""The metrics' gauges (services/core/gauge_reads.py): the finished jobs' run time, summed by a
hand-written statement in the database, is what the ORM's rows add up to, on both backends."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from models import Job
from services.core.gauge_reads import read_gauges


async def test_the_run_time_summed_by_hand_is_what_the_orms_rows_add_up_to():
    # Given finished jobs of two actors (one failed), one still running and one never started
    start = datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=timezone.utc)
    for actor, status, seconds in (("send", "succeeded", 1.5), ("send", "succeeded", 2.25), ("send", "failed", 4),
                                   ("dispatch", "succeeded", 0.75)):
        await Job.create(actor_name=actor, status=status, started_at=start,
                         finished_at=start + timedelta(seconds=seconds))
    await Job.create(actor_name="send", status="running", started_at=start)
    await Job.create(actor_name="send", status="pending")
    # When the gauges are read
    gauges = await read_gauges()
    # I expect each actor's and outcome's run time and count as the ORM's rows add them up
    expected: dict[tuple[str, str], tuple[float, int]] = {}
    for job in await Job.filter(status__in=("succeeded", "failed")).exclude(started_at=None).exclude(finished_at=None):
        total, n = expected.get((job.actor_name, job.status), (0.0, 0))
        expected[(job.actor_name, job.status)] = (total + (job.finished_at - job.started_at).total_seconds(), n + 1)
    assert gauges.job_seconds.keys() == expected.keys() and len(expected) == 3
    for key, (total, n) in expected.items():
        mine_total, mine_n = gauges.job_seconds[key]
        assert mine_n == n and abs(mine_total - total) < 0.01, key
    # and the jobs by actor and status as the ORM counts them
    counted = {}
    for job in await Job.all():
        counted[(job.actor_name, job.status)] = counted.get((job.actor_name, job.status), 0) + 1
    assert gauges.jobs == counted and gauges.outbox_waiting == 1

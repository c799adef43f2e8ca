"""The job outbox. A job is first a row written in the caller's transaction; after commit it is
handed to the broker; the scheduler re-sends rows that never got there or were lost on the way.
A worker claims the row before running it, so a message delivered twice runs once."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

import dramatiq
from dramatiq import Message
from tortoise.expressions import F

from models import Job
from services.core import clock
from services.core.db import atomic

__all__ = ["enqueue", "send", "claim", "finish", "fail", "resend_stale", "purge_finished"]

log = logging.getLogger("commerce.jobs")

_CLAIMABLE = ("pending", "enqueued", "retrying")


async def enqueue(actor_name: str, *args: Any, queue_name: str = "default", **kwargs: Any) -> Job:
    """Ask for `actor_name(*args, **kwargs)`: a row now, a message once the transaction commits."""
    async with atomic() as unit:
        job = await Job.create(actor_name=actor_name, queue_name=queue_name, args=list(args), kwargs=kwargs)
        unit.after_commit(lambda: send(job))
    return job


async def send(job: Job) -> bool:
    """Hand the job to the broker. False when the broker cannot be reached (the row stays)."""
    message = Message(
        queue_name=job.queue_name, actor_name=job.actor_name, args=tuple(job.args), kwargs=job.kwargs,
        options={"job_id": job.id},
    )
    try:
        await asyncio.to_thread(dramatiq.get_broker().enqueue, message)
    except Exception as e:  # the broker is down or unknown: the scheduler's sweep sends it later
        log.warning("job %s (%s) not sent yet: %s", job.id, job.actor_name, e)
        return False
    now = clock.now()
    if not await Job.filter(id=job.id, status="pending").update(status="enqueued", enqueued_at=now):
        # A worker may have claimed it already; the hand-over time is still worth keeping.
        await Job.filter(id=job.id, enqueued_at=None).update(enqueued_at=now)
    return True


async def claim(job_id: str) -> bool:
    """Mark the job running; False when it already ran or is running (a duplicate message)."""
    claimed = await Job.filter(id=job_id, status__in=_CLAIMABLE).update(
        status="running", attempts=F("attempts") + 1, started_at=clock.now()
    )
    return claimed == 1


async def finish(job_id: str, result: Any = None) -> None:
    await Job.filter(id=job_id).update(status="succeeded", result=result, finished_at=clock.now(), last_error=None)


async def fail(job_id: str, error: str, *, final: bool) -> None:
    values = {"status": "failed", "finished_at": clock.now()} if final else {"status": "retrying"}
    await Job.filter(id=job_id).update(last_error=error[:4000], **values)


async def resend_stale(grace_seconds: float, lease_seconds: float) -> int:
    """The scheduler's sweep: send pending rows older than the grace period, and re-send jobs
    whose message was lost (enqueued too long ago) or whose worker died (running too long)."""
    now = clock.now()
    pending = await Job.filter(status="pending", created_at__lt=now - timedelta(seconds=grace_seconds))
    lost = await Job.filter(status__in=("enqueued", "retrying"), updated_at__lt=now - timedelta(seconds=lease_seconds))
    dead = await Job.filter(status="running", started_at__lt=now - timedelta(seconds=lease_seconds))
    if dead:
        await Job.filter(id__in=[j.id for j in dead], status="running").update(status="retrying")
    sent = 0
    for job in pending + lost + dead:
        sent += await send(job)
    if pending or lost or dead:
        log.info("outbox sweep: %d pending, %d lost, %d stalled; %d sent", len(pending), len(lost), len(dead), sent)
    return sent


async def purge_finished(older_than_seconds: float) -> int:
    """Bounded retention: succeeded jobs are kept for a while for inspection, then deleted."""
    cutoff = clock.now() - timedelta(seconds=older_than_seconds)
    return await Job.filter(status="succeeded", finished_at__lt=cutoff).delete()

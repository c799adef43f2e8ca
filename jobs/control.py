"""What an operator does with jobs (`commerce jobs list|show|retry|cancel`): read the rows, send
a failed job again, cancel one that has not started. Each move is one conditional UPDATE, so it
cannot race a worker: a job a worker claimed meanwhile is no longer retried or canceled here."""

from __future__ import annotations

from services.core import outbox
from models import Job
from services.core import clock
from services.core.errors import NotAllowed, NotFound

__all__ = ["list_jobs", "show_job", "retry_job", "cancel_job", "describe", "CANCELABLE"]

CANCELABLE = ("pending", "enqueued", "retrying")  # not yet running (retrying: waiting for its next try)


def describe(job: Job, *, full: bool = False) -> dict:
    row = {
        "id": job.id, "actor": job.actor_name, "queue": job.queue_name, "status": job.status,
        "attempts": job.attempts, "created_at": _iso(job.created_at), "started_at": _iso(job.started_at),
        "finished_at": _iso(job.finished_at), "last_error": job.last_error,
    }
    if full:
        row.update(args=job.args, kwargs=job.kwargs, result=job.result, enqueued_at=_iso(job.enqueued_at),
                   heartbeat_at=_iso(job.heartbeat_at), updated_at=_iso(job.updated_at))
    return row


def _iso(value) -> str | None:
    return value.isoformat() if value else None


async def list_jobs(*, status: list[str] | None = None, actor: list[str] | None = None, limit: int = 50) -> list[Job]:
    """Newest first, at most `limit` (1 to 1000)."""
    qs = Job.all()
    if status:
        qs = qs.filter(status__in=status)
    if actor:
        qs = qs.filter(actor_name__in=actor)
    return await qs.order_by("-created_at", "-id").limit(max(1, min(limit, 1000)))


async def show_job(job_id: str) -> Job:
    job = await Job.get_or_none(id=job_id)
    if job is None:
        raise NotFound(f"Job with id {job_id} was not found")
    return job


async def retry_job(job_id: str, *, send_now: bool = True) -> Job:
    """A failed (or canceled) job, run again: its attempts count on, its last error stays until
    the new run ends. `send_now=False` (a process without the deployment's broker, embedded):
    the row waits as pending for the scheduler's sweep to send it."""
    await show_job(job_id)
    if not await Job.filter(id=job_id, status__in=("failed", "canceled")).update(status="pending", finished_at=None):
        raise NotAllowed(f"Job {job_id} is {(await show_job(job_id)).status}: only a failed or canceled job is retried")
    if send_now:
        await outbox.send(await Job.get(id=job_id))
    return await Job.get(id=job_id)


async def cancel_job(job_id: str) -> Job:
    """A job that has not started is never run: a message already on its way is skipped."""
    await show_job(job_id)
    if not await Job.filter(id=job_id, status__in=CANCELABLE).update(
        status="canceled", finished_at=clock.now(), last_error="canceled by an operator",
    ):
        raise NotAllowed(f"Job {job_id} is {(await show_job(job_id)).status}: only a job not yet running is canceled")
    return await Job.get(id=job_id)

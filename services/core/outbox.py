"""The job outbox. A job is first a row written in the caller's transaction; after commit it is
handed to the broker; the scheduler re-sends rows that never got there or were lost on the way.
A worker claims the row before running it, so a message delivered twice runs once.

The send right after the commit leaves the row `pending` (no statement, no commit of its own: a
checkout asks for a job in every order placement, and the mark was a round trip and a commit each
time, racing the worker's claim for the row). A pending row is either on its way or was never
sent (its process died between the commit and the send): the sweep sends pending rows older than
the grace period and marks them `enqueued`, so a job waiting longer than that in a backlog gets
one more message, which its claim then drops. A row the sweep or a give-back sends is marked.

A claimed job proves it is alive by beating `heartbeat_at` every few seconds. A running job
whose heartbeat stopped (its worker died) is taken over, by the next message that names it or
by the scheduler's sweep, whichever comes first. Each claim counts an attempt, and the attempt
is the claim's fencing token: a run that was taken over can no longer beat, finish or fail the
row, so a job that is really running is never run twice."""

from __future__ import annotations

import asyncio
import logging
from contextvars import ContextVar
from datetime import timedelta
from typing import Any

import dramatiq
from dramatiq import Message
from tortoise.expressions import Q

from models import Job
from services.core import clock
from services.core.db import atomic
from services.core.purging import delete_in_batches, read_in_batches
from services.core.sql import db_value, insert, numbered, write

__all__ = [
    "QUEUES", "enqueue", "enqueue_at_end", "send", "claim", "beat", "finish", "fail", "give_back", "resend_stale", "purge_finished",
    "TAKEOVER_SECONDS", "running_claim", "claim_is_current",
]

# The queues a job may go on, which every worker takes: events, dispatching events to subscribers;
# webhooks, sending to receivers (slow ones never hold up the others); maintenance, the sweeps.
QUEUES = ("default", "maintenance", "events", "webhooks")

log = logging.getLogger("commerce.jobs")

_CLAIMABLE = ("pending", "enqueued", "retrying")
TAKEOVER_SECONDS = 15.0  # JOB_TAKEOVER_SECONDS' default: a running job silent this long lost its worker
_UNBEATEN_SECONDS = 900.0  # a running row that never beat (claimed by a worker of before heartbeats)
SWEEP_BATCH = 500  # rows the sweep reads a statement (and then sends, one message each)

# The claim (job id, attempt) the running actor holds, set by the worker's tracking before the actor
# runs (asyncio copies it into the actor's coroutine): work that takes a hold of its own, such as a
# batch job's lease, records it, so the hold ends with the claim (`claim_is_current`).
running_claim: ContextVar[tuple[str, int] | None] = ContextVar("running_claim", default=None)


def _silent(takeover_seconds: float) -> Q:
    """Running rows whose worker stopped beating: taken for dead."""
    now = clock.now()
    return Q(status="running") & (
        Q(heartbeat_at__lt=now - timedelta(seconds=takeover_seconds))
        | Q(heartbeat_at=None, started_at__lt=now - timedelta(seconds=max(takeover_seconds, _UNBEATEN_SECONDS)))
    )


# One statement, the claim and its attempt number (the condition is `_CLAIMABLE` or `_silent`):
# a worker claims every job it runs, so the second statement it took to read the count back was
# a round trip per job.
_CLAIM = (
    'UPDATE "job" SET "status" = \'running\', "attempts" = "attempts" + 1, "started_at" = ?, "heartbeat_at" = ? '
    'WHERE "id" = ? AND ("status" IN (' + ", ".join(f"'{s}'" for s in _CLAIMABLE) + ') OR ("status" = \'running\' '
    'AND ("heartbeat_at" < ? OR ("heartbeat_at" IS NULL AND "started_at" < ?) OR "attempts" = ?))) '
    'RETURNING "attempts"'
)
_CLAIM_PG = numbered("postgres", _CLAIM)


async def enqueue(actor_name: str, *args: Any, queue_name: str = "default", **kwargs: Any) -> Job:
    """Ask for `actor_name(*args, **kwargs)`: a row now, a message once the transaction commits."""
    return await _ask(Job(actor_name=actor_name, queue_name=queue_name, args=list(args), kwargs=kwargs), False)


async def enqueue_at_end(actor_name: str, *args: Any, queue_name: str = "default", **kwargs: Any) -> Job:
    """`enqueue`, the row written with the transaction's other put-off writes before its commit
    (services/core/db.py `write_at_end`), for a caller that does not read it back meanwhile: an
    event's dispatch, a message's sending (a round trip saved in every order placement)."""
    return await _ask(Job(actor_name=actor_name, queue_name=queue_name, args=list(args), kwargs=kwargs), True)


async def _ask(job: Job, at_end: bool) -> Job:
    async with atomic() as unit:
        await insert(job, at_end=at_end)
        unit.after_commit(lambda: send(job, mark=False))
    return job


async def send(job: Job, *, mark: bool = True) -> bool:
    """Hand the job to the broker. False when the broker cannot be reached (the row stays).
    `mark`: the row is marked `enqueued` (with when), as the sweep's sends are; without it a
    pending row stays pending until claimed (see the module's note)."""
    message = Message(
        queue_name=job.queue_name, actor_name=job.actor_name, args=tuple(job.args), kwargs=job.kwargs,
        options={"job_id": job.id},
    )
    try:
        await asyncio.to_thread(dramatiq.get_broker().enqueue, message)
    except Exception as e:  # the broker is down or unknown: the scheduler's sweep sends it later
        log.warning("job %s (%s) not sent yet: %s", job.id, job.actor_name, e)
        return False
    if not mark:
        return True
    now = clock.now()
    if not await Job.filter(id=job.id, status="pending").update(status="enqueued", enqueued_at=now):
        # A worker may have claimed it already; the hand-over time is still worth keeping.
        await Job.filter(id=job.id, enqueued_at=None).update(enqueued_at=now)
    return True


async def claim(job_id: str, takeover_seconds: float = TAKEOVER_SECONDS, retry_of: int | None = None) -> int | None:
    """Mark the job running and return the claim's attempt number (its fencing token); None when
    it already ran, was canceled, or is running with a live heartbeat (a duplicate message). A
    running job silent for `takeover_seconds` is taken over: its worker died.

    `retry_of`: the message is Dramatiq's retry of that attempt. Dramatiq sends a retry once the
    attempt's actor has ended but before the worker records the failure (its Retries middleware
    runs first, so the record can tell a last failure from one that is retried), so with a short
    backoff the retry can arrive while the row still says that attempt is running. It takes the
    job then (the late record of the failed attempt is fenced out); skipped, it would wait for
    the scheduler's sweep."""
    now = clock.now()
    db = Job._meta.db
    sql = _CLAIM if db.capabilities.dialect == "sqlite" else _CLAIM_PG
    rows = await db.execute_query_dict(sql, [
        now, now, job_id, now - timedelta(seconds=takeover_seconds),
        now - timedelta(seconds=max(takeover_seconds, _UNBEATEN_SECONDS)), retry_of or 0,
    ])
    return int(rows[0]["attempts"]) if rows else None


async def claim_is_current(job_id: str, attempt: int) -> bool:
    """Whether that claim still runs its job: False once the job was given back, taken over,
    claimed again or ended (a newer claim of the row counts another attempt)."""
    return await _held(job_id, attempt).exists()


def _held(job_id: str, attempt: int | None):
    """The row while it is still this claim's (any claim's when `attempt` is None)."""
    held = Job.filter(id=job_id, status="running")
    return held if attempt is None else held.filter(attempts=attempt)


async def beat(job_id: str, attempt: int) -> bool:
    """The running job is alive. False when the row is no longer this claim's (taken over,
    canceled): the run should stop."""
    return await _held(job_id, attempt).update(heartbeat_at=clock.now()) == 1


# The finish of a job, which every job run ends with: the statement `_held(…).update(…)` builds,
# written once (the ORM built it afresh for each job: a tenth of the worker's CPU at checkout).
_FINISH = ('UPDATE "job" SET "status" = \'succeeded\', "result" = ?, "finished_at" = ?, "last_error" = NULL '
           'WHERE "id" = ? AND "status" = \'running\'')


async def finish(job_id: str, result: Any = None, *, attempt: int | None = None) -> bool:
    values = [db_value(Job, "result", result), db_value(Job, "finished_at", clock.now()), job_id]
    if attempt is None:
        return await write(Job, _FINISH, values) == 1
    return await write(Job, _FINISH + ' AND "attempts" = ?', [*values, attempt]) == 1


async def fail(job_id: str, error: str, *, final: bool, attempt: int | None = None) -> bool:
    values = {"status": "failed", "finished_at": clock.now()} if final else {"status": "retrying"}
    return await _held(job_id, attempt).update(last_error=error[:4000], **values) == 1


async def give_back(job_id: str, attempt: int, reason: str) -> bool:
    """A stopping worker returns a job it could not finish: the row is claimable again and its
    message re-sent at once (the run that stopped may have done part of it: jobs are written to
    run again). False when the row was no longer this claim's."""
    if not await _held(job_id, attempt).update(status="retrying", last_error=reason[:4000]):
        return False
    job = await Job.get(id=job_id)
    await send(job)
    return True


async def resend_stale(grace_seconds: float, lease_seconds: float, takeover_seconds: float = TAKEOVER_SECONDS) -> int:
    """The scheduler's sweep: send pending rows older than the grace period, re-send jobs whose
    message was lost (enqueued or retrying for `lease_seconds`), and take over running jobs whose
    heartbeat stopped for `takeover_seconds` (their worker died). Each kind is read SWEEP_BATCH rows
    a statement, oldest first, from where its last batch ended, along its index
    (models/migrations/0037_job_sweep_indexes.py): a backlog is never read at once, and each due
    row is sent once a run. Answers how many were sent."""
    now = clock.now()
    takeover = timedelta(seconds=takeover_seconds)
    unbeaten = timedelta(seconds=max(takeover_seconds, _UNBEATEN_SECONDS))
    kinds = (
        ("pending", Job.filter(status="pending", created_at__lt=now - timedelta(seconds=grace_seconds)), "created_at"),
        *(("lost", Job.filter(status=status, updated_at__lt=now - timedelta(seconds=lease_seconds)), "updated_at")
          for status in ("enqueued", "retrying")),
        ("stalled", Job.filter(status="running", heartbeat_at__lt=now - takeover), "heartbeat_at"),
        ("stalled", Job.filter(status="running", heartbeat_at=None, started_at__lt=now - unbeaten), "started_at"),
    )
    found = {"pending": 0, "lost": 0, "stalled": 0}
    sent = 0
    for kind, due, column in kinds:
        async for batch in read_in_batches(due, column, SWEEP_BATCH):
            if kind == "stalled":
                batch = [job for job in batch if await _take_over(job, takeover_seconds)]
            found[kind] += len(batch)
            for job in batch:
                sent += await send(job)
    if any(found.values()):
        log.info("outbox sweep: %d pending, %d lost, %d stalled; %d sent",
                 found["pending"], found["lost"], found["stalled"], sent)
    return sent


async def _take_over(job: Job, takeover_seconds: float) -> bool:
    """Mark a silent running job for a retry; False when its run beat meanwhile (it keeps its job)."""
    return bool(await Job.filter(_silent(takeover_seconds), id=job.id).update(status="retrying"))


async def purge_finished(older_than_seconds: float) -> int:
    """Bounded retention: succeeded and canceled jobs are kept for a while for inspection, then
    deleted (failed ones stay for an operator to retry), in batches along the `(status,
    finished_at)` index, one status after the other (services/core/purging.py)."""
    cutoff = clock.now() - timedelta(seconds=older_than_seconds)
    deleted = 0
    for status in ("succeeded", "canceled"):
        deleted += await delete_in_batches(Job.filter(status=status, finished_at__lt=cutoff), "finished_at")
    return deleted

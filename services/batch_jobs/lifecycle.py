"""Batch jobs: the lifecycle an admin drives (create, confirm, cancel) and the runs a worker
makes (pre-processing, then processing), as one transition table.

A run holds its job through a lease: a token and a heartbeat, beaten every third of the
takeover time while the run lives. A run writes only through the fence (`JobRun.fence`), which
holds while the token is still the run's and the job is neither canceled nor failed, so a run
whose job was canceled, or taken over by a newer run, stops without writing. A run silent for
the takeover time (its worker died) is taken over from its last committed checkpoint by the
next message for its stage or by the scheduler's sweep, whichever comes first; a run whose job
claim ended (a stopping worker gave the job back) is taken over at once by the next message.
After MAX_RUNS runs the job is failed.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from tortoise.expressions import Q
from tortoise.queryset import QuerySet

from services.core import outbox
from models import BatchJob, Job, User
from services.batch_jobs.runs import JobRun, JobStopped
from services.core import clock
from services.core.db import atomic
from services.core.errors import DomainError, InvalidData, NotAllowed, NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, date_filters, find_page
from services.events import names as ev
from services.events.bus import emit

__all__ = [
    "BatchJobFilter", "JobRun", "JobStopped", "TRANSITIONS", "MAX_RUNS", "PRE_PROCESS_ACTOR", "PROCESS_ACTOR",
    "strategy_for", "create_batch_job", "get_batch_job", "list_batch_jobs", "confirm_batch_job",
    "cancel_batch_job", "run_pre_processing", "run_processing", "resume_stalled",
]

log = logging.getLogger("commerce.batch_jobs")

PRE_PROCESS_ACTOR = "pre_process_batch_job"
PROCESS_ACTOR = "process_batch_job"
MAX_RUNS = 5  # runs of one stage (each worker death costs one) before the job is failed


@dataclass(frozen=True)
class Transition:
    allowed: tuple[str, ...]  # the statuses it may start from
    sets: str  # the milestone it stamps
    refusal: type[DomainError]
    message: str


TRANSITIONS = {
    "pre_process": Transition(
        ("created",), "pre_processed_at", NotAllowed,
        "Cannot mark a batch job as pre processed if it is not in created status",
    ),
    "confirm": Transition(
        ("pre_processed",), "confirmed_at", NotAllowed,
        "Cannot confirm processing for a batch job that is not pre processed",
    ),
    "process": Transition(
        ("confirmed",), "processing_at", NotAllowed,
        "Cannot mark a batch job as processing if the status is different that confirmed",
    ),
    "complete": Transition(
        ("processing",), "completed_at", InvalidData,
        'Cannot complete a batch job with status "{status}". The batch job must be processing',
    ),
    # Medusa lets a canceled or failed job be canceled again; only a completed one is final.
    "cancel": Transition(
        ("created", "pre_processed", "confirmed", "processing", "canceled", "failed"), "canceled_at", NotAllowed,
        "Cannot cancel completed batch job",
    ),
    # Once canceled, a job stays canceled: a late error of the stopped run does not relabel it.
    "fail": Transition(
        ("created", "pre_processed", "confirmed", "processing"), "failed_at", NotAllowed,
        "Cannot fail a batch job with status {status}",
    ),
}
_WORKING = {"created": PRE_PROCESS_ACTOR, "confirmed": PROCESS_ACTOR, "processing": PROCESS_ACTOR}


def _apply(job: BatchJob, name: str) -> None:
    transition = TRANSITIONS[name]
    if job.status not in transition.allowed:
        raise transition.refusal(transition.message.format(status=job.status))
    setattr(job, transition.sets, clock.now())


def strategy_for(job_type: str):
    """The module that does the work of `job_type`: `prepare`, `pre_process`, `process`."""
    from services.batch_jobs import order_export, price_list_import, product_export
    from services.batch_jobs.product_import import strategy as product_import

    found = {
        product_import.TYPE: product_import, product_export.TYPE: product_export, order_export.TYPE: order_export,
        price_list_import.TYPE: price_list_import,
    }.get(job_type)
    if found is None:
        raise NotFound(f"Unable to find a BatchJob strategy with the type {job_type}")
    return found


# ---------------------------------------------------------------- what the admin does

async def create_batch_job(user_id: str, job_type: str, context: dict, dry_run: bool = False) -> BatchJob:
    """A job in `created`, its pre-processing asked for in the same transaction."""
    context = await strategy_for(job_type).prepare(context)
    async with atomic():
        job = await BatchJob.create(
            type=job_type, created_by=user_id, context=context, dry_run=dry_run, heartbeat_at=clock.now()
        )
        await outbox.enqueue(PRE_PROCESS_ACTOR, job.id)
        await emit(ev.BATCH_CREATED, id=job.id)
    return job


async def _owned(job_id: str, user_id: str, *, lock: bool = False) -> BatchJob:
    qs = BatchJob.filter(id=job_id, deleted_at=None)
    job = await (qs.select_for_update() if lock else qs).first() if fits(BatchJob, job_id) else None
    if job is None:
        raise NotFound(f"Batch job with id {job_id} was not found")
    if job.created_by != user_id:
        raise NotAllowed("Cannot access a batch job that does not belong to the logged in user")
    return job


async def get_batch_job(job_id: str, user_id: str, relations: tuple[str, ...] = ()) -> BatchJob:
    job = await _owned(job_id, user_id)
    await _attach_users([job], relations)
    return job


@dataclass
class BatchJobFilter:
    id: list[str] = field(default_factory=list)
    type: list[str] = field(default_factory=list)
    dates: dict[str, dict | None] = field(default_factory=dict)  # column -> {"gt": datetime, ...}
    unset: list[str] = field(default_factory=list)  # milestones that must not have happened


def _filtered(user_id: str, f: BatchJobFilter) -> QuerySet:
    qs = BatchJob.filter(created_by=user_id, deleted_at=None)
    if f.id:
        qs = qs.filter(id__in=f.id)
    if f.type:
        qs = qs.filter(type__in=f.type)
    return qs.filter(**date_filters(**f.dates), **{f"{column}__isnull": True for column in f.unset})


async def list_batch_jobs(user_id: str, f: BatchJobFilter, config: FindConfig) -> tuple[list[BatchJob], int]:
    """The caller's own jobs only, newest first by default."""
    wanted = config.relations
    jobs, count = await find_page(_filtered(user_id, f), FindConfig(config.limit, config.offset, config.order))
    await _attach_users(jobs, wanted)
    return jobs, count


async def _attach_users(jobs: list[BatchJob], relations: tuple[str, ...]) -> None:
    if "created_by_user" not in relations:
        return
    users = {u.id: u for u in await User.filter(id__in={j.created_by for j in jobs if j.created_by})}
    for job in jobs:
        job.created_by_user = users.get(job.created_by)


async def confirm_batch_job(job_id: str, user_id: str) -> BatchJob:
    async with atomic():
        job = await _owned(job_id, user_id, lock=True)
        _apply(job, "confirm")
        job.heartbeat_at = clock.now()
        await job.save()
        await outbox.enqueue(PROCESS_ACTOR, job.id)
        await emit(ev.BATCH_CONFIRMED, id=job.id)
    return job


async def cancel_batch_job(job_id: str, user_id: str) -> BatchJob:
    """Canceled at once in the record; a run in progress stops before its next chunk commits."""
    async with atomic():
        job = await _owned(job_id, user_id, lock=True)
        _apply(job, "cancel")
        await job.save()
        await emit(ev.BATCH_CANCELED, id=job.id)
    return job


# ---------------------------------------------------------------- what a worker does


async def _claim(job_id: str, stage: str, takeover_seconds: float) -> JobRun | None:
    """Take the job for `stage` ("pre_process" or "process"); None when there is nothing to do
    for this message: the job moved on, or a live run holds it (a duplicate delivery). A run
    silent for `takeover_seconds` lost its worker: its lease is taken over."""
    async with atomic():
        job = await BatchJob.filter(id=job_id, deleted_at=None).select_for_update().first()
        if job is None:
            return None
        if job.lease_token is not None:
            if job.heartbeat_at < clock.now() - timedelta(seconds=takeover_seconds):
                log.info("batch job %s: its run stopped reporting; taken over", job_id)
            elif not await _lease_holder_runs(job.lease_token):
                log.info("batch job %s: its run's job was given back; taken over at once", job_id)
            else:
                return None
        if stage == "process" and job.status == "confirmed":
            _apply(job, "process")
            job.attempts = 0
        if job.status != ("created" if stage == "pre_process" else "processing"):
            return None
        if job.attempts >= MAX_RUNS:
            await _fail_locked(job, f"The job was stopped after {job.attempts} runs that did not finish")
            return None
        job.lease_token, job.heartbeat_at, job.attempts = _lease_token(), clock.now(), job.attempts + 1
        await job.save()
    return JobRun(job, job.lease_token)


def _lease_token() -> str:
    """A new run's lease: random, and naming the job claim it runs under (services/core/outbox.py) when
    it has one, so the lease ends with that claim."""
    claim = outbox.running_claim.get()
    token = uuid.uuid4().hex
    return f"{claim[0]}:{claim[1]}:{token[:16]}" if claim else token


async def _lease_holder_runs(token: str) -> bool:
    """Whether the run holding a lease still holds its job claim. A stopping worker gives its
    run's job back before the run has unwound and released the lease: the message it re-sends
    must resume the import at once, not find the lease held and skip until the takeover time."""
    parts = token.split(":")
    if len(parts) != 3 or not parts[1].isdigit():
        return True  # a run without a claim (called directly): its heartbeat alone tells
    return await outbox.claim_is_current(parts[0], int(parts[1]))


async def _fail_locked(job: BatchJob, message: str) -> None:
    _apply(job, "fail")
    job.result = {**(job.result or {}), "errors": [*(job.result or {}).get("errors", []), message]}
    job.lease_token = None
    await job.save()
    await emit(ev.BATCH_FAILED, id=job.id)


async def _fail(job_id: str, message: str) -> None:
    async with atomic():
        job = await BatchJob.filter(id=job_id).select_for_update().first()
        if job is not None and job.status in TRANSITIONS["fail"].allowed:
            await _fail_locked(job, message)


async def _run(job_id: str, stage: str, work, takeover_seconds: float) -> dict:
    run = await _claim(job_id, stage, takeover_seconds)
    if run is None:
        return {"skipped": True}
    beating = asyncio.create_task(run.keep_alive(takeover_seconds / 3))
    try:
        return await work(run)
    except JobStopped:
        return {"stopped": True}
    except DomainError as e:  # the job cannot succeed (a file that does not parse): no retry
        await _fail(job_id, e.message)
        return {"failed": e.message}
    finally:
        beating.cancel()
        await run.release()


async def run_pre_processing(job_id: str, *, takeover_seconds: float = outbox.TAKEOVER_SECONDS) -> dict:
    """Read and check the input, count the work; then wait for confirmation (dry run) or go on."""

    async def work(run: JobRun) -> dict:
        result = await strategy_for(run.job.type).pre_process(run)
        async with atomic():
            await run.fence()
            job = await BatchJob.get(id=job_id)
            _apply(job, "pre_process")
            job.result = result
            if not job.dry_run:
                _apply(job, "confirm")
                # The lease goes in the commit that sends the next stage's message: a worker
                # taking that message at once must not find the job still held by this run.
                job.lease_token = None
                await outbox.enqueue(PROCESS_ACTOR, job.id)
            await job.save()
        return {"status": job.status}

    return await _run(job_id, "pre_process", work, takeover_seconds)


async def run_processing(job_id: str, *, takeover_seconds: float = outbox.TAKEOVER_SECONDS) -> dict:
    """Do the work in chunks that each commit, resuming after the job's last checkpoint."""

    async def work(run: JobRun) -> dict:
        result = await strategy_for(run.job.type).process(run)
        async with atomic():
            await run.fence()
            job = await BatchJob.get(id=job_id)
            _apply(job, "complete")
            job.result = result
            await job.save()
            await emit(ev.BATCH_COMPLETED, id=job.id)
        return {"status": job.status}

    return await _run(job_id, "process", work, takeover_seconds)


async def resume_stalled(lease_seconds: float) -> dict[str, int]:
    """The scheduler's sweep: a job at work whose run has not reported for `lease_seconds` (the
    takeover time) lost its worker. Its lease is broken and its stage asked for again (the new run resumes after
    the last checkpoint), or, after MAX_RUNS runs, the job is failed with the reason."""
    cutoff = clock.now() - timedelta(seconds=lease_seconds)
    stalled = await BatchJob.filter(
        Q(pre_processed_at=None) | Q(confirmed_at__isnull=False),  # not a dry run awaiting its confirmation
        deleted_at=None, heartbeat_at__lt=cutoff, completed_at=None, canceled_at=None, failed_at=None,
    ).values_list("id", flat=True)
    counts = {"resumed": 0, "failed": 0}
    for job_id in stalled:
        async with atomic():
            job = await BatchJob.filter(id=job_id).select_for_update().first()
            if job is None or job.status not in _WORKING or job.heartbeat_at >= cutoff:
                continue
            if job.attempts >= MAX_RUNS:
                await _fail_locked(job, f"The job stopped reporting progress {job.attempts} times and was given up")
                counts["failed"] += 1
                continue
            job.lease_token, job.heartbeat_at = None, clock.now()
            await job.save()
            actor = _WORKING[job.status]
            # A message still on its way (the broker was down, no worker is up) is the outbox's to re-send.
            if not await Job.filter(actor_name=actor, args=[job.id], status__in=("pending", "enqueued", "retrying")).exists():
                await outbox.enqueue(actor, job.id)
            counts["resumed"] += 1
    return counts

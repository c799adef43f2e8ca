"""What the database says about the shop's background work, for the metrics: jobs by actor and
status (with the run time of finished ones), the outbox's backlog and the age of its oldest row,
batch-job rows processed, webhook deliveries by status, events not yet dispatched. Read at each
scrape, so every process's and host's work is counted once, wherever it ran."""

from __future__ import annotations

from dataclasses import dataclass, field

from tortoise.functions import Count

from models import BatchJob, Event, Job, WebhookDelivery
from services.core import clock

__all__ = ["WorkGauges", "read_gauges"]

_WAITING = ("pending", "enqueued", "retrying")
# A finished job's run time in seconds, summed in the database (a scrape reads one row per actor
# and outcome, not every job kept).
_SECONDS = {
    "postgres": 'EXTRACT(EPOCH FROM "finished_at" - "started_at")',
    "sqlite": '(julianday("finished_at") - julianday("started_at")) * 86400.0',
}


@dataclass
class WorkGauges:
    jobs: dict[tuple[str, str], int] = field(default_factory=dict)  # (actor, status) -> rows
    job_seconds: dict[tuple[str, str], tuple[float, int]] = field(default_factory=dict)  # (actor, outcome) -> sum, n
    outbox_waiting: int = 0
    outbox_oldest_seconds: float = 0.0
    batch_rows: dict[str, int] = field(default_factory=dict)  # job type -> rows processed
    webhook_deliveries: dict[str, int] = field(default_factory=dict)  # status -> rows
    events_undispatched: int = 0


async def read_gauges() -> WorkGauges:
    g = WorkGauges()
    for actor, status, n in await Job.annotate(n=Count("id")).group_by("actor_name", "status").values_list(
        "actor_name", "status", "n",
    ):
        g.jobs[(actor, status)] = n
    db = Job._meta.db
    seconds = _SECONDS[db.capabilities.dialect]
    _, rows = await db.execute_query(
        f'SELECT "actor_name", "status", SUM({seconds}), COUNT(*) FROM "job" WHERE "status" IN (\'succeeded\', '
        f'\'failed\') AND "started_at" IS NOT NULL AND "finished_at" IS NOT NULL GROUP BY "actor_name", "status"'
    )
    for row in rows:
        actor, status, total, count = (row[k] for k in row.keys()) if hasattr(row, "keys") else row
        g.job_seconds[(actor, status)] = (max(float(total or 0), 0.0), int(count))
    g.outbox_waiting = sum(n for (_, status), n in g.jobs.items() if status in _WAITING)
    oldest = next(iter(await Job.filter(status__in=_WAITING).order_by("created_at").limit(1).values_list(
        "created_at", flat=True)), None)
    g.outbox_oldest_seconds = max((clock.now() - oldest).total_seconds(), 0.0) if oldest else 0.0
    for kind, result in await BatchJob.filter(deleted_at=None).values_list("type", "result"):
        g.batch_rows[kind] = g.batch_rows.get(kind, 0) + int((result or {}).get("advancement_count") or 0)
    for status, n in await WebhookDelivery.annotate(n=Count("id")).group_by("status").values_list("status", "n"):
        g.webhook_deliveries[status] = n
    g.events_undispatched = await Event.filter(dispatched_at=None).count()
    return g

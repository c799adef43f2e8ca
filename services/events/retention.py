"""Bounded retention of events and webhook deliveries: a
delivery that ended well or was canceled is kept 14 days for inspection and redelivery, one that
failed 30 days; an event is kept while any of its deliveries is, and at least 14 days after it
was dispatched. One hourly maintenance run deletes what is older, in batches of purging.BATCH
rows, each committed on its own, until nothing more is due:

- deliveries, a status at a time along the `(status, updated_at)` index (services/core/purging.py);
- then events along the `(dispatched_at, id)` index: a batch is read from where the last one
  ended, so the events still kept for a delivery are read once a run, not again at every batch;
  those without a delivery left go, with their receipts, in one short transaction."""

from __future__ import annotations

from datetime import datetime, timedelta

from models import Event, EventReceipt, WebhookDelivery
from services.core import clock, purging
from services.core.db import atomic
from services.core.purging import delete_in_batches, past

__all__ = ["purge_old_events", "KEPT_SECONDS", "FAILED_KEPT_SECONDS"]

KEPT_SECONDS = 14 * 86400.0
FAILED_KEPT_SECONDS = 30 * 86400.0


async def purge_old_events(kept: float = KEPT_SECONDS, failed_kept: float = FAILED_KEPT_SECONDS) -> dict:
    now = clock.now()
    deliveries = 0
    for status, age in (("succeeded", kept), ("canceled", kept), ("failed", failed_kept)):
        due = WebhookDelivery.filter(status=status, updated_at__lt=now - timedelta(seconds=age))
        deliveries += await delete_in_batches(due, "updated_at")
    return {"deliveries": deliveries, "events": await _purge_dispatched(now - timedelta(seconds=kept))}


async def _purge_dispatched(before: datetime) -> int:
    """Events dispatched before `before` that no delivery keeps, deleted with their receipts."""
    deleted, after = 0, None
    while True:
        batch = purging.BATCH
        due = Event.filter(dispatched_at__lt=before)
        if after is not None:
            due = due.filter(past("dispatched_at", after))
        rows = await due.order_by("dispatched_at", "id").limit(batch).values_list("dispatched_at", "id")
        ids = [event_id for _, event_id in rows]
        kept = set(await WebhookDelivery.filter(event_id__in=ids).values_list("event_id", flat=True)) if ids else set()
        old = [event_id for event_id in ids if event_id not in kept]
        if old:
            async with atomic():
                await EventReceipt.filter(event_id__in=old).delete()
                deleted += await Event.filter(id__in=old).delete()
        if len(rows) < batch:
            return deleted
        after = rows[-1]

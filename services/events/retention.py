"""Bounded retention of events and webhook deliveries: a
delivery that ended well or was canceled is kept 14 days for inspection and redelivery, one that
failed 30 days; an event is kept while any of its deliveries is, and at least 14 days after it
was dispatched. One hourly maintenance run deletes what is older, in batches."""

from __future__ import annotations

from datetime import timedelta

from tortoise.expressions import Q

from models import Event, EventReceipt, WebhookDelivery
from services.core import clock

__all__ = ["purge_old_events", "KEPT_SECONDS", "FAILED_KEPT_SECONDS"]

KEPT_SECONDS = 14 * 86400.0
FAILED_KEPT_SECONDS = 30 * 86400.0
BATCH = 1000


async def purge_old_events(kept: float = KEPT_SECONDS, failed_kept: float = FAILED_KEPT_SECONDS) -> dict:
    now = clock.now()
    deliveries = await WebhookDelivery.filter(
        Q(status__in=("succeeded", "canceled"), updated_at__lt=now - timedelta(seconds=kept))
        | Q(status="failed", updated_at__lt=now - timedelta(seconds=failed_kept))
    ).limit(BATCH).values_list("id", flat=True)
    if deliveries:
        await WebhookDelivery.filter(id__in=list(deliveries)).delete()
    events = await Event.filter(dispatched_at__lt=now - timedelta(seconds=kept)).limit(BATCH).values_list(
        "id", flat=True)
    still_needed = set(await WebhookDelivery.filter(event_id__in=list(events)).values_list("event_id", flat=True))
    old = [e for e in events if e not in still_needed]
    if old:
        await EventReceipt.filter(event_id__in=old).delete()
        await Event.filter(id__in=old).delete()
    return {"deliveries": len(deliveries), "events": len(old)}

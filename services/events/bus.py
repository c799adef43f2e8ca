"""Emitting an event: a row in the caller's transaction and the job that dispatches it once the
transaction commits (the job outbox, services/core/outbox.py). A rolled-back change leaves no event; a
committed one is dispatched even if the broker was away (the outbox's sweep sends it later). Both
rows are written at the transaction's end with its other put-off writes (services/core/db.py): nothing
reads them back before the commit."""

from __future__ import annotations

from services.core import outbox
from models import Event
from services.core.db import atomic
from services.core.sql import insert

__all__ = ["emit", "DISPATCH_ACTOR"]

DISPATCH_ACTOR = "dispatch_event"


async def emit(name: str, **data) -> Event:
    async with atomic():
        event = Event(name=name, data=data)
        await insert(event, at_end=True)
        await outbox.enqueue_at_end(DISPATCH_ACTOR, event.id, queue_name="events")
    return event

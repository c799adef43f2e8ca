"""Dispatching an event to its subscribers, run by the `dispatch_event` job after the event's
transaction committed. Each subscriber runs in a transaction of its own with its receipt: one that
already handled the event is skipped, one that fails is rolled back alone and the job is retried
for it (the others are not run again). Delivery is at least once per subscriber, and a receipt
makes it once per subscriber that succeeded."""

from __future__ import annotations

import logging
from functools import lru_cache

from tortoise.exceptions import IntegrityError

from models import Event, EventReceipt
from services.core import clock
from services.core.db import atomic, write_at_end
from services.core.sql import db_value, placeholders, write
from services.events.reads import event_and_receipts
from services.events.subscribers import subscribers_for

__all__ = ["dispatch", "SubscribersFailed"]

log = logging.getLogger("commerce.events")


class SubscribersFailed(Exception):
    def __init__(self, event: Event, failed: list[str]):
        super().__init__(f"event {event.id} ({event.name}): subscribers {', '.join(failed)} failed; retried")
        self.failed = failed


async def dispatch(event_id: str) -> dict:
    event, done = await event_and_receipts(event_id)
    if event is None:
        return {"gone": event_id}
    handled, failed, marked = [], [], False
    due = [subscriber for subscriber in subscribers_for(event.name) if subscriber.id not in done]
    for n, subscriber in enumerate(due):
        try:
            async with atomic():
                await _write_receipt(event.id, subscriber.id, at_end=subscriber.rows_only)
                await subscriber.handle(event)
                if n == len(due) - 1 and not failed:
                    # Every subscriber handled it once this commits: marked with the last one's
                    # work, not by a commit of its own (a dispatch runs for every order placed).
                    await _mark_dispatched(event, at_end=True)
                    marked = True
            handled.append(subscriber.id)
        except IntegrityError:
            marked = False
            continue  # another run handled it meanwhile
        except Exception as e:
            marked = False
            log.warning("subscriber %s failed on %s %s: %s", subscriber.id, event.name, event.id, e)
            failed.append(subscriber.id)
    if failed:
        raise SubscribersFailed(event, failed)
    if not marked:  # nothing left to run, or the last one was run by another dispatch
        await _mark_dispatched(event)
    return {"event": event.id, "handled": handled}


async def _write_receipt(event_id: str, subscriber_id: str, *, at_end: bool = False) -> None:
    """The receipt's row, by a statement built once (no model built, no id read back: a dispatch
    writes one for each subscriber of every order placed). A second one for the same subscriber
    raises IntegrityError (the unique pair), as the ORM's create did. `at_end`: with the
    subscriber's own writes at the transaction's end (services/core/db.py), for a handler that only
    writes rows (`Subscriber.rows_only`): a repeat then fails there, and its rows go with it."""
    db = EventReceipt._meta.db
    created = _created_at().to_db_value(clock.now(), EventReceipt)
    text, values = _receipt_statement(db.capabilities.dialect), [event_id, subscriber_id, created]
    if not (at_end and write_at_end(text, values)):
        await db.execute_query(text, values)


@lru_cache(maxsize=None)
def _receipt_statement(dialect: str) -> str:
    marks = ", ".join(placeholders(dialect, 1, 3))
    return f'INSERT INTO "event_receipt" ("event_id", "subscriber_id", "created_at") VALUES ({marks})'


def _created_at():
    return EventReceipt._meta.fields_map["created_at"]


async def _mark_dispatched(event: Event, *, at_end: bool = False) -> None:
    """`Event.filter(id=…, dispatched_at=None).update(dispatched_at=now)`, by its statement written
    once; `at_end`: with the subscriber's put-off writes (services/core/db.py)."""
    await write(Event, 'UPDATE "event" SET "dispatched_at" = ? WHERE "id" = ? AND "dispatched_at" IS NULL',
                [db_value(Event, "dispatched_at", clock.now()), event.id], at_end=at_end)

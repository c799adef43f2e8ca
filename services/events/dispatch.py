"""Dispatching an event to its subscribers, run by the `dispatch_event` job after the event's
transaction committed. Each subscriber runs in a transaction of its own with its receipt: one that
already handled the event is skipped, one that fails is rolled back alone and the job is retried
for it (the others are not run again). Delivery is at least once per subscriber, and a receipt
makes it once per subscriber that succeeded."""

from __future__ import annotations

import logging

from tortoise.exceptions import IntegrityError

from models import Event, EventReceipt
from services.core import clock
from services.core.db import atomic
from services.events.subscribers import subscribers_for

__all__ = ["dispatch", "SubscribersFailed"]

log = logging.getLogger("commerce.events")


class SubscribersFailed(Exception):
    def __init__(self, event: Event, failed: list[str]):
        super().__init__(f"event {event.id} ({event.name}): subscribers {', '.join(failed)} failed; retried")
        self.failed = failed


async def dispatch(event_id: str) -> dict:
    event = await Event.get_or_none(id=event_id)
    if event is None:
        return {"gone": event_id}
    done = set(await EventReceipt.filter(event_id=event.id).values_list("subscriber_id", flat=True))
    handled, failed = [], []
    for subscriber in subscribers_for(event.name):
        if subscriber.id in done:
            continue
        try:
            async with atomic():
                await EventReceipt.create(event_id=event.id, subscriber_id=subscriber.id)
                await subscriber.handle(event)
            handled.append(subscriber.id)
        except IntegrityError:
            continue  # another run handled it meanwhile
        except Exception as e:
            log.warning("subscriber %s failed on %s %s: %s", subscriber.id, event.name, event.id, e)
            failed.append(subscriber.id)
    if failed:
        raise SubscribersFailed(event, failed)
    await Event.filter(id=event.id, dispatched_at=None).update(dispatched_at=clock.now())
    return {"event": event.id, "handled": handled}

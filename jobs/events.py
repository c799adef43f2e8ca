"""Event dispatch as an actor: the subscribers of one event, each once (services/events/
dispatch.py); a failing subscriber makes the job retry with backoff for about a day."""

import dramatiq

from services.events.bus import DISPATCH_ACTOR
from services.events.dispatch import dispatch


@dramatiq.actor(
    actor_name=DISPATCH_ACTOR, queue_name="events", max_retries=20, min_backoff=1_000, max_backoff=3_600_000,
    time_limit=300_000,
)
async def dispatch_event(event_id: str) -> dict:
    return await dispatch(event_id)

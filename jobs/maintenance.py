"""Scheduled maintenance, as actors: catch-up sweeps that are safe to run twice, or on two hosts
at once. Each reads only its due rows, by index, and works in bounded batches, each committed on
its own, until none is left (services/core/purging.py; docs/operations.md has the figures)."""

import dramatiq

from services.core.outbox import purge_finished
from services.core import idempotency
from services.payments.authorizations import cancel_stale_authorizations as cancel_stale
from services.checkout.completion import KEY_RETENTION_SECONDS
from services.events.retention import purge_old_events
from services.payments.stripe.webhooks import purge_handled
from services.store.maintenance import purge_expired_sessions

JOB_RETENTION_SECONDS = 7 * 24 * 3600


@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
async def purge_sessions() -> dict:
    return {"deleted": await purge_expired_sessions()}


@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
async def purge_jobs() -> dict:
    return {"deleted": await purge_finished(JOB_RETENTION_SECONDS)}


@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
async def purge_idempotency_keys() -> dict:
    return {"deleted": await idempotency.purge_finished(KEY_RETENTION_SECONDS)}


@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
async def purge_events() -> dict:
    return await purge_old_events()


@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
async def purge_gateway_events() -> dict:
    """Payment gateways' webhook events handled long ago (Stripe's), deleted."""
    return {"deleted": await purge_handled()}


@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
async def cancel_stale_authorizations(max_age_seconds: float) -> dict:
    """Authorized cart payments older than `max_age_seconds` without an order: canceled, listed."""
    return await cancel_stale(max_age_seconds)


@dramatiq.actor(queue_name="maintenance", max_retries=0, time_limit=60_000)
async def ping(token: str) -> dict:
    """A round trip through the broker and a worker: `commerce jobs ping` asks for it."""
    return {"pong": token}

"""Webhook deliveries as an actor: one attempt per job (services/webhooks/delivery.py keeps its
own schedule of retries; the actor's retries only cover the database being away)."""

import dramatiq

from services.webhooks.delivery import attempt
from services.webhooks.subscriber import DELIVER_ACTOR


@dramatiq.actor(actor_name=DELIVER_ACTOR, queue_name="webhooks", max_retries=5, min_backoff=2_000,
                max_backoff=120_000, time_limit=120_000)
async def deliver_webhook(delivery_id: str) -> dict:
    return await attempt(delivery_id)

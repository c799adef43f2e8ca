"""The webhooks' subscriber: every event becomes one delivery per enabled endpoint that asked
for it, each sent by its own job (a slow or failing receiver never holds up the others, nor the
request that caused the event)."""

from __future__ import annotations

from services.core import outbox
from models import Event, WebhookDelivery, WebhookEndpoint

__all__ = ["subscribe_webhooks", "DELIVER_ACTOR", "fan_out"]

DELIVER_ACTOR = "deliver_webhook"


async def fan_out(event: Event) -> int:
    endpoints = await WebhookEndpoint.filter(deleted_at=None, status="enabled").only("id", "events")
    made = 0
    for endpoint in endpoints:
        if "*" in endpoint.events or event.name in endpoint.events:
            delivery = await WebhookDelivery.create(event_id=event.id, event_name=event.name, endpoint_id=endpoint.id)
            await outbox.enqueue(DELIVER_ACTOR, delivery.id, queue_name="webhooks")
            made += 1
    return made


def subscribe_webhooks(subscribe) -> None:
    subscribe("webhooks", "*", fan_out)

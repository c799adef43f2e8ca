"""The webhooks' subscriber: every event becomes one delivery per enabled endpoint that asked
for it, each sent by its own job (a slow or failing receiver never holds up the others, nor the
request that caused the event)."""

from __future__ import annotations

from services.core import outbox
from models import Event, WebhookDelivery
from services.webhooks.reads import enabled_endpoints

__all__ = ["subscribe_webhooks", "DELIVER_ACTOR", "fan_out"]

DELIVER_ACTOR = "deliver_webhook"


async def fan_out(event: Event) -> int:
    made = 0
    for endpoint_id, names in await enabled_endpoints():
        if "*" in names or event.name in names:
            delivery = await WebhookDelivery.create(event_id=event.id, event_name=event.name, endpoint_id=endpoint_id)
            await outbox.enqueue(DELIVER_ACTOR, delivery.id, queue_name="webhooks")
            made += 1
    return made


def subscribe_webhooks(subscribe) -> None:
    subscribe("webhooks", "*", fan_out, rows_only=True)  # each delivery is sent by its own job

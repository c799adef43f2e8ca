"""The webhooks' subscriber: every event becomes one delivery per enabled endpoint that asked
for it, each sent by its own job (a slow or failing receiver never holds up the others, nor the
request that caused the event)."""

from __future__ import annotations

from services.core import outbox
from models import Event, WebhookDelivery, WebhookEndpoint

__all__ = ["subscribe_webhooks", "DELIVER_ACTOR", "fan_out"]

DELIVER_ACTOR = "deliver_webhook"


# The enabled endpoints' ids and event names: `WebhookEndpoint.filter(deleted_at=None,
# status="enabled").only("id", "events")`, written once (every event of the shop reads it, each order
# placed among them, and the ORM built the query and an instance per endpoint each time).
_ENDPOINTS = 'SELECT "id", "events" FROM "webhook_endpoint" WHERE "deleted_at" IS NULL AND "status" = \'enabled\''


async def fan_out(event: Event) -> int:
    rows = await WebhookEndpoint._meta.db.execute_query_dict(_ENDPOINTS)
    events = WebhookEndpoint._meta.fields_map["events"]
    made = 0
    for row in rows:
        names = events.to_python_value(row["events"])
        if "*" in names or event.name in names:
            delivery = await WebhookDelivery.create(event_id=event.id, event_name=event.name, endpoint_id=row["id"])
            await outbox.enqueue(DELIVER_ACTOR, delivery.id, queue_name="webhooks")
            made += 1
    return made


def subscribe_webhooks(subscribe) -> None:
    subscribe("webhooks", "*", fan_out, rows_only=True)  # each delivery is sent by its own job

"""The webhooks area's hand-written reads: the enabled endpoints' ids and event names, which every
event's fan-out reads (each order placed among them), in a statement written once instead of the
ORM's query built afresh with an instance per endpoint. tests/services/webhooks/test_reads.py holds it
equal to the ORM's read on both backends."""

from __future__ import annotations

from models import WebhookEndpoint

__all__ = ["enabled_endpoints"]

# `WebhookEndpoint.filter(deleted_at=None, status="enabled").only("id", "events")`
_ENABLED = 'SELECT "id", "events" FROM "webhook_endpoint" WHERE "deleted_at" IS NULL AND "status" = \'enabled\''


async def enabled_endpoints() -> list[tuple[str, list[str]]]:
    """(id, event names or ["*"]) of every enabled endpoint not deleted, in no particular order."""
    rows = await WebhookEndpoint._meta.db.execute_query_dict(_ENABLED)
    events = WebhookEndpoint._meta.fields_map["events"]
    return [(row["id"], events.to_python_value(row["events"])) for row in rows]

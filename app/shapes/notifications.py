"""The notification answer: the columns asked for (Medusa's eight by
default) and, when expanded, its resends in the same shape. The message's body is not shown: it
is the masked copy kept for the record, and a resend composes the message afresh."""

from __future__ import annotations

from models import Notification

__all__ = ["COLUMNS", "DEFAULT_COLUMNS", "RELATIONS", "notification_json"]

DEFAULT_COLUMNS = (
    "id", "resource_type", "resource_id", "event_name", "to", "provider_id", "created_at", "updated_at",
)
# Medusa's Notification resource, and the delivery's own record (status, attempts, last error).
COLUMNS = DEFAULT_COLUMNS + (
    "customer_id", "data", "parent_id", "subject", "status", "attempts", "last_error", "sent_at",
)
RELATIONS = ("resends",)


def notification_json(
    note: Notification, resends: dict[str, list[Notification]], fields: frozenset[str] | None,
    relations: tuple[str, ...],
) -> dict:
    columns = [c for c in COLUMNS if c in fields] if fields is not None else DEFAULT_COLUMNS
    values = note.__dict__
    out = {c: values.get(c) for c in columns}
    if "resends" in relations:
        out["resends"] = [notification_json(r, {}, fields, ()) for r in resends.get(note.id, [])]
    return out

"""Events: a row per thing that happened, written in the
transaction that made it happen, so an event exists exactly when its change committed. Its
subscribers are run after commit by the `dispatch_event` job; each one that handled it leaves a
receipt, so a retried dispatch never runs a subscriber twice for one event."""

from tortoise import fields
from tortoise.models import Model

from models.ids import new_id

__all__ = ["Event", "EventReceipt"]


class Event(Model):
    id = fields.CharField(primary_key=True, max_length=64)
    name = fields.CharField(max_length=100)  # Medusa v1's event name, e.g. order.placed
    data = fields.JSONField(default=dict)  # Medusa's thin payload: ids and flags, never a secret
    created_at = fields.DatetimeField(auto_now_add=True)
    dispatched_at = fields.DatetimeField(null=True)  # every subscriber handled it

    class Meta:
        table = "event"
        indexes = (("name", "created_at"),)

    def __init__(self, **kwargs):
        if not kwargs.get("id"):
            kwargs["id"] = new_id("evt")
        super().__init__(**kwargs)


class EventReceipt(Model):
    """A subscriber handled an event: written with the subscriber's own changes."""

    id = fields.IntField(primary_key=True)
    event_id = fields.CharField(max_length=64)
    subscriber_id = fields.CharField(max_length=100)
    created_at = fields.DatetimeField(auto_now_add=True)

    class Meta:
        table = "event_receipt"
        unique_together = (("event_id", "subscriber_id"),)

"""Webhooks (our extension of the Medusa v1 API): endpoints a
merchant registers for events, and one delivery per event and endpoint with every attempt, sent
as the Standard Webhooks specification says."""

from tortoise import fields

from models.base import SoftDeletable, Entity

__all__ = ["WebhookEndpoint", "WebhookDelivery", "DELIVERY_STATUSES"]

# queued: a send is asked for (a job); retrying: the last attempt failed, the next is due at
# `next_attempt_at`; succeeded / failed (every attempt failed, or the receiver answered 410) /
# canceled (its endpoint was disabled or deleted before it went): final.
DELIVERY_STATUSES = ("queued", "retrying", "succeeded", "failed", "canceled")


class WebhookEndpoint(SoftDeletable):
    ID_PREFIX = "we"

    url = fields.CharField(max_length=2048)
    description = fields.CharField(max_length=500, null=True)
    events = fields.JSONField(default=list)  # event names, or ["*"] for every event
    secret = fields.CharField(max_length=200)  # whsec_ + base64 of 32 random bytes
    previous_secret = fields.CharField(max_length=200, null=True)  # still signs until it expires
    previous_secret_expires_at = fields.DatetimeField(null=True)
    status = fields.CharField(max_length=20, default="enabled")  # enabled | disabled
    disabled_reason = fields.CharField(max_length=500, null=True)
    failing_since = fields.DatetimeField(null=True)  # first failed attempt after the last success
    last_success_at = fields.DatetimeField(null=True)

    class Meta:
        table = "webhook_endpoint"


class WebhookDelivery(Entity):
    ID_PREFIX = "msg"

    event_id = fields.CharField(max_length=64)
    event_name = fields.CharField(max_length=100)
    endpoint_id = fields.CharField(max_length=64)
    status = fields.CharField(max_length=20, default="queued")
    attempts = fields.IntField(default=0)
    next_attempt_at = fields.DatetimeField(null=True)
    last_status_code = fields.IntField(null=True)
    last_error = fields.TextField(null=True)
    attempt_log = fields.JSONField(default=list)  # [{at, status_code, error, duration_ms}]
    delivered_at = fields.DatetimeField(null=True)

    class Meta:
        table = "webhook_delivery"
        unique_together = (("event_id", "endpoint_id"),)
        indexes = (("endpoint_id", "created_at"), ("status", "next_attempt_at"))

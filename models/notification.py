"""Messages to people (password reset, order claim, …) and the one-time tokens they carry."""

from tortoise import fields

from models.base import Entity

__all__ = ["Notification", "OneTimeToken", "NOTIFICATION_STATUSES"]

# pending: written with its job; sent: delivered by a provider; failed: retries exhausted.
NOTIFICATION_STATUSES = ("pending", "sent", "failed")


class Notification(Entity):
    ID_PREFIX = "noti"

    event_name = fields.CharField(max_length=100)  # the kind, e.g. customer.password_reset
    resource_type = fields.CharField(max_length=50, null=True)
    resource_id = fields.CharField(max_length=64, null=True)
    customer_id = fields.CharField(max_length=64, null=True)
    to = fields.CharField(max_length=255)
    subject = fields.CharField(max_length=500, null=True)
    body = fields.TextField(null=True)
    data = fields.JSONField(default=dict)  # never holds a token in clear once sent
    provider_id = fields.CharField(max_length=50, null=True)
    status = fields.CharField(max_length=20, default="pending")
    attempts = fields.IntField(default=0)
    last_error = fields.TextField(null=True)
    sent_at = fields.DatetimeField(null=True)
    parent_id = fields.CharField(max_length=64, null=True)  # the notification this one resends

    class Meta:
        table = "notification"
        indexes = (("resource_type", "resource_id"), ("status", "created_at"))


class OneTimeToken(Entity):
    """A single-use, expiring secret, stored as its SHA-256 only."""

    ID_PREFIX = "ott"

    kind = fields.CharField(max_length=50)  # password_reset | order_claim
    token_hash = fields.CharField(max_length=64, unique=True)
    customer_id = fields.CharField(max_length=64, null=True)
    email = fields.CharField(max_length=255, null=True)
    data = fields.JSONField(default=dict)  # e.g. the order ids of a claim
    expires_at = fields.DatetimeField()
    used_at = fields.DatetimeField(null=True)

    class Meta:
        table = "one_time_token"
        indexes = (("kind", "customer_id"),)

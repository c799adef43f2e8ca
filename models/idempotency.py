"""Idempotency keys of requests that must take effect once (cart completion)."""

from tortoise import fields
from tortoise.models import Model

from models.ids import new_id

__all__ = ["IdempotencyKey"]


class IdempotencyKey(Model):
    id = fields.CharField(primary_key=True, max_length=64)
    idempotency_key = fields.CharField(max_length=255, unique=True)
    created_at = fields.DatetimeField(auto_now_add=True)
    locked_at = fields.DatetimeField(null=True)  # held by a request or worker since; null when free
    updated_at = fields.DatetimeField(null=True)  # last progress or release: the retry sweep's clock
    request_method = fields.CharField(max_length=10, null=True)
    request_params = fields.JSONField(null=True)
    request_path = fields.CharField(max_length=500, null=True)
    fingerprint = fields.CharField(max_length=64, null=True)  # SHA-256 of path and body
    response_code = fields.IntField(null=True)
    response_body = fields.JSONField(null=True)
    recovery_point = fields.CharField(max_length=100, default="started")

    class Meta:
        table = "idempotency_key"
        indexes = (("created_at",),)

    def __init__(self, **kwargs):
        if not kwargs.get("id"):
            kwargs["id"] = new_id("ikey")
        super().__init__(**kwargs)

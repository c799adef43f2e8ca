"""Server-side sessions (the database store; Redis holds them when configured)."""

from tortoise import fields
from tortoise.models import Model

__all__ = ["Session"]


class Session(Model):
    # SHA-256 of the session id: a copy of this table does not let anyone sign in.
    id = fields.CharField(primary_key=True, max_length=64)
    data = fields.JSONField(default=dict)
    expires_at = fields.DatetimeField()

    class Meta:
        table = "session"
        indexes = (("expires_at",),)

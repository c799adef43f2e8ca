"""Rate-limit counters kept in the database: where the limits count when Redis cannot be
reached (services/core/rate_limits.py), and the scheduler's once-per-interval leases."""

from tortoise import fields
from tortoise.models import Model

__all__ = ["RateCounter"]


class RateCounter(Model):
    key = fields.CharField(primary_key=True, max_length=200)
    count = fields.IntField(default=0)
    expires_at = fields.DatetimeField()  # the window's end: past it, the next hit starts again at 1

    class Meta:
        table = "rate_counter"

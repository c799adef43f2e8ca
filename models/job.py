"""The job outbox: a row per piece of long work, written in the caller's transaction."""

from tortoise import fields
from tortoise.models import Model

from models.ids import new_id

__all__ = ["Job", "JOB_STATUSES"]

# pending: written, not yet handed to the broker; enqueued: handed over; running: claimed by a
# worker, which beats `heartbeat_at` while it runs; retrying: failed or given back, a retry is
# scheduled; succeeded / failed: final; canceled: an operator canceled it before it ran (final).
JOB_STATUSES = ("pending", "enqueued", "running", "retrying", "succeeded", "failed", "canceled")


class Job(Model):
    id = fields.CharField(primary_key=True, max_length=64)
    actor_name = fields.CharField(max_length=200)
    queue_name = fields.CharField(max_length=100, default="default")
    args = fields.JSONField(default=list)
    kwargs = fields.JSONField(default=dict)
    status = fields.CharField(max_length=20, default="pending")
    attempts = fields.IntField(default=0)
    last_error = fields.TextField(null=True)
    result = fields.JSONField(null=True)
    created_at = fields.DatetimeField(auto_now_add=True)
    updated_at = fields.DatetimeField(auto_now=True)
    enqueued_at = fields.DatetimeField(null=True)
    started_at = fields.DatetimeField(null=True)
    finished_at = fields.DatetimeField(null=True)
    heartbeat_at = fields.DatetimeField(null=True)  # a running job's last sign of life

    class Meta:
        table = "job"
        indexes = (("status", "created_at"),)

    def __init__(self, **kwargs):
        if not kwargs.get("id"):
            kwargs["id"] = new_id("job")
        super().__init__(**kwargs)

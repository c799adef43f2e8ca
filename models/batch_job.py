"""Batch jobs: long work an admin asks for (product import, product export), with its progress."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["BatchJob", "BATCH_JOB_STATUSES", "MILESTONES"]

BATCH_JOB_STATUSES = ("created", "pre_processed", "confirmed", "processing", "completed", "canceled", "failed")
# The status is not stored: each milestone has its timestamp and the last one set in this order
# wins, so a canceled job that then failed reads `failed`.
MILESTONES = (
    ("pre_processed", "pre_processed_at"), ("confirmed", "confirmed_at"), ("processing", "processing_at"),
    ("completed", "completed_at"), ("canceled", "canceled_at"), ("failed", "failed_at"),
)


class BatchJob(SoftDeletable):
    ID_PREFIX = "batch"

    type = fields.CharField(max_length=100)
    created_by = fields.CharField(max_length=64, null=True)  # the user who asked; only they see it
    context = fields.JSONField(default=dict)
    result = fields.JSONField(null=True)
    dry_run = fields.BooleanField(default=False)
    pre_processed_at = fields.DatetimeField(null=True)
    confirmed_at = fields.DatetimeField(null=True)
    processing_at = fields.DatetimeField(null=True)
    completed_at = fields.DatetimeField(null=True)
    canceled_at = fields.DatetimeField(null=True)
    failed_at = fields.DatetimeField(null=True)
    # Worker bookkeeping, never shown: which run holds the job, when it last reported, how many
    # runs were started, and the last committed position a resumed run starts after.
    lease_token = fields.CharField(max_length=64, null=True)
    heartbeat_at = fields.DatetimeField(null=True)
    attempts = fields.IntField(default=0)
    checkpoint = fields.JSONField(null=True)

    class Meta:
        table = "batch_job"
        indexes = (("created_by", "created_at"),)

    @property
    def status(self) -> str:
        status = "created"
        for name, column in MILESTONES:
            if getattr(self, column) is not None:
                status = name
        return status

"""A back-office user's answer to the dashboard's usage-data consent question."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["AnalyticsConfig"]


class AnalyticsConfig(SoftDeletable):
    ID_PREFIX = "acfg"

    # One live config per user (migration index); no foreign key object: routes act by user id.
    user_id = fields.CharField(max_length=64)
    opt_out = fields.BooleanField(default=False)
    anonymize = fields.BooleanField(default=False)

    class Meta:
        table = "analytics_config"

"""Sales channels products are sold through."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["SalesChannel"]


class SalesChannel(SoftDeletable):
    ID_PREFIX = "sc"

    name = fields.CharField(max_length=255)
    description = fields.TextField(null=True)
    is_disabled = fields.BooleanField(default=False)

    class Meta:
        table = "sales_channel"

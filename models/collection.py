"""Product collections."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["ProductCollection"]


class ProductCollection(SoftDeletable):
    ID_PREFIX = "pcol"

    title = fields.CharField(max_length=255)
    handle = fields.CharField(max_length=255, null=True)  # unique among live collections (migration index)

    class Meta:
        table = "product_collection"

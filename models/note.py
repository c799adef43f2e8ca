"""Notes admins write on a resource (an order's timeline), kept by resource type and id."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["Note"]


class Note(SoftDeletable):
    ID_PREFIX = "note"

    value = fields.TextField()
    resource_type = fields.CharField(max_length=255)
    resource_id = fields.CharField(max_length=255)  # no foreign key: any kind of resource (migration index)
    author = fields.ForeignKeyField("models.User", related_name=False, null=True, on_delete=fields.SET_NULL)

    class Meta:
        table = "note"

"""Return reasons: the admin's list of why an item comes back, one level of sub-reasons deep."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["ReturnReason"]


class ReturnReason(SoftDeletable):
    ID_PREFIX = "rr"

    value = fields.CharField(max_length=255)  # unique among live reasons (migration index)
    label = fields.CharField(max_length=255)
    description = fields.TextField(null=True)
    # A parent is a category of reasons; its children are the reasons a return item names.
    parent_return_reason = fields.ForeignKeyField(
        "models.ReturnReason", related_name="return_reason_children", null=True, on_delete=fields.CASCADE,
    )

    class Meta:
        table = "return_reason"

"""Order edits: changes an admin proposes to a placed order and the shopper confirms or declines.
An edit owns clones of the order's lines (LineItem.order_edit_id);
confirming swaps them in for the order's lines."""

from tortoise import fields

from models.base import Entity, SoftDeletable

__all__ = ["OrderEdit", "OrderItemChange", "ORDER_EDIT_STATUSES", "ITEM_CHANGE_TYPES"]

ORDER_EDIT_STATUSES = ("created", "requested", "declined", "confirmed", "canceled")  # from the timestamps
ITEM_CHANGE_TYPES = ("item_add", "item_update", "item_remove")


class OrderEdit(Entity):
    ID_PREFIX = "oe"

    order = fields.ForeignKeyField("models.Order", related_name="edits", on_delete=fields.CASCADE)
    internal_note = fields.TextField(null=True)
    created_by = fields.CharField(max_length=64)
    requested_by = fields.CharField(max_length=64, null=True)
    requested_at = fields.DatetimeField(null=True)
    confirmed_by = fields.CharField(max_length=64, null=True)
    confirmed_at = fields.DatetimeField(null=True)
    declined_by = fields.CharField(max_length=64, null=True)
    declined_reason = fields.TextField(null=True)
    declined_at = fields.DatetimeField(null=True)
    canceled_by = fields.CharField(max_length=64, null=True)
    canceled_at = fields.DatetimeField(null=True)
    payment_collection_id = fields.CharField(max_length=64, null=True)

    class Meta:
        table = "order_edit"


class OrderItemChange(SoftDeletable):
    ID_PREFIX = "oic"

    type = fields.CharField(max_length=20)  # ITEM_CHANGE_TYPES
    order_edit = fields.ForeignKeyField("models.OrderEdit", related_name="changes", on_delete=fields.CASCADE)
    original_line_item_id = fields.CharField(max_length=64, null=True)
    line_item_id = fields.CharField(max_length=64, null=True)

    class Meta:
        table = "order_item_change"

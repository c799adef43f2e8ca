"""Draft orders: a cart of type `draft_order` that an admin builds, paid by registering a payment."""

from tortoise import fields

from models.base import Entity

__all__ = ["DraftOrder", "DRAFT_ORDER_STATUSES"]

DRAFT_ORDER_STATUSES = ("open", "completed")


class DraftOrder(Entity):
    ID_PREFIX = "dorder"

    status = fields.CharField(max_length=20, default="open")
    display_id = fields.IntField(unique=True)  # shared sequence with orders
    cart = fields.ForeignKeyField("models.Cart", related_name=False, null=True, on_delete=fields.SET_NULL)
    order_id = fields.CharField(max_length=64, null=True, unique=True)
    canceled_at = fields.DatetimeField(null=True)
    completed_at = fields.DatetimeField(null=True)
    no_notification_order = fields.BooleanField(null=True)
    idempotency_key = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "draft_order"

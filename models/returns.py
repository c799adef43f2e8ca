"""Items coming back: a return of some of an order's lines (later a swap's or a claim's), with the
reason for each, and the money given back for an order."""

from tortoise import fields
from tortoise.models import Model

from models.base import Entity
from models.ids import new_id

__all__ = ["Return", "ReturnItem", "Refund", "RETURN_STATUSES", "REFUND_REASONS"]

RETURN_STATUSES = ("requested", "received", "requires_action", "canceled")
REFUND_REASONS = ("discount", "return", "swap", "claim", "other")


class Return(Entity):
    ID_PREFIX = "ret"

    status = fields.CharField(max_length=20, default="requested")
    order_id = fields.CharField(max_length=64, null=True)
    swap_id = fields.CharField(max_length=64, null=True)
    claim_order_id = fields.CharField(max_length=64, null=True)
    location_id = fields.CharField(max_length=64, null=True)
    shipping_data = fields.JSONField(null=True)  # what the provider answered for the return shipment
    refund_amount = fields.BigIntField(default=0)  # minor units
    received_at = fields.DatetimeField(null=True)
    no_notification = fields.BooleanField(null=True)
    idempotency_key = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "return"
        indexes = (("order_id",),)


class ReturnItem(Model):
    """One line in a return: how many were asked for and how many arrived (Medusa's key: return
    and item)."""

    id = fields.CharField(primary_key=True, max_length=64)
    return_id = fields.CharField(max_length=64)  # `return` is a Python keyword: no relation field
    item_id = fields.CharField(max_length=64)
    quantity = fields.IntField()
    is_requested = fields.BooleanField(default=True)
    requested_quantity = fields.IntField(null=True)
    received_quantity = fields.IntField(null=True)
    reason = fields.ForeignKeyField("models.ReturnReason", related_name=False, null=True, on_delete=fields.SET_NULL)
    note = fields.TextField(null=True)
    metadata = fields.JSONField(null=True)

    class Meta:
        table = "return_item"
        unique_together = (("return_id", "item_id"),)

    def __init__(self, **kwargs):
        if not kwargs.get("id"):
            kwargs["id"] = new_id("reti")
        super().__init__(**kwargs)


class Refund(Entity):
    """Money given back for an order: taken off its payments' `amount_refunded` in the same
    transaction, by a conditional update (services/orders/refunds.py)."""

    ID_PREFIX = "ref"

    order_id = fields.CharField(max_length=64, null=True)
    payment_id = fields.CharField(max_length=64, null=True)
    amount = fields.BigIntField()
    note = fields.TextField(null=True)
    reason = fields.CharField(max_length=20)  # REFUND_REASONS
    idempotency_key = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "refund"
        indexes = (("order_id",),)

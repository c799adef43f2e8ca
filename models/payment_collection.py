"""Payment collections: an amount to collect outside a cart (the difference an order edit
leaves due), with its payment sessions and the payments they produced."""

from tortoise import fields

from models.base import Entity, SoftDeletable

__all__ = ["PaymentCollection", "PaymentCollectionSession", "PAYMENT_COLLECTION_STATUSES"]

PAYMENT_COLLECTION_STATUSES = ("not_paid", "awaiting", "authorized", "partially_authorized", "canceled")


class PaymentCollection(SoftDeletable):
    ID_PREFIX = "paycol"

    type = fields.CharField(max_length=20, default="order_edit")
    status = fields.CharField(max_length=30, default="not_paid")
    description = fields.TextField(null=True)
    amount = fields.BigIntField()  # minor units
    authorized_amount = fields.BigIntField(null=True)
    region = fields.ForeignKeyField("models.Region", related_name=False, on_delete=fields.RESTRICT)
    currency_code = fields.CharField(max_length=3)
    created_by = fields.CharField(max_length=64)

    class Meta:
        table = "payment_collection"


class PaymentCollectionSession(Entity):
    ID_PREFIX = "ps"

    payment_collection = fields.ForeignKeyField(
        "models.PaymentCollection", related_name="payment_sessions", on_delete=fields.CASCADE
    )
    provider_id = fields.CharField(max_length=64)
    is_selected = fields.BooleanField(null=True)
    is_initiated = fields.BooleanField(default=False)
    status = fields.CharField(max_length=20, default="pending")
    data = fields.JSONField(default=dict)
    amount = fields.BigIntField()
    payment_authorized_at = fields.DatetimeField(null=True)

    class Meta:
        table = "payment_collection_session"

"""Swaps: a placed order's items exchanged for others. The items
coming back are a Return with `swap_id`; the new items are LineItems with `swap_id`, sold through
a cart of type `swap` whose total is the difference the shopper pays (or is given back); their
parcels are Fulfillments with `swap_id`. A swap cart may offer shipping at prices the merchant set
for it (CustomShippingOption)."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["Swap", "CustomShippingOption", "SWAP_PAYMENT_STATUSES", "SWAP_FULFILLMENT_STATUSES"]

SWAP_PAYMENT_STATUSES = (
    "not_paid", "awaiting", "captured", "confirmed", "canceled", "difference_refunded", "partially_refunded",
    "refunded", "requires_action",
)
SWAP_FULFILLMENT_STATUSES = ("not_fulfilled", "fulfilled", "shipped", "partially_shipped", "canceled", "requires_action")


class Swap(SoftDeletable):
    ID_PREFIX = "swap"

    order_id = fields.CharField(max_length=64)
    fulfillment_status = fields.CharField(max_length=20, default="not_fulfilled")
    payment_status = fields.CharField(max_length=20, default="not_paid")
    difference_due = fields.BigIntField(null=True)  # minor units: the swap cart's total once confirmed
    shipping_address_id = fields.CharField(max_length=64, null=True)
    cart_id = fields.CharField(max_length=64, null=True)
    confirmed_at = fields.DatetimeField(null=True)
    canceled_at = fields.DatetimeField(null=True)
    no_notification = fields.BooleanField(null=True)
    allow_backorder = fields.BooleanField(default=False)
    idempotency_key = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "swap"
        indexes = (("order_id",),)


class CustomShippingOption(SoftDeletable):
    """A shipping option offered on one cart at a price set for it (a swap's, a draft order's)."""

    ID_PREFIX = "cso"

    shipping_option = fields.ForeignKeyField("models.ShippingOption", related_name=False, on_delete=fields.RESTRICT)
    cart_id = fields.CharField(max_length=64, null=True)
    price = fields.BigIntField()  # minor units

    class Meta:
        table = "custom_shipping_option"
        indexes = (("cart_id",),)

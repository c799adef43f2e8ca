"""Claims: a shopper's complaint about items of a placed order that
were missing, wrong or faulty, settled by a refund or by replacement items sent out. The claimed
lines are ClaimItems (with the merchant's photos and tags); replacements are LineItems with
`claim_order_id`; their parcels are Fulfillments with `claim_order_id`; items coming back are a
Return with `claim_order_id`."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["ClaimOrder", "ClaimItem", "ClaimImage", "ClaimTag", "CLAIM_TYPES", "CLAIM_REASONS"]

CLAIM_TYPES = ("refund", "replace")
CLAIM_REASONS = ("missing_item", "wrong_item", "production_failure", "other")


class ClaimOrder(SoftDeletable):
    ID_PREFIX = "claim"

    order_id = fields.CharField(max_length=64)
    type = fields.CharField(max_length=20)  # CLAIM_TYPES
    payment_status = fields.CharField(max_length=20, default="na")  # na | not_refunded | refunded
    fulfillment_status = fields.CharField(max_length=20, default="not_fulfilled")
    shipping_address_id = fields.CharField(max_length=64, null=True)
    refund_amount = fields.BigIntField(null=True)  # minor units
    canceled_at = fields.DatetimeField(null=True)
    no_notification = fields.BooleanField(null=True)
    idempotency_key = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "claim_order"
        indexes = (("order_id",),)


class ClaimItem(SoftDeletable):
    ID_PREFIX = "citm"

    claim_order_id = fields.CharField(max_length=64)
    item_id = fields.CharField(max_length=64)
    variant_id = fields.CharField(max_length=64, null=True)
    reason = fields.CharField(max_length=30)  # CLAIM_REASONS
    note = fields.TextField(null=True)
    quantity = fields.IntField()
    tags = fields.ManyToManyField(
        "models.ClaimTag", related_name=False, through="claim_item_tags",
        forward_key="tag_id", backward_key="item_id",
    )

    class Meta:
        table = "claim_item"
        indexes = (("claim_order_id",),)


class ClaimImage(SoftDeletable):
    ID_PREFIX = "cimg"

    claim_item = fields.ForeignKeyField("models.ClaimItem", related_name="images", on_delete=fields.CASCADE)
    url = fields.CharField(max_length=2048)

    class Meta:
        table = "claim_image"


class ClaimTag(SoftDeletable):
    ID_PREFIX = "ctag"

    value = fields.CharField(max_length=255)  # trimmed, lower case; reused by value

    class Meta:
        table = "claim_tag"

"""Shipping profiles, shipping options and their requirements."""

from tortoise import fields
from tortoise.models import Model

from models.base import SoftDeletable
from models.ids import new_id

__all__ = ["ShippingProfile", "ShippingOption", "ShippingOptionRequirement"]


class ShippingProfile(SoftDeletable):
    ID_PREFIX = "sp"

    name = fields.CharField(max_length=255)
    type = fields.CharField(max_length=20, default="custom")  # default | gift_card | custom

    class Meta:
        table = "shipping_profile"


class ShippingOption(SoftDeletable):
    ID_PREFIX = "so"

    name = fields.CharField(max_length=255)
    region = fields.ForeignKeyField("models.Region", related_name="shipping_options", on_delete=fields.CASCADE)
    profile = fields.ForeignKeyField("models.ShippingProfile", related_name="shipping_options")
    provider = fields.ForeignKeyField("models.FulfillmentProvider", related_name=False)
    price_type = fields.CharField(max_length=20)  # flat_rate | calculated
    amount = fields.BigIntField(null=True)  # minor units
    is_return = fields.BooleanField(default=False)
    admin_only = fields.BooleanField(default=False)
    includes_tax = fields.BooleanField(default=False)
    data = fields.JSONField(default=dict)

    class Meta:
        table = "shipping_option"


class ShippingOptionRequirement(Model):
    id = fields.CharField(primary_key=True, max_length=64)
    shipping_option = fields.ForeignKeyField(
        "models.ShippingOption", related_name="requirements", on_delete=fields.CASCADE
    )
    type = fields.CharField(max_length=20)  # min_subtotal | max_subtotal
    amount = fields.BigIntField()
    deleted_at = fields.DatetimeField(null=True)

    class Meta:
        table = "shipping_option_requirement"

    def __init__(self, **kwargs):
        if not kwargs.get("id"):
            kwargs["id"] = new_id("sor")
        super().__init__(**kwargs)

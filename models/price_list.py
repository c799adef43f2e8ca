"""Price lists: sale or override prices for a time window and for customer groups. Their prices
are money_amount rows naming the list (price_list_id)."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["PriceList", "PRICE_LIST_TYPES", "PRICE_LIST_STATUSES"]

PRICE_LIST_TYPES = ("sale", "override")
PRICE_LIST_STATUSES = ("active", "draft")


class PriceList(SoftDeletable):
    ID_PREFIX = "pl"

    name = fields.CharField(max_length=255)
    description = fields.TextField(default="")
    type = fields.CharField(max_length=20, default="sale")
    status = fields.CharField(max_length=20, default="draft")
    starts_at = fields.DatetimeField(null=True)
    ends_at = fields.DatetimeField(null=True)
    includes_tax = fields.BooleanField(default=False)
    customer_groups = fields.ManyToManyField(
        "models.CustomerGroup", related_name="price_lists", through="price_list_customer_groups",
        forward_key="customer_group_id", backward_key="price_list_id",
    )

    class Meta:
        table = "price_list"

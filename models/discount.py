"""Discounts: a code, the rule it applies, and the conditions that narrow the rule."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["Discount", "DiscountRule", "DiscountCondition", "RULE_TYPES", "ALLOCATIONS", "CONDITION_TYPES",
           "OPERATORS"]

RULE_TYPES = ("fixed", "percentage", "free_shipping")
ALLOCATIONS = ("total", "item")
# In the order Medusa v1 picks a condition's type from a payload that names several.
CONDITION_TYPES = ("products", "product_collections", "product_types", "product_tags", "customer_groups")
OPERATORS = ("in", "not_in")


class DiscountRule(SoftDeletable):
    ID_PREFIX = "dru"

    description = fields.TextField(null=True)
    type = fields.CharField(max_length=20)  # RULE_TYPES
    value = fields.BigIntField()  # minor units for fixed, percent for percentage, 0 for free shipping
    allocation = fields.CharField(max_length=10, null=True)  # ALLOCATIONS

    class Meta:
        table = "discount_rule"


class DiscountCondition(SoftDeletable):
    ID_PREFIX = "discon"

    type = fields.CharField(max_length=30)  # CONDITION_TYPES
    operator = fields.CharField(max_length=10)  # OPERATORS
    discount_rule = fields.ForeignKeyField(
        "models.DiscountRule", related_name="conditions", on_delete=fields.CASCADE
    )
    products = fields.ManyToManyField(
        "models.Product", related_name=False, through="discount_condition_product",
        forward_key="product_id", backward_key="condition_id",
    )
    product_types = fields.ManyToManyField(
        "models.ProductType", related_name=False, through="discount_condition_product_type",
        forward_key="product_type_id", backward_key="condition_id",
    )
    product_tags = fields.ManyToManyField(
        "models.ProductTag", related_name=False, through="discount_condition_product_tag",
        forward_key="product_tag_id", backward_key="condition_id",
    )
    product_collections = fields.ManyToManyField(
        "models.ProductCollection", related_name="discount_conditions",
        through="discount_condition_product_collection",
        forward_key="product_collection_id", backward_key="condition_id",
    )
    customer_groups = fields.ManyToManyField(
        "models.CustomerGroup", related_name="discount_conditions",
        through="discount_condition_customer_group",
        forward_key="customer_group_id", backward_key="condition_id",
    )

    class Meta:
        table = "discount_condition"
        unique_together = (("type", "operator", "discount_rule_id"),)


class Discount(SoftDeletable):
    ID_PREFIX = "disc"

    code = fields.CharField(max_length=255)  # upper case; unique among live discounts (migration index)
    is_dynamic = fields.BooleanField(default=False)
    is_disabled = fields.BooleanField(default=False)
    rule = fields.ForeignKeyField("models.DiscountRule", related_name="discounts", on_delete=fields.RESTRICT)
    parent_discount = fields.ForeignKeyField(
        "models.Discount", related_name="children", null=True, on_delete=fields.CASCADE
    )
    starts_at = fields.DatetimeField()
    ends_at = fields.DatetimeField(null=True)
    valid_duration = fields.CharField(max_length=64, null=True)  # ISO 8601 duration
    usage_limit = fields.IntField(null=True)
    usage_count = fields.IntField(default=0)  # raised only by services.discounts.engine.redeem
    regions = fields.ManyToManyField(
        "models.Region", related_name=False, through="discount_regions",
        forward_key="region_id", backward_key="discount_id",
    )

    class Meta:
        table = "discount"

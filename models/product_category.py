"""Product categories: a tree the merchant ranks, with public/internal and active/inactive nodes."""

from tortoise import fields

from models.base import Entity

__all__ = ["ProductCategory"]


class ProductCategory(Entity):
    ID_PREFIX = "pcat"
    RELATION_ORDER = ("rank", "created_at", "id")

    name = fields.CharField(max_length=255)
    description = fields.TextField(default="")
    handle = fields.CharField(max_length=255)  # unique (migration index)
    is_active = fields.BooleanField(default=False)
    is_internal = fields.BooleanField(default=False)
    rank = fields.IntField(default=0)  # among its siblings, 0..n-1
    parent_category = fields.ForeignKeyField(
        "models.ProductCategory", related_name="category_children", null=True, on_delete=fields.CASCADE,
    )
    products = fields.ManyToManyField(
        "models.Product", related_name="categories", through="product_category_product",
        forward_key="product_id", backward_key="product_category_id",
    )

    class Meta:
        table = "product_category"

"""Products with their variants, options, prices, images, tags and types."""

from tortoise import fields

from models.base import Entity, SoftDeletable

__all__ = [
    "Product", "ProductVariant", "ProductOption", "ProductOptionValue", "MoneyAmount",
    "Image", "ProductTag", "ProductType", "PRODUCT_STATUSES",
]

PRODUCT_STATUSES = ("draft", "proposed", "published", "rejected")


class ProductTag(SoftDeletable):
    ID_PREFIX = "ptag"

    value = fields.CharField(max_length=255)

    class Meta:
        table = "product_tag"


class ProductType(SoftDeletable):
    ID_PREFIX = "ptyp"

    value = fields.CharField(max_length=255)

    class Meta:
        table = "product_type"


class Image(SoftDeletable):
    ID_PREFIX = "img"

    url = fields.CharField(max_length=2048)

    class Meta:
        table = "image"


class Product(SoftDeletable):
    ID_PREFIX = "prod"

    title = fields.CharField(max_length=255)
    subtitle = fields.CharField(max_length=255, null=True)
    description = fields.TextField(null=True)
    handle = fields.CharField(max_length=255, null=True)  # unique among live products (migration index)
    is_giftcard = fields.BooleanField(default=False)
    status = fields.CharField(max_length=20, default="draft")
    thumbnail = fields.CharField(max_length=2048, null=True)
    weight = fields.IntField(null=True)
    length = fields.IntField(null=True)
    height = fields.IntField(null=True)
    width = fields.IntField(null=True)
    hs_code = fields.CharField(max_length=255, null=True)
    origin_country = fields.CharField(max_length=255, null=True)
    mid_code = fields.CharField(max_length=255, null=True)
    material = fields.CharField(max_length=255, null=True)
    discountable = fields.BooleanField(default=True)
    external_id = fields.CharField(max_length=255, null=True)
    collection = fields.ForeignKeyField(
        "models.ProductCollection", related_name="products", null=True, on_delete=fields.SET_NULL
    )
    type = fields.ForeignKeyField(
        "models.ProductType", related_name="products", null=True, on_delete=fields.SET_NULL
    )
    profile = fields.ForeignKeyField(
        "models.ShippingProfile", related_name="products", null=True, on_delete=fields.SET_NULL
    )
    tags = fields.ManyToManyField(
        "models.ProductTag", related_name="products", through="product_tags",
        forward_key="product_tag_id", backward_key="product_id",
    )
    images = fields.ManyToManyField(
        "models.Image", related_name="products", through="product_images",
        forward_key="image_id", backward_key="product_id",
    )
    sales_channels = fields.ManyToManyField(
        "models.SalesChannel", related_name="products", through="product_sales_channel",
        forward_key="sales_channel_id", backward_key="product_id",
    )

    class Meta:
        table = "product"


class ProductOption(SoftDeletable):
    ID_PREFIX = "opt"

    title = fields.CharField(max_length=255)
    product = fields.ForeignKeyField("models.Product", related_name="options", on_delete=fields.CASCADE)

    class Meta:
        table = "product_option"


class ProductVariant(SoftDeletable):
    ID_PREFIX = "variant"
    RELATION_ORDER = ("variant_rank", "created_at", "id")  # as the merchant ranked them

    title = fields.CharField(max_length=255)
    product = fields.ForeignKeyField("models.Product", related_name="variants", on_delete=fields.CASCADE)
    sku = fields.CharField(max_length=255, null=True)  # unique among live variants (migration index)
    barcode = fields.CharField(max_length=255, null=True)
    ean = fields.CharField(max_length=255, null=True)
    upc = fields.CharField(max_length=255, null=True)
    variant_rank = fields.IntField(default=0)
    inventory_quantity = fields.IntField(default=0)
    allow_backorder = fields.BooleanField(default=False)
    manage_inventory = fields.BooleanField(default=True)
    hs_code = fields.CharField(max_length=255, null=True)
    origin_country = fields.CharField(max_length=255, null=True)
    mid_code = fields.CharField(max_length=255, null=True)
    material = fields.CharField(max_length=255, null=True)
    weight = fields.IntField(null=True)
    length = fields.IntField(null=True)
    height = fields.IntField(null=True)
    width = fields.IntField(null=True)

    class Meta:
        table = "product_variant"


class ProductOptionValue(SoftDeletable):
    ID_PREFIX = "optval"

    value = fields.CharField(max_length=255)
    option = fields.ForeignKeyField("models.ProductOption", related_name="values", on_delete=fields.CASCADE)
    variant = fields.ForeignKeyField("models.ProductVariant", related_name="options", on_delete=fields.CASCADE)

    class Meta:
        table = "product_option_value"


class MoneyAmount(Entity):
    # A price of a variant: for a currency, or for a region (in the region's currency).

    ID_PREFIX = "ma"

    currency_code = fields.CharField(max_length=3)
    amount = fields.BigIntField()  # minor units
    min_quantity = fields.IntField(null=True)
    max_quantity = fields.IntField(null=True)
    price_list_id = fields.CharField(max_length=64, null=True)
    variant = fields.ForeignKeyField("models.ProductVariant", related_name="prices", on_delete=fields.CASCADE)
    region = fields.ForeignKeyField("models.Region", related_name=False, null=True, on_delete=fields.CASCADE)
    deleted_at = fields.DatetimeField(null=True)

    class Meta:
        table = "money_amount"

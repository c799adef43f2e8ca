"""Carts: what a shopper is about to buy, with its lines, adjustments, tax lines, shipping
methods and payment sessions."""

from tortoise import fields

from models.base import Entity, SoftDeletable

__all__ = [
    "Cart", "LineItem", "LineItemAdjustment", "LineItemTaxLine", "ShippingMethod", "ShippingMethodTaxLine",
    "PaymentSession", "CART_TYPES", "PAYMENT_SESSION_STATUSES",
]

CART_TYPES = ("default", "swap", "draft_order", "payment_link", "claim")
PAYMENT_SESSION_STATUSES = ("authorized", "pending", "requires_more", "error", "canceled")


class Cart(SoftDeletable):
    ID_PREFIX = "cart"

    email = fields.CharField(max_length=255, null=True)
    billing_address = fields.ForeignKeyField(
        "models.Address", related_name=False, null=True, on_delete=fields.SET_NULL
    )
    shipping_address = fields.ForeignKeyField(
        "models.Address", related_name=False, null=True, on_delete=fields.SET_NULL
    )
    region = fields.ForeignKeyField("models.Region", related_name=False, on_delete=fields.RESTRICT)
    customer = fields.ForeignKeyField("models.Customer", related_name="carts", null=True, on_delete=fields.SET_NULL)
    payment_id = fields.CharField(max_length=64, null=True)  # the payment made at completion
    type = fields.CharField(max_length=20, default="default")  # CART_TYPES
    completed_at = fields.DatetimeField(null=True)
    payment_authorized_at = fields.DatetimeField(null=True)
    idempotency_key = fields.CharField(max_length=255, null=True)
    context = fields.JSONField(null=True)
    sales_channel = fields.ForeignKeyField(
        "models.SalesChannel", related_name=False, null=True, on_delete=fields.SET_NULL
    )
    discounts = fields.ManyToManyField(
        "models.Discount", related_name=False, through="cart_discounts",
        forward_key="discount_id", backward_key="cart_id",
    )
    gift_cards = fields.ManyToManyField(
        "models.GiftCard", related_name=False, through="cart_gift_cards",
        forward_key="gift_card_id", backward_key="cart_id",
    )

    class Meta:
        table = "cart"


class LineItem(Entity):
    ID_PREFIX = "item"
    RELATION_ORDER = ("created_at", "id")

    cart = fields.ForeignKeyField("models.Cart", related_name="items", null=True, on_delete=fields.CASCADE)
    order_id = fields.CharField(max_length=64, null=True)
    claim_order_id = fields.CharField(max_length=64, null=True)  # a claim's replacement item
    swap_id = fields.CharField(max_length=64, null=True)  # a swap's new item
    order_edit_id = fields.CharField(max_length=64, null=True)  # a line an order edit proposes
    original_item_id = fields.CharField(max_length=64, null=True)  # the order line it was cloned from
    variant = fields.ForeignKeyField(
        "models.ProductVariant", related_name=False, null=True, on_delete=fields.SET_NULL
    )
    title = fields.CharField(max_length=255)
    description = fields.CharField(max_length=255, null=True)
    thumbnail = fields.CharField(max_length=2048, null=True)
    is_return = fields.BooleanField(default=False)
    is_giftcard = fields.BooleanField(default=False)
    should_merge = fields.BooleanField(default=True)
    allow_discounts = fields.BooleanField(default=True)
    has_shipping = fields.BooleanField(null=True)
    unit_price = fields.BigIntField()  # minor units
    quantity = fields.IntField()  # > 0
    fulfilled_quantity = fields.IntField(null=True)
    returned_quantity = fields.IntField(null=True)
    shipped_quantity = fields.IntField(null=True)
    includes_tax = fields.BooleanField(default=False)  # unit_price already holds its tax

    class Meta:
        table = "line_item"


class LineItemAdjustment(Entity):
    # A discount's share of one line (description "discount"), in whole minor units.
    ID_PREFIX = "lia"

    item = fields.ForeignKeyField("models.LineItem", related_name="adjustments", on_delete=fields.CASCADE)
    description = fields.CharField(max_length=255)
    discount = fields.ForeignKeyField("models.Discount", related_name=False, null=True, on_delete=fields.SET_NULL)
    amount = fields.BigIntField()

    class Meta:
        table = "line_item_adjustment"


class LineItemTaxLine(Entity):
    ID_PREFIX = "litl"

    item = fields.ForeignKeyField("models.LineItem", related_name="tax_lines", on_delete=fields.CASCADE)
    rate = fields.FloatField()  # percent
    name = fields.CharField(max_length=255)
    code = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "line_item_tax_line"


class ShippingMethod(Entity):
    ID_PREFIX = "sm"

    shipping_option = fields.ForeignKeyField("models.ShippingOption", related_name=False, on_delete=fields.RESTRICT)
    cart = fields.ForeignKeyField(
        "models.Cart", related_name="shipping_methods", null=True, on_delete=fields.CASCADE
    )
    order_id = fields.CharField(max_length=64, null=True)
    return_id = fields.CharField(max_length=64, null=True)  # the return shipment of a return
    claim_order_id = fields.CharField(max_length=64, null=True)  # how a claim's replacements ship
    swap_id = fields.CharField(max_length=64, null=True)  # how a swap's new items ship
    price = fields.BigIntField()  # minor units; 0 while a free-shipping discount is on the cart
    data = fields.JSONField(default=dict)
    includes_tax = fields.BooleanField(default=False)  # price already holds its tax

    class Meta:
        table = "shipping_method"


class ShippingMethodTaxLine(Entity):
    ID_PREFIX = "smtl"

    shipping_method = fields.ForeignKeyField(
        "models.ShippingMethod", related_name="tax_lines", on_delete=fields.CASCADE
    )
    rate = fields.FloatField()
    name = fields.CharField(max_length=255)
    code = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "shipping_method_tax_line"


class PaymentSession(Entity):
    ID_PREFIX = "ps"

    cart = fields.ForeignKeyField("models.Cart", related_name="payment_sessions", on_delete=fields.CASCADE)
    provider_id = fields.CharField(max_length=64)
    is_selected = fields.BooleanField(null=True)  # true on at most one session of a cart
    is_initiated = fields.BooleanField(default=False)
    status = fields.CharField(max_length=20, default="pending")  # PAYMENT_SESSION_STATUSES
    data = fields.JSONField(default=dict)
    amount = fields.BigIntField(null=True)
    payment_authorized_at = fields.DatetimeField(null=True)
    idempotency_key = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "payment_session"
        unique_together = (("cart_id", "provider_id"),)

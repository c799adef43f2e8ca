"""Orders: what a completed cart (or a paid draft order) became, with its payments and the
gift-card spending that paid part of it.

Line items and shipping methods are not copied: the cart's rows get `order_id` (Medusa's way).
"""

from tortoise import fields
from tortoise.models import Model

from models.base import Entity
from models.ids import new_id

__all__ = [
    "Order", "Payment", "GiftCardTransaction", "DisplaySequence",
    "ORDER_STATUSES", "FULFILLMENT_STATUSES", "PAYMENT_STATUSES",
]

ORDER_STATUSES = ("pending", "completed", "archived", "canceled", "requires_action")
FULFILLMENT_STATUSES = (
    "not_fulfilled", "partially_fulfilled", "fulfilled", "partially_shipped", "shipped",
    "partially_returned", "returned", "canceled", "requires_action",
)
PAYMENT_STATUSES = (
    "not_paid", "awaiting", "captured", "partially_refunded", "refunded", "canceled", "requires_action",
)


class Order(Entity):
    ID_PREFIX = "order"

    status = fields.CharField(max_length=20, default="pending")
    fulfillment_status = fields.CharField(max_length=20, default="not_fulfilled")
    payment_status = fields.CharField(max_length=20, default="not_paid")
    display_id = fields.IntField(unique=True)  # shared sequence with draft orders
    cart_id = fields.CharField(max_length=64, null=True, unique=True)  # one order per cart
    customer = fields.ForeignKeyField("models.Customer", related_name="orders", on_delete=fields.RESTRICT)
    email = fields.CharField(max_length=255)
    billing_address = fields.ForeignKeyField(
        "models.Address", related_name=False, null=True, on_delete=fields.SET_NULL
    )
    shipping_address = fields.ForeignKeyField(
        "models.Address", related_name=False, null=True, on_delete=fields.SET_NULL
    )
    region = fields.ForeignKeyField("models.Region", related_name=False, on_delete=fields.RESTRICT)
    currency_code = fields.CharField(max_length=3)
    tax_rate = fields.FloatField(null=True)
    draft_order_id = fields.CharField(max_length=64, null=True)
    canceled_at = fields.DatetimeField(null=True)
    no_notification = fields.BooleanField(null=True)
    idempotency_key = fields.CharField(max_length=255, null=True)
    external_id = fields.CharField(max_length=255, null=True)
    sales_channel = fields.ForeignKeyField(
        "models.SalesChannel", related_name=False, null=True, on_delete=fields.SET_NULL
    )
    discounts = fields.ManyToManyField(
        "models.Discount", related_name=False, through="order_discounts",
        forward_key="discount_id", backward_key="order_id",
    )
    gift_cards = fields.ManyToManyField(
        "models.GiftCard", related_name=False, through="order_gift_cards",
        forward_key="gift_card_id", backward_key="order_id",
    )

    class Meta:
        table = "orders"  # "order" is an SQL keyword that Tortoise's SQLite DDL does not quote


class Payment(Entity):
    ID_PREFIX = "pay"

    cart_id = fields.CharField(max_length=64, null=True)
    order_id = fields.CharField(max_length=64, null=True)
    swap_id = fields.CharField(max_length=64, null=True)
    payment_collection_id = fields.CharField(max_length=64, null=True)
    amount = fields.BigIntField()
    currency_code = fields.CharField(max_length=3)
    amount_refunded = fields.BigIntField(default=0)
    provider_id = fields.CharField(max_length=100)
    data = fields.JSONField(default=dict)
    captured_at = fields.DatetimeField(null=True)
    canceled_at = fields.DatetimeField(null=True)
    idempotency_key = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "payment"


class GiftCardTransaction(Model):
    """An amount taken from a gift card's balance by an order."""

    id = fields.CharField(primary_key=True, max_length=64)
    gift_card = fields.ForeignKeyField("models.GiftCard", related_name="transactions", on_delete=fields.RESTRICT)
    order_id = fields.CharField(max_length=64)
    amount = fields.BigIntField()
    is_taxable = fields.BooleanField(null=True)
    tax_rate = fields.FloatField(null=True)
    created_at = fields.DatetimeField(auto_now_add=True)

    class Meta:
        table = "gift_card_transaction"
        unique_together = (("gift_card_id", "order_id"),)

    def __init__(self, **kwargs):
        if not kwargs.get("id"):
            kwargs["id"] = new_id("gct")
        super().__init__(**kwargs)


class DisplaySequence(Model):
    """Named counters: the one named order numbers orders and draft orders alike (display_id)."""

    # Read on SQLite only: PostgreSQL draws the numbers from a sequence (services/orders/display_ids.py).

    name = fields.CharField(primary_key=True, max_length=50)
    value = fields.IntField(default=0)

    class Meta:
        table = "display_sequence"

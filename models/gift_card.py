"""Gift cards: a balance in one region, spent across orders."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["GiftCard"]


class GiftCard(SoftDeletable):
    ID_PREFIX = "gift"

    code = fields.CharField(max_length=64, unique=True)  # XXXX-XXXX-XXXX-XXXX
    value = fields.BigIntField()  # minor units
    balance = fields.BigIntField()  # minor units, 0 <= balance <= value
    region = fields.ForeignKeyField("models.Region", related_name="gift_cards", on_delete=fields.RESTRICT)
    order_id = fields.CharField(max_length=64, null=True)  # the order that bought it
    is_disabled = fields.BooleanField(default=False)
    ends_at = fields.DatetimeField(null=True)
    tax_rate = fields.FloatField(null=True)  # percent, snapshot of the region's at creation

    class Meta:
        table = "gift_card"
        indexes = (("region_id",),)

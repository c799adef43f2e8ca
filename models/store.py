"""The store itself and the currencies it can sell in."""

from tortoise import fields
from tortoise.models import Model

from models.base import Entity

__all__ = ["Store", "Currency"]


class Currency(Model):
    # ISO 4217 currency; the primary key is the lower-case code.

    code = fields.CharField(primary_key=True, max_length=3)
    symbol = fields.CharField(max_length=16)
    symbol_native = fields.CharField(max_length=16)
    name = fields.CharField(max_length=100)
    includes_tax = fields.BooleanField(default=False)

    class Meta:
        table = "currency"


class Store(Entity):
    ID_PREFIX = "store"

    name = fields.CharField(max_length=255, default="Medusa Store")
    default_currency_code = fields.CharField(max_length=3, default="usd")
    swap_link_template = fields.CharField(max_length=500, null=True)
    payment_link_template = fields.CharField(max_length=500, null=True)
    invite_link_template = fields.CharField(max_length=500, null=True)
    default_location_id = fields.CharField(max_length=64, null=True)  # INVENTORY_LOCATIONS: where switch-on stocks
    default_sales_channel = fields.ForeignKeyField(
        "models.SalesChannel", related_name=False, null=True, on_delete=fields.SET_NULL
    )
    currencies = fields.ManyToManyField(
        "models.Currency", related_name="stores", through="store_currencies",
        forward_key="currency_code", backward_key="store_id",
    )

    class Meta:
        table = "store"

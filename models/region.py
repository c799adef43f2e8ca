"""Regions with their countries, tax rates and the providers enabled in them."""

from tortoise import fields
from tortoise.models import Model

from models.base import Entity, SoftDeletable

__all__ = ["Region", "Country", "PaymentProvider", "FulfillmentProvider", "TaxProvider", "TaxRate"]


class Provider(Model):
    # A plug-in the store can use; the id is its name (`manual`, `system`).
    id = fields.CharField(primary_key=True, max_length=100)
    is_installed = fields.BooleanField(default=True)

    class Meta:
        abstract = True


class PaymentProvider(Provider):
    class Meta:
        table = "payment_provider"


class FulfillmentProvider(Provider):
    class Meta:
        table = "fulfillment_provider"


class TaxProvider(Provider):
    class Meta:
        table = "tax_provider"


class Region(SoftDeletable):
    ID_PREFIX = "reg"

    name = fields.CharField(max_length=255)
    currency_code = fields.CharField(max_length=3)
    tax_rate = fields.FloatField(default=0)  # percent: 25 means 25 %
    tax_code = fields.CharField(max_length=100, null=True)
    gift_cards_taxable = fields.BooleanField(default=True)
    automatic_taxes = fields.BooleanField(default=True)
    includes_tax = fields.BooleanField(default=False)
    tax_provider = fields.ForeignKeyField(
        "models.TaxProvider", related_name=False, null=True, on_delete=fields.SET_NULL
    )
    payment_providers = fields.ManyToManyField(
        "models.PaymentProvider", related_name="regions", through="region_payment_providers",
        forward_key="provider_id", backward_key="region_id",
    )
    fulfillment_providers = fields.ManyToManyField(
        "models.FulfillmentProvider", related_name="regions", through="region_fulfillment_providers",
        forward_key="provider_id", backward_key="region_id",
    )

    class Meta:
        table = "region"


class Country(Model):
    # ISO 3166 country; codes are lower-case, `name` upper-case, as Medusa stores them.

    id = fields.IntField(primary_key=True)
    iso_2 = fields.CharField(max_length=2, unique=True)
    iso_3 = fields.CharField(max_length=3)
    num_code = fields.IntField()
    name = fields.CharField(max_length=100)
    display_name = fields.CharField(max_length=100)
    region = fields.ForeignKeyField(
        "models.Region", related_name="countries", null=True, on_delete=fields.SET_NULL
    )

    class Meta:
        table = "country"


class TaxRate(Entity):
    ID_PREFIX = "txr"

    rate = fields.FloatField(null=True)
    code = fields.CharField(max_length=100, null=True)
    name = fields.CharField(max_length=255)
    region = fields.ForeignKeyField("models.Region", related_name="tax_rates", on_delete=fields.CASCADE)
    products = fields.ManyToManyField(
        "models.Product", related_name="tax_rates", through="product_tax_rate",
        forward_key="product_id", backward_key="rate_id",
    )
    product_types = fields.ManyToManyField(
        "models.ProductType", related_name="tax_rates", through="product_type_tax_rate",
        forward_key="product_type_id", backward_key="rate_id",
    )
    shipping_options = fields.ManyToManyField(
        "models.ShippingOption", related_name="tax_rates", through="shipping_tax_rate",
        forward_key="shipping_option_id", backward_key="rate_id",
    )

    class Meta:
        table = "tax_rate"

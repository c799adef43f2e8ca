"""Publishable API keys: the storefront's key, which scopes product reads and carts to the key's
sales channels. The key's id is the key itself (as in Medusa v1): it is public by design."""

from tortoise import fields

from models.base import Entity

__all__ = ["PublishableApiKey"]


class PublishableApiKey(Entity):
    ID_PREFIX = "pk"

    title = fields.CharField(max_length=255)
    created_by = fields.CharField(max_length=64, null=True)  # a user id, kept after the user goes
    revoked_by = fields.CharField(max_length=64, null=True)
    revoked_at = fields.DatetimeField(null=True)
    sales_channels = fields.ManyToManyField(
        "models.SalesChannel", related_name="publishable_api_keys", through="publishable_api_key_sales_channel",
        forward_key="sales_channel_id", backward_key="publishable_key_id",
    )

    class Meta:
        table = "publishable_api_key"

"""What leaves the warehouse for an order (and later for a swap or claim): a fulfillment of some
of its lines, through a fulfillment provider, and the tracking links its shipment carries. A
fulfillment has no status column: it is created, then shipped
(`shipped_at`) or canceled (`canceled_at`)."""

from tortoise import fields
from tortoise.models import Model

from models.base import Entity, SoftDeletable
from models.ids import new_id

__all__ = ["Fulfillment", "FulfillmentItem", "TrackingLink"]


class Fulfillment(Entity):
    ID_PREFIX = "ful"

    order_id = fields.CharField(max_length=64, null=True)
    swap_id = fields.CharField(max_length=64, null=True)
    claim_order_id = fields.CharField(max_length=64, null=True)
    provider_id = fields.CharField(max_length=100)
    location_id = fields.CharField(max_length=64, null=True)
    no_notification = fields.BooleanField(null=True)
    tracking_numbers = fields.JSONField(default=list)  # Medusa's deprecated column, kept for its clients
    data = fields.JSONField(default=dict)  # what the provider answered
    shipped_at = fields.DatetimeField(null=True)
    canceled_at = fields.DatetimeField(null=True)
    idempotency_key = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "fulfillment"
        indexes = (("order_id",),)


class FulfillmentItem(Model):
    """How many units of one line a fulfillment holds (Medusa's key: fulfillment and item)."""

    id = fields.CharField(primary_key=True, max_length=64)
    fulfillment = fields.ForeignKeyField("models.Fulfillment", related_name="items", on_delete=fields.CASCADE)
    item_id = fields.CharField(max_length=64)
    quantity = fields.IntField()

    class Meta:
        table = "fulfillment_item"
        unique_together = (("fulfillment_id", "item_id"),)

    def __init__(self, **kwargs):
        if not kwargs.get("id"):
            kwargs["id"] = new_id("fuli")
        super().__init__(**kwargs)


class TrackingLink(SoftDeletable):
    ID_PREFIX = "tlink"

    fulfillment = fields.ForeignKeyField("models.Fulfillment", related_name="tracking_links", on_delete=fields.CASCADE)
    tracking_number = fields.CharField(max_length=255)
    url = fields.CharField(max_length=2048, null=True)
    idempotency_key = fields.CharField(max_length=255, null=True)

    class Meta:
        table = "tracking_link"

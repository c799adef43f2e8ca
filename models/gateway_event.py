"""Events a payment gateway sent to its webhook (Stripe's `POST /stripe/hooks`), kept by the
gateway's own event id: a delivery repeated by the gateway is recognised and handled once."""

from tortoise import fields
from tortoise.models import Model

__all__ = ["GatewayEvent"]


class GatewayEvent(Model):
    id = fields.CharField(primary_key=True, max_length=255)  # the gateway's event id (evt_...)
    provider_id = fields.CharField(max_length=64)
    type = fields.CharField(max_length=100)
    data = fields.JSONField()  # the event as the gateway sent it
    received_at = fields.DatetimeField(auto_now_add=True)
    handled_at = fields.DatetimeField(null=True)
    outcome = fields.TextField(null=True)  # what handling it did, for an operator

    class Meta:
        table = "gateway_event"

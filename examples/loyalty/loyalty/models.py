"""The plugin's tables (its own Tortoise app, `loyalty`). No foreign key reaches the core's tables:
customers, orders and refunds are named by id, so a shop that turns the plugin off keeps these
tables as they are and the core's migrations never meet them."""

from __future__ import annotations

from tortoise import fields
from tortoise.models import Model

__all__ = ["LoyaltyAccount", "LoyaltyEntry"]


class LoyaltyAccount(Model):
    """One customer's points. `balance` changes only by conditional UPDATE (loyalty/points.py) and
    never goes below zero."""

    customer_id = fields.CharField(primary_key=True, max_length=64)
    balance = fields.BigIntField(default=0)
    created_at = fields.DatetimeField(auto_now_add=True)
    updated_at = fields.DatetimeField(auto_now=True)

    class Meta:
        table = "loyalty_account"


class LoyaltyEntry(Model):
    """A line of the ledger: points earned (+) or taken (-), and why. `key` is unique, one per
    thing that moves points ("order:<id>", "refund:<id>", "expiry:<entry id>", "adjust:<uuid>"),
    so a subscriber or job run again after a failure writes nothing twice."""

    id = fields.BigIntField(primary_key=True)
    key = fields.CharField(max_length=140, unique=True)
    customer_id = fields.CharField(max_length=64)
    points = fields.BigIntField()
    amount = fields.BigIntField(null=True)  # minor units the points were counted from (an order's total, a refund)
    reason = fields.CharField(max_length=255)
    order_id = fields.CharField(max_length=64, null=True)
    refund_id = fields.CharField(max_length=64, null=True)
    created_at = fields.DatetimeField(auto_now_add=True)
    expires_at = fields.DatetimeField(null=True)  # earned points only
    expired = fields.BooleanField(default=False)

    class Meta:
        table = "loyalty_entry"
        indexes = (("customer_id", "created_at"), ("expired", "expires_at"))

"""Customers, their addresses and the groups they belong to."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["Customer", "Address", "CustomerGroup"]


class Address(SoftDeletable):
    ID_PREFIX = "addr"

    customer = fields.ForeignKeyField(
        "models.Customer", related_name="shipping_addresses", null=True, on_delete=fields.CASCADE
    )
    company = fields.CharField(max_length=255, null=True)
    first_name = fields.CharField(max_length=255, null=True)
    last_name = fields.CharField(max_length=255, null=True)
    address_1 = fields.CharField(max_length=255, null=True)
    address_2 = fields.CharField(max_length=255, null=True)
    city = fields.CharField(max_length=255, null=True)
    country_code = fields.CharField(max_length=2, null=True)
    province = fields.CharField(max_length=255, null=True)
    postal_code = fields.CharField(max_length=64, null=True)
    phone = fields.CharField(max_length=64, null=True)

    class Meta:
        table = "address"


class Customer(SoftDeletable):
    ID_PREFIX = "cus"

    email = fields.CharField(max_length=255)  # lower-cased; unique per has_account among live rows
    first_name = fields.CharField(max_length=255, null=True)
    last_name = fields.CharField(max_length=255, null=True)
    # A plain column, not a foreign key: Address already points at Customer, and Tortoise's
    # migrations drop one side of a foreign-key cycle without a word.
    billing_address_id = fields.CharField(max_length=64, null=True)
    password_hash = fields.CharField(max_length=255, null=True)
    phone = fields.CharField(max_length=64, null=True)
    has_account = fields.BooleanField(default=False)
    groups = fields.ManyToManyField(
        "models.CustomerGroup", related_name="customers", through="customer_group_customers",
        forward_key="customer_group_id", backward_key="customer_id",
    )

    class Meta:
        table = "customer"


class CustomerGroup(SoftDeletable):
    ID_PREFIX = "cgrp"

    name = fields.CharField(max_length=255)  # unique among live groups (migration index)

    class Meta:
        table = "customer_group"

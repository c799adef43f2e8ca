"""The shopper's own account (`/store/customers`): the account as its owner sees it, its
changes, and the payment methods saved for it. Sign-up, which also offers the email's guest
orders, is the orders area's (services/orders/sign_up.py).

Every function takes the id of the signed-in customer, never one from the request body, so a
customer can only ever read or change their own account.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from models import Cart, Customer, Order, PaymentProvider
from services.core import one_time_tokens
from services.customers.addresses import set_billing_address
from services.customers.customers import KEEP, get_customer, update_customer
from services.customers.password_reset import RESET_TOKEN
from services.core.db import atomic
from services.core.passwords import hash_password_async
from services.payments import get_provider, is_registered

__all__ = [
    "ACCOUNT_RELATIONS", "AccountChanges", "get_account", "update_account", "saved_payment_methods", "KEEP",
]

# What the store shows with the account (Medusa's defaultStoreCustomersRelations).
ACCOUNT_RELATIONS = ("shipping_addresses", "billing_address")


@dataclass
class AccountChanges:
    """What the owner changes; KEEP (or None for email, password, metadata) leaves it alone."""

    first_name: Any = KEEP
    last_name: Any = KEEP
    phone: Any = KEEP
    email: str | None = None
    password: str | None = None
    metadata: dict | None = None
    billing_address: Any = KEEP  # fields (dict), an address id, or None to unset


async def get_account(customer_id: str) -> Customer:
    return await get_customer(customer_id, ACCOUNT_RELATIONS)


async def update_account(customer_id: str, changes: AccountChanges) -> Customer:
    """All changes in one transaction. A new password also spends outstanding reset tokens.
    The email of an account cannot change (Medusa's rule, services/customers/customers.py)."""
    password_hash = await hash_password_async(changes.password) if changes.password else None
    async with atomic():
        await update_customer(
            customer_id, email=changes.email, first_name=changes.first_name, last_name=changes.last_name,
            phone=changes.phone, metadata=changes.metadata,
        )
        customer = await Customer.get(id=customer_id)
        if password_hash:
            customer.password_hash = password_hash
            await customer.save(update_fields=["password_hash", "updated_at"])
            await one_time_tokens.revoke(RESET_TOKEN, customer_id)
        if changes.billing_address is not KEEP:
            await set_billing_address(customer, changes.billing_address)
    return await get_account(customer_id)


async def saved_payment_methods(customer_id: str) -> list[dict]:
    """`[{provider_id, data}]` from every payment provider of the regions the customer has
    shopped in (carts and orders); the built-in providers keep none."""
    region_ids = set(await Cart.filter(customer_id=customer_id).values_list("region_id", flat=True))
    region_ids |= set(await Order.filter(customer_id=customer_id).values_list("region_id", flat=True))
    if not region_ids:
        return []
    provider_ids = await PaymentProvider.filter(regions__id__in=region_ids, is_installed=True).distinct().order_by(
        "id"
    ).values_list("id", flat=True)
    methods: list[dict] = []
    for provider_id in provider_ids:
        if is_registered(provider_id):
            for data in await get_provider(provider_id).saved_methods(customer_id):
                methods.append({"provider_id": provider_id, "data": data})
    return methods

"""A shopper's sign-up (`POST /store/customers`): the account (services/customers/), then the
guest orders placed with its email offered to it (services/orders/claims.py). It sits with the
orders because it reaches both areas: customers, below the orders, knows nothing of them."""

from __future__ import annotations

import logging

from models import Customer
from services.customers.accounts import get_account
from services.customers.customers import create_customer
from services.orders.claims import offer_guest_orders

__all__ = ["register_customer"]

log = logging.getLogger("commerce.customers")


async def register_customer(
    *, email: str, password: str, first_name: str | None = None, last_name: str | None = None,
    phone: str | None = None,
) -> Customer:
    """A new account (422 when the email has one already). An email that so far only placed
    guest orders gets its account too, and a message to that email offering those orders."""
    customer = await create_customer(
        email=email, password=password, first_name=first_name, last_name=last_name, phone=phone,
    )
    try:
        await offer_guest_orders(customer)
    except Exception:  # a courtesy: losing it must not fail a sign-up that already happened
        log.exception("could not offer guest orders to %s", customer.id)
    return await get_account(customer.id)

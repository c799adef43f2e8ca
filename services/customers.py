"""Customers: sign-in and look-ups (accounts, addresses and orders grow here)."""

from __future__ import annotations

from models import Customer
from services.errors import NotFound, Unauthorized
from services.listing import find_one
from services.passwords import dummy_hash, verify_password_async
from services.tokens import STORE_JWT_TTL, issue_jwt

__all__ = [
    "authenticate_customer", "account_exists", "get_customer", "issue_store_jwt", "CUSTOMER_RELATIONS",
]

# What the store's sign-in and current-customer routes show with a customer.
CUSTOMER_RELATIONS = ("shipping_addresses",)


async def authenticate_customer(email: str, password: str) -> Customer:
    """The registered customer with that email and password; the same Unauthorized otherwise."""
    customer = await Customer.get_or_none(
        email=(email or "").strip().lower(), has_account=True, deleted_at=None
    )
    ok = await verify_password_async(password, customer.password_hash if customer else dummy_hash())
    if customer is None or not ok:
        raise Unauthorized("Unauthorized")
    return customer


async def account_exists(email: str) -> bool:
    return await Customer.filter(
        email=(email or "").strip().lower(), has_account=True, deleted_at=None
    ).exists()


async def get_customer(customer_id: str, relations: tuple[str, ...] = ()) -> Customer:
    customer = await find_one(Customer.filter(id=customer_id, deleted_at=None), relations)
    if customer is None:
        raise NotFound(f"Customer with id: {customer_id} was not found")
    return customer


def issue_store_jwt(secret: str, customer: Customer) -> str:
    return issue_jwt(secret, {"customer_id": customer.id, "domain": "store"}, STORE_JWT_TTL)

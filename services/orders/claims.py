"""Claiming orders: a signed-in customer asks for orders placed without an account; whoever reads
the orders' email confirms with the token sent there, and the orders move to that customer.

Medusa v1 lets any order be claimed and signs a JWT with the shop's secret (a bad one is a 500).
Here only guest orders (of a customer without an account) can be claimed, so nobody can take
orders from another account; the token is random, stored as its hash, spent once, and expires
after 15 minutes. The request answers the same whatever the ids are: it tells nothing about
other people's orders.
"""

from __future__ import annotations

from collections import defaultdict

from tortoise.expressions import Subquery

from models import Customer, Order
from services.core import one_time_tokens
from services.core.db import atomic
from services.core.errors import NotFound, Unauthorized
from services.core.ids import fitting
from services.events.bus import emit

__all__ = [
    "request_order_claim", "offer_guest_orders", "confirm_order_claim", "INVALID_TOKEN", "SIGN_IN_FIRST", "MAX_ORDERS",
    "CLAIM_REQUESTED", "CLAIM_TOKEN",
]

# Medusa v1's event for a claim asked for; the notifications hear it and send the token, made when
# the message leaves (Medusa puts the token in the event: here it never is, webhooks hear events).
CLAIM_REQUESTED = "order-update-token.created"
CLAIM_TOKEN = "order_claim"  # OneTimeToken.kind

INVALID_TOKEN = "Invalid or expired order claim token"
SIGN_IN_FIRST = "Sign in to the account that asked for these orders, then confirm again"
MAX_ORDERS = 100  # order ids in one request


async def request_order_claim(customer_id: str, order_ids: list[str]) -> int:
    """Send one message per order email for the guest orders among `order_ids` (unknown ids,
    and orders of any account, are passed over in silence); the number of messages."""
    customer = await Customer.get_or_none(id=customer_id, deleted_at=None)
    if customer is None or not customer.has_account:
        raise Unauthorized("Customer does not have an account")
    ids = fitting(Order, order_ids)
    orders = await _guest_orders().filter(id__in=ids) if ids else []
    return await _ask(customer, orders)


async def offer_guest_orders(customer: Customer) -> int:
    """After sign-up: offer the new account the guest orders placed with its email, by a message
    to that email. Signing up proves nothing about the address, and reading the mail proves
    nothing about who signed up (anyone can sign up with someone else's email): so this token
    works only for a request signed in as that account."""
    return await _ask(customer, await _guest_orders().filter(email=customer.email), signed_in_only=True)


def _guest_orders():
    return Order.filter(customer__has_account=False).order_by("display_id")


async def _ask(customer: Customer, orders: list[Order], *, signed_in_only: bool = False) -> int:
    by_email: dict[str, list[Order]] = defaultdict(list)
    for order in orders:
        by_email[order.email].append(order)
    async with atomic():
        for email, group in by_email.items():
            await emit(
                CLAIM_REQUESTED, old_email=email, new_customer_id=customer.id, orders=[o.id for o in group],
                display_ids=[o.display_id for o in group], account_email=customer.email,
                signed_in_only=signed_in_only,
            )
    return len(by_email)


async def confirm_order_claim(token: str, signed_in_as: str | None = None) -> int:
    """Move the token's orders to the customer who asked for them; the number moved. Orders that
    meanwhile went to an account or changed email stay where they are. `signed_in_as`: the
    customer of the request, needed by the tokens offered at sign-up."""
    row = await one_time_tokens.find(CLAIM_TOKEN, token)
    if row is None:
        raise Unauthorized(INVALID_TOKEN)
    if row.data.get("signed_in_only") and signed_in_as != row.customer_id:
        raise Unauthorized(SIGN_IN_FIRST)  # the token stays usable for its account
    async with atomic():
        if not await one_time_tokens.use(row):
            raise Unauthorized(INVALID_TOKEN)
        claimer = await Customer.get_or_none(id=row.customer_id, has_account=True, deleted_at=None)
        if claimer is None:
            raise NotFound(f"Customer with id: {row.customer_id} was not found")
        # One statement, guarded by "still a guest's": of two claims racing for an order, one wins.
        guests = Subquery(Customer.filter(has_account=False).values("id"))
        return await Order.filter(
            id__in=row.data.get("orders") or [], email=row.email, customer_id__in=guests,
        ).update(customer_id=claimer.id, email=claimer.email)

"""Password reset by a token sent to the account's email.

Medusa v1 signs a JWT with the customer's password hash, so a leaked database forges tokens and
a bad signature is a 500. Here the token is random, stored as its hash, spent once, and expires
after 15 minutes; a bad, used or expired token is the same 401, and the password stays.
"""

from __future__ import annotations

from models import Customer
from services.core import one_time_tokens
from services.core.db import atomic
from services.core.errors import Unauthorized
from services.core.passwords import hash_password_async
from services.events import names as ev
from services.events.bus import emit
from services.users.users import normalize_email

__all__ = ["request_password_reset", "reset_password", "INVALID_TOKEN", "RESET_TOKEN"]

INVALID_TOKEN = "Invalid or expired password reset token"
RESET_TOKEN = "password_reset"  # OneTimeToken.kind, issued when the message leaves


async def request_password_reset(email: str) -> None:
    """Send a reset token to the account with this email, if there is one: Medusa's
    `customer.password_reset`, which the notifications hear (the token is made when the message
    leaves, never put in the event). The caller answers the same either way, so the request
    tells nobody whether an account exists."""
    customer = await Customer.get_or_none(email=normalize_email(email), has_account=True, deleted_at=None)
    if customer is None:
        return
    await emit(ev.CUSTOMER_PASSWORD_RESET, id=customer.id, email=customer.email, first_name=customer.first_name,
               last_name=customer.last_name)


async def reset_password(email: str, token: str, password: str) -> Customer:
    """Set a new password with a live token issued for this email's account; spends the token
    and every other reset token of the account."""
    email = normalize_email(email)
    # Checked before hashing, so a stream of bad tokens costs no scrypt work.
    if await _account_for(email, token) is None:
        raise Unauthorized(INVALID_TOKEN)
    password_hash = await hash_password_async(password)
    async with atomic():
        found = await _account_for(email, token)
        if found is None or not await one_time_tokens.use(found[1]):
            raise Unauthorized(INVALID_TOKEN)
        customer = found[0]
        customer.password_hash = password_hash
        await customer.save(update_fields=["password_hash", "updated_at"])
        await one_time_tokens.revoke(RESET_TOKEN, customer.id)
    return customer


async def _account_for(email: str, token: str):
    row = await one_time_tokens.find(RESET_TOKEN, token)
    if row is None or row.customer_id is None:
        return None
    customer = await Customer.get_or_none(id=row.customer_id, email=email, has_account=True, deleted_at=None)
    return (customer, row) if customer is not None else None

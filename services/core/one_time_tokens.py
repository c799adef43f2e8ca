"""Single-use, expiring secrets (password reset, order claim).

Only the SHA-256 of a token is stored: a copy of the database lets nobody reset a password.
A token is 256 random bits, so an unsalted hash is enough, and looking it up by its hash leaks
nothing useful through timing. Using a token marks it used in the caller's transaction with a
conditional update, so two requests racing with the same token cannot both succeed.
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from models import OneTimeToken
from services.core import clock
from services.core.tokens import digest, new_secret

__all__ = ["TOKEN_TTL", "issue", "find", "use", "revoke"]

TOKEN_TTL = 15 * 60  # seconds, as Medusa v1's reset and claim tokens
_HASH_LENGTH = 64


async def issue(
    kind: str, *, customer_id: str | None, email: str | None, data: dict | None = None, ttl: int = TOKEN_TTL,
    token: str | None = None,
) -> tuple[str, OneTimeToken]:
    """A new token (its only clear copy, for the message) and its row. `token`: the caller's own
    value, when the token must carry something a client reads (a signed JWT holding 256 random
    bits of its own); random otherwise."""
    if customer_id:  # tidy up this customer's spent tokens of the kind as we go
        await OneTimeToken.filter(kind=kind, customer_id=customer_id, expires_at__lt=clock.now()).delete()
    token = token or new_secret(32)
    row = await OneTimeToken.create(
        kind=kind, token_hash=digest(token), customer_id=customer_id, email=email, data=data or {},
        expires_at=clock.now() + timedelta(seconds=ttl),
    )
    return token, row


async def find(kind: str, token: str) -> OneTimeToken | None:
    """The live (unused, unexpired) token of that kind, or None."""
    hashed = digest(token)
    row = await OneTimeToken.get_or_none(token_hash=hashed, kind=kind, used_at=None, expires_at__gt=clock.now())
    if row is None or len(row.token_hash) != _HASH_LENGTH or not hmac.compare_digest(row.token_hash, hashed):
        return None
    return row


async def use(row: OneTimeToken) -> bool:
    """Spend the token; False when it was spent (or expired) in the meantime."""
    now = clock.now()
    spent = await OneTimeToken.filter(id=row.id, used_at=None, expires_at__gt=now).update(used_at=now)
    return spent == 1


async def revoke(kind: str, customer_id: str | None = None, *, email: str | None = None) -> int:
    """Spend every live token of the kind for the customer, or (tokens of no customer, a back-office
    user's) for the email: after a password change, say."""
    if not customer_id and not email:
        raise ValueError("revoke needs a customer_id or an email")
    now = clock.now()
    owner = {"customer_id": customer_id} if customer_id else {"customer_id": None, "email": email}
    return await OneTimeToken.filter(kind=kind, used_at=None, expires_at__gt=now, **owner).update(used_at=now)

"""A back-office user's password reset by a token sent to their email.

Medusa v1 signs the token with the user's password hash, so a leaked database forges tokens and
an expired or badly signed one is a 500. Here the token is a JWT signed with the server's secret
(the dashboard reads its `email`) that also holds 256 random bits; only its hash is stored, it
is spent once and lasts 15 minutes. A bad, used or expired token is the same 401, and the
password stays. A new password ends every session and JWT signed in before.
"""

from __future__ import annotations

from models import OneTimeToken, User
from services.core import one_time_tokens
from services.core.db import atomic
from services.core.errors import Unauthorized
from services.events import names as ev
from services.events.bus import emit
from services.users.team_tokens import reset_claims
from services.users.users import forget_cached_user, normalize_email, set_user_password

__all__ = ["request_password_reset", "reset_password", "INVALID_TOKEN", "USER_RESET_TOKEN"]

INVALID_TOKEN = "Invalid or expired password reset token"
USER_RESET_TOKEN = "user_password_reset"  # OneTimeToken.kind, issued when the message leaves


async def request_password_reset(email: str) -> None:
    """Send a reset token to the user with this email, if there is one: Medusa's
    `user.password_reset`, which the notifications hear (the token is made when the message
    leaves, never put in the event). The caller answers the same either way, so the request
    tells nobody whether a user exists."""
    user = await User.get_or_none(email=normalize_email(email), deleted_at=None)
    if user is None:
        return
    await emit(ev.USER_PASSWORD_RESET, id=user.id, email=user.email, first_name=user.first_name,
               last_name=user.last_name)


async def reset_password(secret: str, token: str, password: str, email: str | None = None) -> User:
    """Set a new password with a live token; `email`, when given, must be the token's. Spends
    the token and every other reset token of the user."""
    # Checked before hashing (set_user_password), so a stream of bad tokens costs no scrypt work.
    if await _row_for(secret, token, email) is None:
        raise Unauthorized(INVALID_TOKEN)
    async with atomic():
        row = await _row_for(secret, token, email)
        if row is None or not await one_time_tokens.use(row):
            raise Unauthorized(INVALID_TOKEN)
        if not await User.filter(id=row.data.get("user_id"), email=row.email, deleted_at=None).exists():
            raise Unauthorized(INVALID_TOKEN)
        user = await set_user_password(row.email, password)
        await one_time_tokens.revoke(USER_RESET_TOKEN, email=row.email)
    # Again after commit: a request between set_user_password's forget and the commit could
    # have cached the user with the old password.
    forget_cached_user(user.id)
    return user


async def _row_for(secret: str, token: str, email: str | None) -> OneTimeToken | None:
    claims = reset_claims(secret, token)
    if claims is None or (email is not None and normalize_email(email) != claims["email"]):
        return None
    row = await one_time_tokens.find(USER_RESET_TOKEN, token)
    return row if row is not None and row.email == claims["email"] else None

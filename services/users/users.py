"""Back-office users: creation, sign-in and API tokens."""

from __future__ import annotations

import re
import weakref

from tortoise.expressions import Q

from models import User
from models.user import USER_ROLES
from services.core.db import atomic
from services.core.errors import Duplicate, InvalidData, NotFound, Unauthorized
from services.core.passwords import dummy_hash, hash_password_async, strengthen_hash, verify_password_async
from services.core.tokens import ADMIN_JWT_TTL, digest, issue_jwt, new_secret, password_stamp
from services.events import names as ev
from services.events.bus import emit

__all__ = [
    "create_user", "authenticate_user", "issue_admin_jwt", "issue_api_token", "get_user",
    "user_for_api_token", "normalize_email", "set_user_password", "watch_password_changes", "forget_cached_user",
]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
# This process's caches of users (app/web/auth.py), told of a password change at once; other
# processes' caches forget on their own within AUTH_CACHE_SECONDS.
_user_caches: weakref.WeakSet = weakref.WeakSet()


def normalize_email(email: str) -> str:
    email = (email or "").strip().lower()
    if not _EMAIL.match(email):
        raise InvalidData("The email is not valid")
    return email


async def create_user(
    email: str, password: str | None = None, *, role: str = "member", first_name: str | None = None,
    last_name: str | None = None, api_token: str | None = None, metadata: dict | None = None,
    id: str | None = None,
) -> User:
    email = normalize_email(email)
    if role not in USER_ROLES:
        raise InvalidData(f"role must be one of the following values: {', '.join(USER_ROLES)}")
    async with atomic():
        if await User.filter(email=email, deleted_at=None).exists():
            raise Duplicate("A user with the same email already exists.")
        user = await User.create(
            id=id, email=email, role=role, first_name=first_name, last_name=last_name,
            metadata=metadata, api_token=api_token,
            password_hash=await hash_password_async(password) if password else None,
        )
        await emit(ev.USER_CREATED, id=user.id)
        return user


async def get_user(user_id: str) -> User:
    user = await User.get_or_none(id=user_id, deleted_at=None)
    if user is None:
        raise NotFound(f"User with id: {user_id} was not found")
    return user


async def authenticate_user(email: str, password: str) -> User:
    """The live user with that email and password; the same Unauthorized for any mismatch."""
    user = await User.get_or_none(email=(email or "").strip().lower(), deleted_at=None)
    # Verify against a dummy hash when the user is unknown so timing does not reveal accounts.
    ok = await verify_password_async(password, user.password_hash if user else dummy_hash())
    if user is None or not ok:
        raise Unauthorized("Unauthorized")
    await strengthen_hash(User, user, password)  # a hash moved from Medusa v1 is replaced by ours
    return user


def issue_admin_jwt(secret: str, user: User) -> str:
    claims = {"user_id": user.id, "domain": "admin", "stamp": password_stamp(secret, user.password_hash)}
    return issue_jwt(secret, claims, ADMIN_JWT_TTL)


def watch_password_changes(cache) -> None:
    """`cache.forget_user(user_id)` is called after every password change made in this process,
    and after a user is changed or deleted (services/users/team.py)."""
    _user_caches.add(cache)


def forget_cached_user(user_id: str) -> None:
    """This process's caches drop the user at once (others within AUTH_CACHE_SECONDS)."""
    for cache in list(_user_caches):
        cache.forget_user(user_id)


async def set_user_password(email: str, password: str) -> User:
    """A new password for the user. Every session and JWT signed in before stops working (their
    password stamp no longer matches). The API token stays: it is a credential of its own, issued
    and replaced apart (`commerce user token`), as in Medusa v1."""
    if not password:
        raise InvalidData("password should not be empty")
    password_hash = await hash_password_async(password)
    async with atomic():
        user = await User.select_for_update().get_or_none(email=email.strip().lower(), deleted_at=None)
        if user is None:
            raise NotFound(f"User with email {email} was not found")
        user.password_hash = password_hash
        await user.save(update_fields=["password_hash", "updated_at"])
    forget_cached_user(user.id)
    return user


async def issue_api_token(email: str) -> str:
    """A new API token for the user; only its digest is stored, the token is shown once."""
    token = new_secret(32)
    async with atomic():
        user = await User.select_for_update().get_or_none(email=email.strip().lower(), deleted_at=None)
        if user is None:
            raise NotFound(f"User with email {email} was not found")
        user.api_token_hash = digest(token)
        user.api_token = None
        await user.save(update_fields=["api_token_hash", "api_token", "updated_at"])
    return token


async def user_for_api_token(token: str) -> User | None:
    """The live user holding this API token. A token written in clear into `api_token` (Medusa's
    documented way) is accepted once and moved to its digest, so no usable secret stays at rest."""
    if not token or len(token) > 512:
        return None
    hashed = digest(token)
    user = await User.get_or_none(Q(api_token_hash=hashed) | Q(api_token=token), deleted_at=None)
    if user is None:
        return None
    if user.api_token_hash != hashed:
        user.api_token_hash, user.api_token = hashed, None
        await User.filter(id=user.id).update(api_token_hash=hashed, api_token=None)
    return user



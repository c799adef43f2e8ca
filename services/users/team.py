"""The team: the back office's users as the admin manages them.

Unlike Medusa v1, which lets any user do anything, managing the team is an admin's job: only an
admin adds, deletes or changes another user, or changes a role; every user may change their own
names, metadata and API token. Nobody deletes themselves, and the store always keeps an admin.
A deleted user's API token stops working at once, and their sessions and JWTs too (in another
web process within AUTH_CACHE_SECONDS)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tortoise.exceptions import IntegrityError
from tortoise.expressions import Q

from models import User
from models.user import USER_ROLES
from services.core.clock import now
from services.core.db import atomic
from services.core.errors import Duplicate, InvalidData, NotAllowed
from services.core.listing import FindConfig, date_filters, find_page
from services.core.metadata import merge_metadata
from services.core.tokens import digest
from services.users.analytics_configs import delete_config
from services.users.roles import require_admin
from services.users.users import create_user, forget_cached_user, get_user
from services.events import names as ev
from services.events.bus import emit

__all__ = ["UserFilter", "list_users", "add_user", "update_user", "delete_user", "MIN_API_TOKEN_LENGTH", "KEEP"]

KEEP: Any = object()  # an update argument left as KEEP leaves its column as it is
# A token set through the API is a credential like a password: too short a one is guessed.
MIN_API_TOKEN_LENGTH = 16
_DUPLICATE = "A user with the same email already exists."
_TOKEN_TAKEN = "The API token is already in use"


@dataclass
class UserFilter:
    q: str | None = None  # case-insensitive, over email, first_name and last_name
    id: list[str] = field(default_factory=list)
    email: str | None = None  # exact, any case
    first_name: str | None = None
    last_name: str | None = None
    role: str | None = None
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None
    deleted_at: dict[str, datetime | None] | None = None  # live users only: any bound finds none


async def list_users(f: UserFilter, config: FindConfig) -> tuple[list[User], int]:
    qs = User.filter(deleted_at=None, **date_filters(
        created_at=f.created_at, updated_at=f.updated_at, deleted_at=f.deleted_at,
    ))
    if f.q:
        qs = qs.filter(Q(email__icontains=f.q) | Q(first_name__icontains=f.q) | Q(last_name__icontains=f.q))
    if f.id:
        qs = qs.filter(id__in=f.id)
    if f.email is not None:
        qs = qs.filter(email=f.email.strip().lower())
    for column in ("first_name", "last_name", "role"):
        if getattr(f, column) is not None:
            qs = qs.filter(**{column: getattr(f, column)})
    return await find_page(qs, config)


async def add_user(
    actor: User, *, email: str, password: str, first_name: str | None = None, last_name: str | None = None,
    role: str = "member",
) -> User:
    require_admin(actor, "add users")
    try:
        return await create_user(email, password, role=role, first_name=first_name, last_name=last_name)
    except IntegrityError:  # another request added the email between the check and the insert
        raise Duplicate(_DUPLICATE) from None


async def _lock(actor_id: str, user_id: str, *, admins: bool = False) -> tuple[User | None, User | None]:
    """The acting user and the target, live and locked (with every admin, when a role may change),
    in one statement in id order: two admins acting on each other at once take turns instead of
    deadlocking, and the second sees what the first did."""
    wanted = Q(id__in=sorted({actor_id, user_id}))
    rows = {u.id: u for u in await User.select_for_update().filter(
        wanted | Q(role="admin") if admins else wanted, deleted_at=None,
    ).order_by("id")}
    return rows.get(actor_id), rows.get(user_id)


async def update_user(
    actor: User, user_id: str, *, first_name: str | None = KEEP, last_name: str | None = KEEP,
    role: str = KEEP, api_token: str | None = KEEP, metadata: dict | None = None,
) -> User:
    """`api_token` sets the user's API token (only its digest is kept); null or "" removes it."""
    if role is not KEEP and role not in USER_ROLES:
        raise InvalidData(f"role must be one of the following values: {', '.join(USER_ROLES)}")
    if isinstance(api_token, str) and 0 < len(api_token) < MIN_API_TOKEN_LENGTH:
        raise InvalidData(f"api_token must be longer than or equal to {MIN_API_TOKEN_LENGTH} characters")
    try:
        async with atomic():
            me, user = await _lock(actor.id, user_id, admins=role is not KEEP)
            if me is None:
                raise NotAllowed("Your user no longer exists")
            if me.id != user_id:
                require_admin(me, "change another user")
            if user is None:
                await get_user(user_id)  # the NotFound
            if role is not KEEP and role != user.role:
                require_admin(me, "change a role")
                if user.role == "admin" and not await _another_admin(user.id):
                    raise NotAllowed("The store needs at least one admin: make another user admin first")
                user.role = role
            if first_name is not KEEP:
                user.first_name = first_name
            if last_name is not KEEP:
                user.last_name = last_name
            if api_token is not KEEP:
                user.api_token, user.api_token_hash = None, digest(api_token) if api_token else None
            user.metadata = merge_metadata(user.metadata, metadata)
            await user.save()
    except IntegrityError:  # the digest of a token another user holds
        raise Duplicate(_TOKEN_TAKEN) from None
    forget_cached_user(user.id)
    return user


async def _another_admin(user_id: str) -> bool:
    return await User.filter(role="admin", deleted_at=None).exclude(id=user_id).exists()


async def delete_user(actor: User, user_id: str) -> None:
    """Soft-delete the user and drop their API token; an unknown or deleted user is no error."""
    if actor.id == user_id:
        raise NotAllowed("You cannot delete your own user")
    async with atomic():
        me, user = await _lock(actor.id, user_id)
        require_admin(me, "delete users")
        if user is None:
            return
        await User.filter(id=user.id).update(deleted_at=now(), api_token=None, api_token_hash=None)
        await delete_config(user.id)  # as Medusa: the user's consent answer goes with them
        await emit(ev.USER_DELETED, id=user.id)
    forget_cached_user(user_id)

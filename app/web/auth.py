"""Who is calling. Admin: session `user_id`, `Authorization: Bearer` (a JWT from
/admin/auth/token, or an API token), or `x-medusa-access-token`. Store: session `customer_id`
or a Bearer JWT from /store/auth/token. Every /admin route but sign-in requires a user.

Each session and JWT carries the stamp of the password it was signed in with
(services/core/tokens.py `password_stamp`) and counts only while the stamp matches the account's
current password: a password change or reset ends every sign-in made before it."""

from __future__ import annotations

import time

from sanic import Request
from sanic.response import HTTPResponse

from app.web.sessions import COOKIE_NAME, load_session, start_session, update_session
from app.web.validation import Body, Email, NonEmptyStr
from models import Customer, User
from services.customers.customers import still_signed_in
from services.core.errors import NotFound, Unauthorized
from services.core.tokens import password_stamp, read_jwt, stamp_matches
from services.users.users import get_user, user_for_api_token, watch_password_changes

__all__ = [
    "admin_user", "require_admin", "has_admin_credentials", "customer_id", "require_customer",
    "has_customer_credentials", "PUBLIC_ADMIN_ROUTES", "Credentials", "RecentAdminUsers", "sign_in_user",
    "sign_out_user", "sign_in_customer", "sign_out_customer", "renew_customer_session",
]

# (method, path) pairs under /admin reachable without signing in.
PUBLIC_ADMIN_ROUTES = {
    ("POST", "/admin/auth"), ("POST", "/admin/auth/token"), ("POST", "/admin/invites/accept"),
    ("POST", "/admin/users/password-token"), ("POST", "/admin/users/reset-password"),
}


class Credentials(Body):
    """The body of every sign-in: `/admin/auth`, `/admin/auth/token`, `/store/auth`, `/store/auth/token`."""

    email: Email
    password: NonEmptyStr


# What a session holds per interface: who, and the stamp of the password they signed in with.
USER_KEYS, CUSTOMER_KEYS = ("user_id", "user_stamp"), ("customer_id", "customer_stamp")


async def _session_data(request: Request) -> dict:
    if not request.cookies.get(COOKIE_NAME):
        return {}
    return await load_session(request) or {}


def _stamp(request: Request, password_hash: str | None) -> str:
    return password_stamp(request.app.ctx.settings.jwt_secret, password_hash)


def _stamp_matches(request: Request, password_hash: str | None, stamp: object) -> bool:
    return stamp_matches(request.app.ctx.settings.jwt_secret, password_hash, stamp)


async def sign_in_user(request: Request, response: HTTPResponse, user: User) -> None:
    await start_session(request, response, user_id=user.id, user_stamp=_stamp(request, user.password_hash))


async def sign_out_user(request: Request, response: HTTPResponse) -> None:
    await update_session(request, response, *USER_KEYS)


async def sign_in_customer(request: Request, response: HTTPResponse, customer: Customer) -> None:
    stamp = _stamp(request, customer.password_hash)
    await start_session(request, response, customer_id=customer.id, customer_stamp=stamp)


async def sign_out_customer(request: Request, response: HTTPResponse) -> None:
    await update_session(request, response, *CUSTOMER_KEYS)


async def renew_customer_session(request: Request, response: HTTPResponse, customer: Customer) -> None:
    """After the signed-in customer set a new password: the session that did it gets a fresh id
    bound to the new password and keeps working. A JWT that did it ends like every other (the
    client signs in again: a token cannot be re-issued within Medusa's answer)."""
    if getattr(request.ctx, "customer_by_session", False):
        await sign_in_customer(request, response, customer)


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


class RecentAdminUsers:
    """Users looked up in the last few seconds: by verified admin JWT (which also skips the
    signature check) and by the user id a session holds. So a deleted user keeps access for at
    most `ttl` seconds more. The session itself is read every time and API tokens are not
    cached: signing out and replacing a token take effect at once."""

    def __init__(self, ttl: float, size: int = 4096):
        self.ttl, self.size = ttl, size
        self.clock = time.monotonic  # seconds; tests move it on instead of waiting
        self._entries: dict[str, tuple[float, User]] = {}
        watch_password_changes(self)  # a password changed in this process ends its cached sign-ins at once

    def forget_user(self, user_id: str) -> None:
        for key in [k for k, (_, user) in self._entries.items() if user.id == user_id]:
            del self._entries[key]

    def get(self, token: str) -> User | None:
        entry = self._entries.get(token)
        if entry is None:
            return None
        if entry[0] < self.clock():
            del self._entries[token]
            return None
        return entry[1]

    def put(self, token: str, user: User, expires_at: float) -> None:
        if self.ttl <= 0:
            return
        if len(self._entries) >= self.size:
            del self._entries[next(iter(self._entries))]  # the oldest
        lifetime = min(self.ttl, max(0.0, expires_at - time.time()))
        self._entries[token] = (self.clock() + lifetime, user)


def has_admin_credentials(request: Request) -> bool:
    return bool(
        request.cookies.get(COOKIE_NAME) or _bearer(request) or request.headers.get("x-medusa-access-token")
    )


def has_customer_credentials(request: Request) -> bool:
    """Whether the request could be a signed-in customer's (a session cookie or a bearer token)."""
    return bool(request.cookies.get(COOKIE_NAME) or _bearer(request))


async def _live_user(user_id: str | None) -> User | None:
    if not user_id:
        return None
    try:
        return await get_user(user_id)
    except NotFound:
        return None


async def admin_user(request: Request) -> User | None:
    """The signed-in back-office user, tried in Medusa v1's order; loaded once per request."""
    if hasattr(request.ctx, "user"):
        return request.ctx.user
    user = await _session_user(request)
    token = _bearer(request)
    if user is None and token:
        user = await _user_for_bearer(request, token)
    access_token = request.headers.get("x-medusa-access-token")
    if user is None and access_token:
        user = await user_for_api_token(access_token)
    request.ctx.user = user
    return user


async def _session_user(request: Request) -> User | None:
    session = await _session_data(request)
    user_id, stamp = (session.get(key) for key in USER_KEYS)
    if not user_id:
        return None
    recent: RecentAdminUsers = request.app.ctx.recent_admins
    key = f"user:{user_id}:{stamp}"  # remembered once the stamp matched, as a verified JWT is
    user = recent.get(key)
    if user is not None:
        return user
    user = await _live_user(user_id)
    if user is None or not _stamp_matches(request, user.password_hash, stamp):
        return None
    recent.put(key, user, time.time() + recent.ttl)
    return user


async def _user_for_bearer(request: Request, token: str) -> User | None:
    recent: RecentAdminUsers = request.app.ctx.recent_admins
    user = recent.get(token)
    if user is not None:
        return user
    claims = read_jwt(request.app.ctx.settings.jwt_secret, token) if token.count(".") == 2 else None
    if claims is None:
        return await user_for_api_token(token)
    user = await _live_user(claims.get("user_id")) if claims.get("domain") == "admin" else None
    if user is None or not _stamp_matches(request, user.password_hash, claims.get("stamp")):
        return None
    recent.put(token, user, claims["exp"])
    return user


async def require_admin(request: Request) -> User:
    user = await admin_user(request)
    if user is None:
        raise Unauthorized("Unauthorized")
    return user


async def customer_id(request: Request) -> str | None:
    """The signed-in customer's id, if any. A bad token counts as anonymous, as in Medusa v1; so
    does one signed in before the customer's latest password (one query checks that)."""
    if hasattr(request.ctx, "customer_id"):
        return request.ctx.customer_id
    secret = request.app.ctx.settings.jwt_secret
    session = await _session_data(request)
    found = await _standing_customer(secret, *(session.get(key) for key in CUSTOMER_KEYS))
    by_session = found is not None
    token = _bearer(request)
    if found is None and token:
        claims = read_jwt(secret, token)
        if claims and claims.get("domain") == "store":
            found = await _standing_customer(secret, claims.get("customer_id"), claims.get("stamp"))
    request.ctx.customer_id, request.ctx.customer_by_session = found, by_session
    return found


async def _standing_customer(secret: str, found: object, stamp: object) -> str | None:
    return found if isinstance(found, str) and found and await still_signed_in(secret, found, stamp) else None


async def require_customer(request: Request) -> str:
    found = await customer_id(request)
    if not found:
        raise Unauthorized("Unauthorized")
    return found

"""Who is calling. Admin: session `user_id`, `Authorization: Bearer` (a JWT from
/admin/auth/token, or an API token), or `x-medusa-access-token`. Store: session `customer_id`
or a Bearer JWT from /store/auth/token. Every /admin route but sign-in requires a user."""

from __future__ import annotations

import time

from sanic import Request

from app.sessions import COOKIE_NAME, load_session
from app.validation import Body, Email, NonEmptyStr
from models import User
from services.errors import NotFound, Unauthorized
from services.tokens import read_jwt
from services.users import get_user, user_for_api_token

__all__ = [
    "admin_user", "require_admin", "has_admin_credentials", "customer_id", "require_customer",
    "PUBLIC_ADMIN_ROUTES", "Credentials", "RecentAdminUsers",
]

# (method, path) pairs under /admin reachable without signing in.
PUBLIC_ADMIN_ROUTES = {("POST", "/admin/auth"), ("POST", "/admin/auth/token")}


class Credentials(Body):
    """The body of every sign-in: `/admin/auth`, `/admin/auth/token`, `/store/auth`, `/store/auth/token`."""

    email: Email
    password: NonEmptyStr


async def _session_value(request: Request, key: str) -> str | None:
    if not request.cookies.get(COOKIE_NAME):
        return None
    return (await load_session(request) or {}).get(key)


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
        self._entries: dict[str, tuple[float, User]] = {}

    def get(self, token: str) -> User | None:
        entry = self._entries.get(token)
        if entry is None:
            return None
        if entry[0] < time.monotonic():
            del self._entries[token]
            return None
        return entry[1]

    def put(self, token: str, user: User, expires_at: float) -> None:
        if self.ttl <= 0:
            return
        if len(self._entries) >= self.size:
            del self._entries[next(iter(self._entries))]  # the oldest
        lifetime = min(self.ttl, max(0.0, expires_at - time.time()))
        self._entries[token] = (time.monotonic() + lifetime, user)


def has_admin_credentials(request: Request) -> bool:
    return bool(
        request.cookies.get(COOKIE_NAME) or _bearer(request) or request.headers.get("x-medusa-access-token")
    )


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
    user_id = await _session_value(request, "user_id")
    if not user_id:
        return None
    recent: RecentAdminUsers = request.app.ctx.recent_admins
    key = f"user:{user_id}"
    user = recent.get(key)
    if user is None:
        user = await _live_user(user_id)
        if user is not None:
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
    if user is not None:
        recent.put(token, user, claims["exp"])
    return user


async def require_admin(request: Request) -> User:
    user = await admin_user(request)
    if user is None:
        raise Unauthorized("Unauthorized")
    return user


async def customer_id(request: Request) -> str | None:
    """The signed-in customer's id, if any. A bad token counts as anonymous, as in Medusa v1."""
    if hasattr(request.ctx, "customer_id"):
        return request.ctx.customer_id
    found = await _session_value(request, "customer_id")
    token = _bearer(request)
    if found is None and token:
        claims = read_jwt(request.app.ctx.settings.jwt_secret, token)
        if claims and claims.get("domain") == "store":
            found = claims.get("customer_id")
    request.ctx.customer_id = found
    return found


async def require_customer(request: Request) -> str:
    found = await customer_id(request)
    if not found:
        raise Unauthorized("Unauthorized")
    return found

"""Server-side sessions behind the `connect.sid` cookie.

The cookie holds `s:<id>.<signature>` (express-session's form, HMAC-SHA256 with COOKIE_SECRET);
the store keeps the data under the SHA-256 of the id, so a copy of the store signs nobody in.
A session exists only after a sign-in: anonymous requests never create or write one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Protocol
from urllib.parse import quote, unquote

import orjson
from sanic import Request
from sanic.response import HTTPResponse

from models import Session
from services.core.tokens import digest, new_secret

__all__ = [
    "SessionStore", "RedisSessionStore", "DatabaseSessionStore", "RecentSessions", "COOKIE_NAME", "load_session",
    "start_session", "end_session", "update_session",
]

COOKIE_NAME = "connect.sid"


class SessionStore(Protocol):
    async def get(self, key: str) -> dict | None: ...
    async def set(self, key: str, data: dict, ttl: int) -> None: ...
    async def delete(self, key: str) -> None: ...


class RedisSessionStore:
    def __init__(self, client, prefix: str = "commerce:sess:"):
        self.client, self.prefix = client, prefix

    async def get(self, key: str) -> dict | None:
        raw = await self.client.get(self.prefix + key)
        return orjson.loads(raw) if raw else None

    async def set(self, key: str, data: dict, ttl: int) -> None:
        await self.client.set(self.prefix + key, orjson.dumps(data), ex=ttl)

    async def delete(self, key: str) -> None:
        await self.client.delete(self.prefix + key)


class RecentSessions:
    """A store's sessions as read in the last `ttl` seconds, by key: an admin dashboard or a
    storefront sends its cookie many times a second, and each read would otherwise cost a
    round trip to Redis (or the database) on top of the request. What this process writes or
    deletes (sign-in, sign-out) takes effect here at once; another web process's sign-out is
    seen within `ttl`. A key that has no session is not remembered: a new sign-in elsewhere is
    seen at once."""

    def __init__(self, store: SessionStore, ttl: float, size: int = 4096):
        self.store, self.ttl, self.size = store, ttl, size
        self._entries: dict[str, tuple[float, dict]] = {}

    async def get(self, key: str) -> dict | None:
        entry = self._entries.get(key)
        if entry is not None and entry[0] > time.monotonic():
            return entry[1]
        data = await self.store.get(key)
        if data is None:
            self._entries.pop(key, None)
        else:
            self._remember(key, data)
        return data

    async def set(self, key: str, data: dict, ttl: int) -> None:
        await self.store.set(key, data, ttl)
        self._remember(key, data)

    async def delete(self, key: str) -> None:
        self._entries.pop(key, None)
        await self.store.delete(key)

    def _remember(self, key: str, data: dict) -> None:
        self._entries.pop(key, None)
        if len(self._entries) >= self.size:
            del self._entries[next(iter(self._entries))]  # the oldest
        self._entries[key] = (time.monotonic() + self.ttl, data)


class DatabaseSessionStore:
    async def get(self, key: str) -> dict | None:
        row = await Session.get_or_none(id=key)
        if row is None or row.expires_at <= datetime.now(timezone.utc):
            return None
        return row.data

    async def set(self, key: str, data: dict, ttl: int) -> None:
        expires = datetime.now(timezone.utc) + timedelta(seconds=ttl)
        await Session.update_or_create(id=key, defaults={"data": data, "expires_at": expires})

    async def delete(self, key: str) -> None:
        await Session.filter(id=key).delete()


# ---------------------------------------------------------------- cookie signing

def _sign(secret: str, sid: str) -> str:
    mac = hmac.new(secret.encode(), sid.encode(), hashlib.sha256).digest()
    return base64.b64encode(mac).decode().rstrip("=")


def _cookie_value(secret: str, sid: str) -> str:
    return quote(f"s:{sid}.{_sign(secret, sid)}", safe="")


@lru_cache(maxsize=4096)
def _session_key(secret: str, raw: str) -> tuple[str, str] | None:
    """The session id of a cookie value whose signature holds, and its store key; a cookie sent
    again is not verified and hashed again (the answer depends on nothing else)."""
    sid = _read_cookie(secret, raw)
    return (sid, digest(sid)) if sid else None


def _read_cookie(secret: str, raw: str | None) -> str | None:
    if not raw:
        return None
    value = unquote(raw)
    if not value.startswith("s:") or "." not in value:
        return None
    sid, _, signature = value[2:].rpartition(".")
    if not sid or not signature.isascii():  # compare_digest refuses non-ASCII text
        return None
    return sid if hmac.compare_digest(signature.encode(), _sign(secret, sid).encode()) else None


# ---------------------------------------------------------------- request helpers

async def load_session(request: Request) -> dict | None:
    """The request's session data (loaded once per request), or None."""
    if hasattr(request.ctx, "session"):
        return request.ctx.session
    raw = request.cookies.get(COOKIE_NAME)
    found = _session_key(request.app.ctx.settings.cookie_secret, raw) if raw else None
    data = await request.app.ctx.sessions.get(found[1]) if found else None
    request.ctx.session_id, request.ctx.session = (found[0] if data is not None else None), data
    return data


async def start_session(request: Request, response: HTTPResponse, **values) -> None:
    """Sign-in: a fresh session id (against fixation) carrying over what the old one held."""
    settings, store = request.app.ctx.settings, request.app.ctx.sessions
    old = await load_session(request) or {}
    if request.ctx.session_id:
        await store.delete(digest(request.ctx.session_id))
    sid = new_secret(32)
    data = {**old, **values}
    await store.set(digest(sid), data, settings.session_ttl)
    request.ctx.session_id, request.ctx.session = sid, data
    response.add_cookie(
        COOKIE_NAME, _cookie_value(settings.cookie_secret, sid), path="/", httponly=True,
        secure=settings.cookie_secure, samesite=settings.cookie_samesite, max_age=settings.session_ttl,
    )


async def update_session(request: Request, response: HTTPResponse, *drop: str) -> None:
    """Sign-out of one interface: remove the keys `drop`; destroy the session when nothing is left."""
    data = await load_session(request)
    if data is None:
        return
    settings, store, sid = request.app.ctx.settings, request.app.ctx.sessions, request.ctx.session_id
    remaining = {k: v for k, v in data.items() if k not in drop}
    if remaining:
        await store.set(digest(sid), remaining, settings.session_ttl)
        request.ctx.session = remaining
    else:
        await end_session(request, response)


async def end_session(request: Request, response: HTTPResponse) -> None:
    settings = request.app.ctx.settings
    if getattr(request.ctx, "session_id", None):
        await request.app.ctx.sessions.delete(digest(request.ctx.session_id))
    request.ctx.session_id, request.ctx.session = None, None
    response.add_cookie(
        COOKIE_NAME, "", path="/", httponly=True, secure=settings.cookie_secure,
        samesite=settings.cookie_samesite, max_age=0,
    )

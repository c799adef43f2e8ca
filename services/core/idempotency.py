"""Idempotency keys for requests that must take effect once (cart completion), the way Stripe's
API keeps them:

- the client's `Idempotency-Key` is adopted; one is generated when absent;
- a key remembers a fingerprint of its request (method, path, canonical body): the same key for
  another request is refused (422);
- a key is held by one request or worker at a time; a second one while it is held gets a 409
  with Retry-After; a hold older than the lease is taken over (its holder died);
- a finished key replays its stored response; finished keys are purged after a day.

Progress between holders is the key's `recovery_point`; `updated_at` is when it last moved or
was let go, which is how the sweep tells a stalled key from a running one.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import orjson
from tortoise.exceptions import IntegrityError
from tortoise.expressions import Q

from models import IdempotencyKey
from services.core import clock, purging
from services.core.errors import Conflict, InvalidData
from services.core.sql import db_value, insert, write

log = logging.getLogger("commerce.idempotency")

__all__ = [
    "Held", "Busy", "Mismatch", "Replay", "KeyReused", "KeyInUse", "begin", "take", "advance", "finish", "release",
    "purge_finished", "stalled", "LEASE_SECONDS", "MAX_KEY_LENGTH",
]

LEASE_SECONDS = 30.0  # a holder that has not moved for this long is presumed dead
MAX_KEY_LENGTH = 255
FINISHED = "finished"


class KeyReused(InvalidData):
    """The key was first used for another request: the client must send a new one."""

    def __init__(self, key: str):
        super().__init__(f"Idempotency-Key {key} was already used for another request", code="idempotency_key_reused")
        self.idempotency_key = key


class KeyInUse(Conflict):
    """Another request or worker holds the key: retry it after `retry_after` seconds."""

    def __init__(self, key: str, retry_after: int):
        super().__init__(
            "A request with this Idempotency-Key is in progress. Retry with the same key shortly.",
            code="idempotency_key_in_use",
        )
        self.idempotency_key = key
        self.retry_after = retry_after


@dataclass
class Held:
    """The caller holds the key and continues from `key.recovery_point`."""
    key: IdempotencyKey


@dataclass
class Busy:
    """Another request or worker holds the key right now."""
    key: str
    retry_after: int


@dataclass
class Mismatch:
    """The key was first used for another request."""
    key: str


@dataclass
class Replay:
    key: str
    status: int
    body: Any


def fingerprint(method: str, path: str, body: Any) -> str:
    canonical = orjson.dumps(body, option=orjson.OPT_SORT_KEYS) if body is not None else b""
    return hashlib.sha256(method.upper().encode() + b" " + path.encode() + b"\n" + canonical).hexdigest()


async def begin(value: str | None, method: str, path: str, body: Any, params: dict) -> Held | Busy | Mismatch | Replay:
    """Adopt (or create) the key named `value` for this request and try to hold it."""
    value = value or str(uuid.uuid4())
    mark = fingerprint(method, path, body)
    now = clock.now()
    try:
        key = IdempotencyKey(
            idempotency_key=value, fingerprint=mark, request_method=method.upper(), request_path=path,
            request_params=params, recovery_point="started", locked_at=now, updated_at=now,
        )
        await insert(key)
        return Held(key)
    except IntegrityError:
        pass  # the key exists: a retry, a concurrent twin, or a reuse
    key = await IdempotencyKey.get_or_none(idempotency_key=value)
    if key is None:  # purged between the insert and the read: start over once
        return await begin(value, method, path, body, params)
    if key.fingerprint != mark:
        return Mismatch(value)
    return await take(key)


async def take(key: IdempotencyKey) -> Held | Busy | Replay:
    """Hold `key` if nobody does (or its holder's lease ran out)."""
    if key.recovery_point == FINISHED:
        return Replay(key.idempotency_key, key.response_code or 200, key.response_body)
    now = clock.now()
    stale = now - timedelta(seconds=LEASE_SECONDS)
    taken = await IdempotencyKey.filter(
        Q(id=key.id) & Q(recovery_point=key.recovery_point) & (Q(locked_at=None) | Q(locked_at__lt=stale))
    ).update(locked_at=now, updated_at=now)
    if taken:
        key.locked_at = key.updated_at = now
        return Held(key)
    fresh = await IdempotencyKey.get(id=key.id)
    if fresh.recovery_point == FINISHED:
        return Replay(fresh.idempotency_key, fresh.response_code or 200, fresh.response_body)
    if fresh.locked_at is None or fresh.locked_at < stale:  # it moved on and was let go: try again
        return await take(fresh)
    left = LEASE_SECONDS - (now - fresh.locked_at).total_seconds()
    return Busy(fresh.idempotency_key, retry_after=max(1, min(int(left) + 1, 5)))


async def advance(key: IdempotencyKey, recovery_point: str) -> None:
    """Record progress (inside the stage's transaction, so it commits with the stage's work)."""
    now = clock.now()
    await IdempotencyKey.filter(id=key.id).update(recovery_point=recovery_point, locked_at=now, updated_at=now)
    key.recovery_point, key.locked_at, key.updated_at = recovery_point, now, now


# The key finished: `IdempotencyKey.filter(id=…).update(recovery_point=FINISHED, …)`, written once.
_FINISH = ('UPDATE "idempotency_key" SET "recovery_point" = ?, "response_code" = ?, "response_body" = ?, '
           '"locked_at" = NULL, "updated_at" = ? WHERE "id" = ?')


async def finish(key: IdempotencyKey, status: int, body: Any) -> None:
    """Store the answer. Inside a transaction, sent with its other put-off writes at its end
    (services/core/db.py `write_at_end`): the key finishes when the work it answers commits."""
    now = clock.now()
    await write(IdempotencyKey, _FINISH, [
        FINISHED, status, db_value(IdempotencyKey, "response_body", body), db_value(IdempotencyKey, "updated_at", now),
        key.id,
    ], at_end=True)
    key.recovery_point, key.response_code, key.response_body = FINISHED, status, body


async def release(key: IdempotencyKey, refused_status: int | None = None) -> None:
    """Let go without finishing: the next request with the key goes on from the recovery point.
    `refused_status` marks a key the client must act on first (the cart needs fixing): the sweep
    leaves those alone; a key let go without it is the retry worker's."""
    await IdempotencyKey.filter(id=key.id, recovery_point=key.recovery_point).update(
        locked_at=None, updated_at=clock.now(), response_code=refused_status
    )


async def stalled(grace_seconds: float, limit: int = 100) -> list[IdempotencyKey]:
    """Unfinished cart completions nobody has moved for `grace_seconds` (let go, or their holder
    died). Other keyed requests (admin order operations) are finished by their client's retry."""
    now = clock.now()
    quiet = now - timedelta(seconds=grace_seconds)
    stale = now - timedelta(seconds=LEASE_SECONDS)
    return await IdempotencyKey.filter(
        Q(request_path__startswith="/store/carts/")
        & Q(recovery_point__not=FINISHED) & Q(response_code=None) & Q(updated_at__lt=quiet)
        & (Q(locked_at=None) | Q(locked_at__lt=stale))
    ).order_by("updated_at").limit(limit)


async def purge_finished(max_age_seconds: float) -> int:
    """Forget keys older than `max_age_seconds`; a reused key after that is a new request. Keys
    never finished by then are dropped too: their client has long given up (logged). Read along
    the `created_at` index and deleted by id, purging.BATCH keys a statement, each batch committed
    on its own."""
    cutoff = clock.now() - timedelta(seconds=max_age_seconds)
    deleted = 0
    while True:
        batch = purging.BATCH
        old = await IdempotencyKey.filter(created_at__lt=cutoff).order_by("created_at").limit(batch).values_list(
            "id", "idempotency_key", "recovery_point")
        for _, value, point in old:
            if point != FINISHED:
                log.warning("idempotency key %s expired unfinished at %s", value, point)
        if old:
            deleted += await IdempotencyKey.filter(id__in=[row[0] for row in old]).delete()
        if len(old) < batch:
            return deleted

"""Rate limits: fixed-window counters behind a small store interface (Redis when the deployment
has it, so every web process shares the counts, and the database while Redis cannot be reached,
so the limits still hold; process memory when embedded).

An attempt counts before it runs, so a burst of parallel requests cannot slip past the limit
between a check and an increment; an attempt that turns out not to count (a successful sign-in,
an order found) is taken back afterwards.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from tortoise import connections
from tortoise.expressions import F

from models import RateCounter
from services.core import clock
from services.core.errors import TooManyAttempts

__all__ = [
    "Limit", "Bucket", "CounterStore", "MemoryCounterStore", "DatabaseCounterStore", "RedisCounterStore",
    "RateLimiter",
    "TOO_MANY_ATTEMPTS",
]

log = logging.getLogger("commerce.rate_limits")

TOO_MANY_ATTEMPTS = "Too many attempts. Try again later."


@dataclass(frozen=True)
class Limit:
    scope: str  # e.g. "store_sign_in:email"; counters of different scopes never mix
    maximum: int  # attempts allowed per window
    window: float  # seconds, from the first counted attempt


@dataclass(frozen=True)
class Bucket:
    limit: Limit
    identity: str  # an email (lower-cased), an IP address, a customer id
    reset_on_success: bool = False  # a success forgets the earlier failures, not just itself
    # Set: over its limit this bucket refuses only a caller whose own record (that bucket, of
    # the same attempt) already holds an earlier attempt. A ceiling that slows an attack spread
    # over many addresses without locking out the owner at a clean one.
    refuses_only_with: Bucket | None = None

    @property
    def key(self) -> str:
        # Hashed: bounded key length, and no emails in clear in Redis.
        return f"{self.limit.scope}:{hashlib.sha256(self.identity.encode()).hexdigest()[:32]}"


class CounterStore(Protocol):
    async def hit(self, key: str, window: float) -> tuple[int, float]:
        """Count one attempt; (the count in the current window, seconds until the window ends)."""

    async def undo(self, key: str) -> None:
        """Take back one attempt (never below zero, never extending the window)."""

    async def reset(self, key: str) -> None: ...

    async def clear(self) -> None:
        """Forget every counter (tests, and an operator lifting a lock-out)."""


class MemoryCounterStore:
    """One process's counters: the embedded default (one web process)."""

    def __init__(self, max_keys: int = 100_000):
        self.max_keys = max_keys
        self._counters: dict[str, list[float]] = {}  # key -> [count, expires_at (monotonic)]

    async def hit(self, key: str, window: float) -> tuple[int, float]:
        now = time.monotonic()
        entry = self._counters.get(key)
        if entry is None or entry[1] <= now:
            if len(self._counters) >= self.max_keys:
                self._forget_expired(now)
            entry = self._counters[key] = [0, now + window]
        entry[0] += 1
        return int(entry[0]), entry[1] - now

    async def undo(self, key: str) -> None:
        entry = self._counters.get(key)
        if entry is not None and entry[0] > 0:
            entry[0] -= 1

    async def reset(self, key: str) -> None:
        self._counters.pop(key, None)

    async def clear(self) -> None:
        self._counters.clear()

    def _forget_expired(self, now: float) -> None:
        for key in [k for k, (_, expires) in self._counters.items() if expires <= now]:
            del self._counters[key]
        while len(self._counters) >= self.max_keys:  # all live: drop the oldest rather than grow
            del self._counters[next(iter(self._counters))]


# One atomic statement per hit, on PostgreSQL and SQLite alike: a new or expired counter starts
# again at 1 with a new window, a live one counts on (both CASEs read the row as it was).
_HIT = (
    "INSERT INTO rate_counter (key, count, expires_at) VALUES ({p1}, 1, {p2}) "
    "ON CONFLICT (key) DO UPDATE SET "
    "count = CASE WHEN rate_counter.expires_at <= {p3} THEN 1 ELSE rate_counter.count + 1 END, "
    "expires_at = CASE WHEN rate_counter.expires_at <= {p3} THEN excluded.expires_at "
    "ELSE rate_counter.expires_at END "
    "RETURNING count, expires_at"
)


class DatabaseCounterStore:
    """Counters in the `rate_counter` table: shared by every process of the deployment, slower
    than Redis. Where the counts go while Redis cannot be reached."""

    def __init__(self, prefix: str = "", cleanup_chance: float = 0.01):
        self.prefix, self.cleanup_chance = prefix, cleanup_chance

    @staticmethod
    def _connection():
        return connections.get("default")

    async def hit(self, key: str, window: float) -> tuple[int, float]:
        conn = self._connection()
        now = clock.now()
        ends = now + timedelta(seconds=window)
        # SQLite keeps datetimes as ISO text (sqlite3's adapter, as Tortoise writes them), compared as text.
        marks = ("$1", "$2", "$3") if conn.capabilities.dialect == "postgres" else ("?1", "?2", "?3")
        sql = _HIT.format(p1=marks[0], p2=marks[1], p3=marks[2])
        [row] = await conn.execute_query_dict(sql, [self.prefix + key, ends, now])
        count, expires = row["count"], row["expires_at"]
        if isinstance(expires, str):
            expires = datetime.fromisoformat(expires)
        if random.random() < self.cleanup_chance:  # bounded table: expired counters go now and then
            await RateCounter.filter(expires_at__lte=now).delete()
        return int(count), max(0.0, (expires - now).total_seconds())

    async def undo(self, key: str) -> None:
        await RateCounter.filter(key=self.prefix + key, count__gt=0, expires_at__gt=clock.now()).update(
            count=F("count") - 1
        )

    async def reset(self, key: str) -> None:
        await RateCounter.filter(key=self.prefix + key).delete()

    async def clear(self) -> None:
        await RateCounter.filter(key__startswith=self.prefix).delete()


# Take back one attempt only while the window lives: a DECR on an expired key would create a
# counter of -1 without an expiry.
_UNDO = "if redis.call('exists', KEYS[1]) == 1 then return redis.call('decr', KEYS[1]) end return 0"


class RedisCounterStore:
    """Counters shared by every web process. While Redis cannot be reached they are counted in
    the database instead (`fallback`), so a limit still holds and the shop keeps selling; only
    a database that fails too lets the request through (logged)."""

    def __init__(self, client, prefix: str = "commerce:rl:", fallback: CounterStore | None = None):
        self.client, self.prefix = client, prefix
        self.fallback = fallback if fallback is not None else DatabaseCounterStore(prefix)

    async def hit(self, key: str, window: float) -> tuple[int, float]:
        full = self.prefix + key
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.set(full, 0, px=max(1, int(window * 1000)), nx=True)
                pipe.incr(full)
                pipe.pttl(full)
                _, count, ttl_ms = await pipe.execute()
        except Exception as e:  # redis.RedisError, OSError: count in the database
            log.warning("rate limit counted in the database, Redis unreachable (%s): %s", key.rsplit(":", 1)[0], e)
            try:
                return await self.fallback.hit(key, window)
            except Exception as again:  # both away: fail open rather than refuse every request
                log.warning("rate limit not applied (%s): %s", key.rsplit(":", 1)[0], again)
                return 0, 0.0
        return int(count), max(0, ttl_ms) / 1000

    async def undo(self, key: str) -> None:
        try:
            await self.client.eval(_UNDO, 1, self.prefix + key)
        except Exception as e:
            log.warning("rate limit counter taken back in the database: %s", e)
            await self._quietly(self.fallback.undo(key))

    async def reset(self, key: str) -> None:
        try:
            await self.client.delete(self.prefix + key)
        except Exception as e:
            log.warning("rate limit counter reset in the database: %s", e)
            await self._quietly(self.fallback.reset(key))

    async def clear(self) -> None:
        keys = [k async for k in self.client.scan_iter(match=self.prefix + "*", count=500)]
        if keys:
            await self.client.delete(*keys)
        await self.fallback.clear()

    @staticmethod
    async def _quietly(coro) -> None:
        try:
            await coro
        except Exception as e:
            log.warning("rate limit counter not changed in the database: %s", e)


class RateLimiter:
    def __init__(self, store: CounterStore):
        self.store = store

    @asynccontextmanager
    async def attempt(
        self, buckets: list[Bucket], *, counts_on: tuple[type[BaseException], ...] | None = None,
    ) -> AsyncIterator[None]:
        """Run the block as one attempt against every bucket; TooManyAttempts (with the seconds
        to wait) before the block runs when any bucket is over its limit.

        `counts_on=None`: every attempt counts. Otherwise only an attempt that raises one of
        `counts_on` counts (a wrong password); any other outcome is taken back, and a success
        also resets the buckets marked `reset_on_success`."""
        counts = {bucket.key: await self.store.hit(bucket.key, bucket.limit.window) for bucket in buckets}
        over: list[float] = []
        within: list[Bucket] = []
        for bucket in buckets:
            count, remaining = counts[bucket.key]
            if count > bucket.limit.maximum and self._refuses(bucket, counts):
                over.append(remaining)
            else:
                within.append(bucket)
        if over:
            # A refused attempt spends nothing of the other buckets (the address a locked-out
            # shopper shares with others, say).
            for bucket in within:
                await self.store.undo(bucket.key)
            raise TooManyAttempts(TOO_MANY_ATTEMPTS, retry_after=max(1, math.ceil(max(over))))
        try:
            yield
        except BaseException as e:
            if counts_on is not None and not isinstance(e, counts_on):
                await self._take_back(buckets, success=False)
            raise
        if counts_on is not None:
            await self._take_back(buckets, success=True)

    @staticmethod
    def _refuses(bucket: Bucket, counts: dict[str, tuple[int, float]]) -> bool:
        record = bucket.refuses_only_with
        return record is None or counts.get(record.key, (0, 0.0))[0] > 1  # counts include this attempt

    async def _take_back(self, buckets: list[Bucket], *, success: bool) -> None:
        for bucket in buckets:
            if success and bucket.reset_on_success:
                await self.store.reset(bucket.key)
            else:
                await self.store.undo(bucket.key)

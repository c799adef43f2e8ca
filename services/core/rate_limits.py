"""Rate limits: fixed-window counters behind a small store interface (Redis when the deployment
has it, so every web process shares the counts; process memory when embedded).

An attempt counts before it runs, so a burst of parallel requests cannot slip past the limit
between a check and an increment; an attempt that turns out not to count (a successful sign-in,
an order found) is taken back afterwards.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from services.core.errors import TooManyAttempts

__all__ = [
    "Limit", "Bucket", "CounterStore", "MemoryCounterStore", "RedisCounterStore", "RateLimiter",
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


# Take back one attempt only while the window lives: a DECR on an expired key would create a
# counter of -1 without an expiry.
_UNDO = "if redis.call('exists', KEYS[1]) == 1 then return redis.call('decr', KEYS[1]) end return 0"


class RedisCounterStore:
    """Counters shared by every web process. When Redis cannot be reached the limiter lets the
    request through (logged): a shop whose Redis is down keeps selling."""

    def __init__(self, client, prefix: str = "commerce:rl:"):
        self.client, self.prefix = client, prefix

    async def hit(self, key: str, window: float) -> tuple[int, float]:
        key = self.prefix + key
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.set(key, 0, px=max(1, int(window * 1000)), nx=True)
                pipe.incr(key)
                pipe.pttl(key)
                _, count, ttl_ms = await pipe.execute()
        except Exception as e:  # redis.RedisError, OSError: fail open
            log.warning("rate limit not applied (%s): %s", key.rsplit(":", 1)[0], e)
            return 0, 0.0
        return int(count), max(0, ttl_ms) / 1000

    async def undo(self, key: str) -> None:
        try:
            await self.client.eval(_UNDO, 1, self.prefix + key)
        except Exception as e:
            log.warning("rate limit counter not taken back: %s", e)

    async def reset(self, key: str) -> None:
        try:
            await self.client.delete(self.prefix + key)
        except Exception as e:
            log.warning("rate limit counter not reset: %s", e)

    async def clear(self) -> None:
        keys = [k async for k in self.client.scan_iter(match=self.prefix + "*", count=500)]
        if keys:
            await self.client.delete(*keys)


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

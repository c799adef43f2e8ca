"""The rate limiter over its counter stores: memory (embedded), Redis (production) and the
database (where Redis's counts go while it cannot be reached)."""

import asyncio
import time

import pytest
import redis.asyncio as aioredis

from services.core.errors import NotFound, TooManyAttempts
from models import RateCounter
from services.core.rate_limits import (
    Bucket, DatabaseCounterStore, Limit, MemoryCounterStore, RateLimiter, RedisCounterStore,
)
from tests.conftest import BACKEND, NAMESPACE, PATIENCE, REDIS_URL, _free_port

EMAIL = Limit("test:email", maximum=2, window=30)
IP = Limit("test:ip", maximum=3, window=30)


@pytest.fixture(params=["memory", "redis", "database"])
async def store(request):
    if request.param == "memory":
        yield MemoryCounterStore()
        return
    if request.param == "database":
        yield DatabaseCounterStore("rl-test:")
        return
    if BACKEND != "postgres":
        pytest.skip("Redis is part of the postgres backend")
    client = aioredis.from_url(REDIS_URL)
    found = RedisCounterStore(client, prefix=f"{NAMESPACE}:rl-test:")
    await found.clear()
    yield found
    await found.clear()
    await client.aclose()


async def _try(limiter: RateLimiter, buckets, outcome: BaseException | None = None, counts_on=(NotFound,)):
    async with limiter.attempt(buckets, counts_on=counts_on):
        if outcome is not None:
            raise outcome


async def test_failures_count_until_the_limit_then_every_attempt_is_refused(store):
    limiter = RateLimiter(store)
    buckets = [Bucket(EMAIL, "jane@example.com")]
    for _ in range(2):
        with pytest.raises(NotFound):
            await _try(limiter, buckets, NotFound("x"))
    with pytest.raises(TooManyAttempts) as refused:
        await _try(limiter, buckets)
    assert 1 <= refused.value.retry_after <= 30
    # another identity has its own counter
    with pytest.raises(NotFound):
        await _try(limiter, [Bucket(EMAIL, "other@example.com")], NotFound("x"))


async def test_successes_and_unrelated_errors_do_not_count(store):
    limiter = RateLimiter(store)
    buckets = [Bucket(EMAIL, "jane@example.com")]
    for _ in range(5):
        await _try(limiter, buckets)
        with pytest.raises(ValueError):
            await _try(limiter, buckets, ValueError("a bug, not a guess"))
    with pytest.raises(NotFound):
        await _try(limiter, buckets, NotFound("x"))


async def test_a_success_resets_the_buckets_marked_so(store):
    limiter = RateLimiter(store)
    email, ip = Bucket(EMAIL, "jane@example.com", reset_on_success=True), Bucket(IP, "10.0.0.1")
    with pytest.raises(NotFound):
        await _try(limiter, [email, ip], NotFound("x"))
    await _try(limiter, [email, ip])
    for _ in range(2):  # the email starts afresh: two more failures are allowed
        with pytest.raises(NotFound):
            await _try(limiter, [email, ip], NotFound("x"))
    with pytest.raises(TooManyAttempts):  # the address remembers its three failures
        await _try(limiter, [Bucket(EMAIL, "x@example.com"), ip])


async def test_counting_every_attempt(store):
    limiter = RateLimiter(store)
    for _ in range(2):
        await _try(limiter, [Bucket(EMAIL, "jane@example.com")], counts_on=None)
    with pytest.raises(TooManyAttempts):
        await _try(limiter, [Bucket(EMAIL, "jane@example.com")], counts_on=None)


async def test_parallel_attempts_cannot_slip_past_the_limit(store):
    limiter = RateLimiter(store)
    buckets = [Bucket(EMAIL, "jane@example.com")]

    async def guess():
        async with limiter.attempt(buckets, counts_on=(NotFound,)):
            await asyncio.sleep(0.05)
            raise NotFound("wrong")

    results = await asyncio.gather(*(guess() for _ in range(10)), return_exceptions=True)
    assert sum(isinstance(r, NotFound) for r in results) == 2
    assert sum(isinstance(r, TooManyAttempts) for r in results) == 8


async def test_the_window_ends(store):
    limiter = RateLimiter(store)
    short = Limit("test:short", maximum=1, window=3)  # long enough for two tries on a busy machine
    with pytest.raises(NotFound):
        await _try(limiter, [Bucket(short, "a")], NotFound("x"))
    with pytest.raises(TooManyAttempts):
        await _try(limiter, [Bucket(short, "a")])
    # I expect a try to pass once the window has ended (polled: the wait is the window, not a guess)
    waited = time.monotonic()
    while True:
        try:
            await _try(limiter, [Bucket(short, "a")])
            break
        except TooManyAttempts:
            assert time.monotonic() - waited < PATIENCE, "the window never ended"
            await asyncio.sleep(0.25)


async def test_with_redis_unreachable_the_limits_count_in_the_database_and_hold():
    client = aioredis.from_url(f"redis://127.0.0.1:{_free_port()}/0", socket_connect_timeout=0.5)
    limiter = RateLimiter(RedisCounterStore(client, prefix="rl-down:"))
    buckets = [Bucket(EMAIL, "jane@example.com")]
    for _ in range(2):
        with pytest.raises(NotFound):
            await _try(limiter, buckets, NotFound("x"))
    with pytest.raises(TooManyAttempts):
        await _try(limiter, buckets)
    assert [c.count for c in await RateCounter.filter(key__startswith="rl-down:")] == [3]  # 2 failures + the refused
    await client.aclose()


class _Down:
    async def hit(self, key, window):
        raise ConnectionError("database away too")


async def test_with_redis_and_the_database_unreachable_requests_go_through():
    client = aioredis.from_url(f"redis://127.0.0.1:{_free_port()}/0", socket_connect_timeout=0.5)
    limiter = RateLimiter(RedisCounterStore(client, fallback=_Down()))
    for _ in range(5):
        with pytest.raises(NotFound):
            await _try(limiter, [Bucket(EMAIL, "jane@example.com")], NotFound("x"))
    await client.aclose()


async def test_the_memory_store_stays_bounded():
    store = MemoryCounterStore(max_keys=3)
    for key in "abcde":
        await store.hit(key, 30)
    assert len(store._counters) <= 3


async def test_a_ceiling_over_its_limit_refuses_only_callers_whose_own_record_has_failed(store):
    # Given a ceiling of 2 failures for an email, lenient to callers with a clean record of their own
    limiter = RateLimiter(store)
    own = {ip: Bucket(Limit("test:email_ip", 5, 30), f"jane {ip}") for ip in ("a", "b", "c")}

    def buckets(ip):
        return [own[ip], Bucket(EMAIL, "jane@example.com", refuses_only_with=own[ip])]

    # When addresses a and b each fail once, filling the ceiling
    for ip in ("a", "b"):
        with pytest.raises(NotFound):
            await _try(limiter, buckets(ip), NotFound("x"))
    # I expect a, having failed, to be refused, and c, clean, to be let through (and counted)
    with pytest.raises(TooManyAttempts):
        await _try(limiter, buckets("a"))
    with pytest.raises(NotFound):
        await _try(limiter, buckets("c"), NotFound("x"))
    with pytest.raises(TooManyAttempts):
        await _try(limiter, buckets("c"))


async def test_with_redis_down_the_password_reset_limit_still_holds(database):
    """End to end: a web process whose Redis is unreachable sends at most 5 resets for one
    address (MESSAGE_REQUESTS_PER_EMAIL), counting in the database."""
    from dataclasses import replace

    from app.server import create_app
    from models import Customer, Notification
    from tests.account_factories import hear_events
    from tests.conftest import SETTINGS, running

    await Customer.create(email="jane@example.com", has_account=True)
    dead = replace(SETTINGS, redis_url=f"redis://127.0.0.1:{_free_port()}/0")
    async with running(create_app(dead, manage_orm=False)) as http:
        answers = [
            (await http.post("/store/customers/password-token", json={"email": "jane@example.com"})).status_code
            for _ in range(10)
        ]
    assert answers == [204] * 5 + [429] * 5
    await hear_events()  # the worker dispatches the requests' events: the notifications write the messages
    assert await Notification.filter(to="jane@example.com").count() == 5

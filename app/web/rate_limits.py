"""The rate limits of the web tier: which requests count, against which counters, with the
limits from settings. Over a limit the request is a 429 with `Retry-After` (app/web/errors.py).

- sign-in (admin and store, counted apart): failures per email from one address and per
  address, which refuse even the right password; and failures per email from all addresses, a
  ceiling past which only addresses that already failed for that email are refused, so a
  distributed guess is slowed while the owner still signs in from an address of their own;
- email look-ups (`GET /store/auth/{email}`) and sign-ups: every request, per address;
- order look-up by display id and email: look-ups that found nothing, per email and address;
- messages asked for (password-reset tokens, order-claim tokens): every request, per email (or
  customer) and per address, so nobody can flood a mailbox through the shop.
"""

from __future__ import annotations

from sanic import Request

from app.web.client_address import client_address
from services.core.errors import NotFound, Unauthorized
from services.core.rate_limits import Bucket, Limit, MemoryCounterStore, RateLimiter, RedisCounterStore

__all__ = [
    "limiter", "sign_in_guard", "order_lookup_guard", "message_request_guard", "email_lookup_guard",
    "sign_up_guard",
]

# One per process in embedded mode: every app of the process shares it, as they would Redis.
_memory = MemoryCounterStore()


def limiter(request: Request) -> RateLimiter:
    ctx = request.app.ctx
    found = getattr(ctx, "rate_limiter", None)
    if found is None:
        redis = getattr(ctx, "redis", None)
        store = _memory if redis is None else RedisCounterStore(redis, prefix=f"{ctx.settings.redis_namespace}:rl:")
        found = ctx.rate_limiter = RateLimiter(store)
    return found


def _buckets(request: Request, scope: str, per_email: int, per_ip: int, who: str):
    window = request.app.ctx.settings.rate_limit_window_seconds
    return [
        Bucket(Limit(f"{scope}:email", per_email, window), who.strip().lower()),
        Bucket(Limit(f"{scope}:ip", per_ip, window), client_address(request)),
    ]


def sign_in_guard(request: Request, interface: str, email: str):
    """`async with sign_in_guard(request, "store", email): await authenticate(...)`: an
    Unauthorized from the block counts as a failure; a success forgets the failures of this
    email from this address (not the email's ceiling, which an attacker would like reset)."""
    settings, scope = request.app.ctx.settings, f"{interface}_sign_in"
    window, email, ip = settings.rate_limit_window_seconds, email.strip().lower(), client_address(request)
    own = Bucket(Limit(f"{scope}:email_ip", settings.sign_in_failures_per_email_and_ip, window), f"{email} {ip}",
                 reset_on_success=True)
    buckets = [
        own,
        Bucket(Limit(f"{scope}:ip", settings.sign_in_failures_per_ip, window), ip),
        Bucket(Limit(f"{scope}:email", settings.sign_in_failures_per_email, window), email, refuses_only_with=own),
    ]
    return limiter(request).attempt(buckets, counts_on=(Unauthorized,))


def order_lookup_guard(request: Request, email: str):
    """`async with order_lookup_guard(request, email): <look the order up>`: a NotFound from the
    block counts; over the limit even a right guess is refused, so the 429 tells nothing."""
    settings = request.app.ctx.settings
    buckets = _buckets(
        request, "order_lookup", settings.order_lookup_failures_per_email, settings.order_lookup_failures_per_ip,
        email,
    )
    return limiter(request).attempt(buckets, counts_on=(NotFound,))


def message_request_guard(request: Request, recipient: str):
    """Every request that may send a message counts, whether or not one is sent (the answer
    must not tell whether an account exists)."""
    settings = request.app.ctx.settings
    buckets = _buckets(
        request, "messages", settings.message_requests_per_email, settings.message_requests_per_ip, recipient,
    )
    return limiter(request).attempt(buckets)


def _per_ip(request: Request, scope: str, maximum: int):
    window = request.app.ctx.settings.rate_limit_window_seconds
    return limiter(request).attempt([Bucket(Limit(f"{scope}:ip", maximum, window), client_address(request))])


def email_lookup_guard(request: Request):
    """Every look-up counts: whether an email has an account is what an enumerator wants."""
    return _per_ip(request, "email_lookup", request.app.ctx.settings.email_lookups_per_ip)


def sign_up_guard(request: Request):
    """Every sign-up that reaches the service counts, whether or not it succeeds: each one costs a
    password hash."""
    return _per_ip(request, "sign_up", request.app.ctx.settings.sign_ups_per_ip)

"""The rate limits of the web tier: which requests count, against which counters, with the
limits from settings. Over a limit the request is a 429 with `Retry-After` (app/errors.py).

- sign-in (admin and store, counted apart): failures per email and per client address;
- order look-up by display id and email: look-ups that found nothing, per email and address;
- messages asked for (password-reset tokens, order-claim tokens): every request, per email (or
  customer) and per address, so nobody can flood a mailbox through the shop.
"""

from __future__ import annotations

from sanic import Request

from services.errors import NotFound, Unauthorized
from services.rate_limits import Bucket, Limit, MemoryCounterStore, RateLimiter, RedisCounterStore

__all__ = ["client_ip", "limiter", "sign_in_guard", "order_lookup_guard", "message_request_guard"]

# One per process in embedded mode: every app of the process shares it, as they would Redis.
_memory = MemoryCounterStore()


def client_ip(request: Request) -> str:
    """The caller's address: from the proxy headers Sanic is told to trust, else the peer."""
    return request.remote_addr or request.ip or "unknown"


def limiter(request: Request) -> RateLimiter:
    ctx = request.app.ctx
    found = getattr(ctx, "rate_limiter", None)
    if found is None:
        redis = getattr(ctx, "redis", None)
        found = ctx.rate_limiter = RateLimiter(RedisCounterStore(redis) if redis is not None else _memory)
    return found


def _buckets(request: Request, scope: str, per_email: int, per_ip: int, who: str, *, reset: bool = False):
    window = request.app.ctx.settings.rate_limit_window_seconds
    return [
        Bucket(Limit(f"{scope}:email", per_email, window), who.strip().lower(), reset_on_success=reset),
        Bucket(Limit(f"{scope}:ip", per_ip, window), client_ip(request)),
    ]


def sign_in_guard(request: Request, interface: str, email: str):
    """`async with sign_in_guard(request, "store", email): await authenticate(...)`: an
    Unauthorized from the block counts as a failure; a success forgets the email's failures."""
    settings = request.app.ctx.settings
    buckets = _buckets(
        request, f"{interface}_sign_in", settings.sign_in_failures_per_email, settings.sign_in_failures_per_ip,
        email, reset=True,
    )
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

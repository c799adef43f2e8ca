"""Redis out of reach while the server runs (it keeps the sessions): told apart from the
database's trouble, so the answer (503, Retry-After) and the log name the part that is down."""

from __future__ import annotations

from redis.exceptions import ConnectionError as RedisConnectionError, TimeoutError as RedisTimeoutError

from services.core.db_outages import RETRY_AFTER_SECONDS
from services.core.errors import DomainError

__all__ = ["RedisUnavailable", "redis_unreachable"]


class RedisUnavailable(DomainError):
    kind = "unexpected_state"

    def __init__(self):
        super().__init__("Redis, where sessions are kept, is unavailable for a moment. Retry the request.",
                         code="redis_unavailable")
        self.retry_after = RETRY_AFTER_SECONDS


def redis_unreachable(error: BaseException) -> bool:
    """Whether `error`, or what it was raised from, is Redis refusing or timing out."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen and len(seen) < 16:
        if isinstance(error, (RedisConnectionError, RedisTimeoutError)):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False

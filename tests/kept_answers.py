"""What the tests of answers kept by a version (app/web/answer_cache.py) share: whether a request
ran only the read of that version, the caller's look-up aside."""

__all__ = ["version_only"]


def version_only(statements: list[str], version_table: str) -> bool:
    """True when, but for the caller's look-up (the user by JWT or session, as on every admin route
    when AUTH_CACHE_SECONDS is 0, as in tests), `statements` are one read of `version_table`."""
    rest = [s for s in statements if 'FROM "user"' not in s]
    return len(rest) == 1 and f'FROM "{version_table}"' in rest[0]

"""The time, in one place: aware UTC datetimes everywhere (tests may patch `now`)."""

from __future__ import annotations

from datetime import datetime, timezone

__all__ = ["now"]


def now() -> datetime:
    return datetime.now(timezone.utc)

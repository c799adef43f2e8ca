"""Housekeeping that the scheduler asks for."""

from datetime import datetime, timezone

from models import Session

__all__ = ["purge_expired_sessions"]


async def purge_expired_sessions() -> int:
    """Delete database sessions past their expiry (Redis expires its own)."""
    return await Session.filter(expires_at__lt=datetime.now(timezone.utc)).delete()

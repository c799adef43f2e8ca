"""Housekeeping that the scheduler asks for."""

from models import Session
from services.core import clock
from services.core.purging import delete_in_batches

__all__ = ["purge_expired_sessions"]


async def purge_expired_sessions() -> int:
    """Delete database sessions past their expiry (Redis expires its own), in batches along the
    `expires_at` index (services/core/purging.py)."""
    return await delete_in_batches(Session.filter(expires_at__lt=clock.now()), "expires_at")

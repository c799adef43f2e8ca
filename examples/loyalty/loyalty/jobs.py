"""The plugin's job: the expiry sweep, asked for every LOYALTY_EXPIRE_EVERY_SECONDS by its
schedule (loyalty/__init__.py). A catch-up sweep, safe to run twice or late."""

from __future__ import annotations

import dramatiq

from loyalty.points import expire_due

__all__ = ["expire_loyalty_points"]


@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
async def expire_loyalty_points() -> dict:
    """Earned points past their lifetime taken from the balances; how many entries expired."""
    return {"expired": await expire_due()}

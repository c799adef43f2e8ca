"""The plugin's settings, read from the environment under LOYALTY_ (services/plugins.py
own_settings): LOYALTY_POINTS_PER_UNIT, LOYALTY_POINTS_LIFETIME_SECONDS, LOYALTY_EXPIRE_EVERY_SECONDS."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["LoyaltySettings", "current"]


class LoyaltySettings(BaseModel):
    # Points for each currency unit of an order's total (1.00, i.e. 100 minor units).
    points_per_unit: float = Field(default=1.0, ge=0)
    # How long points last once earned, in seconds (365 days).
    points_lifetime_seconds: int = Field(default=365 * 24 * 3600, ge=1)
    # How often the expiry sweep is asked for, in seconds.
    expire_every_seconds: int = Field(default=3600, ge=1)


def current() -> LoyaltySettings:
    """This process's loyalty settings, as services/setup.py configure loaded them (the defaults
    in a process that did not load the plugin)."""
    from services.plugins import current as active_plugins

    for active in active_plugins():
        if active.name == "loyalty" and active.context.settings is not None:
            return active.context.settings
    return LoyaltySettings()

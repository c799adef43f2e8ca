"""Whether stock is counted per location (setting INVENTORY_LOCATIONS, off by default): the
process takes it from its settings at start-up; every inventory hook asks `enabled()` first and
does nothing, with no statement, when it is off."""

from __future__ import annotations

__all__ = ["configure", "enabled"]

_on = False


def configure(settings) -> bool:
    global _on
    _on = bool(getattr(settings, "inventory_locations", False))
    return _on


def enabled() -> bool:
    return _on

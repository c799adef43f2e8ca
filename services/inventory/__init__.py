"""Stock in several places (setting INVENTORY_LOCATIONS, off by default): stock locations,
inventory items with a level per location, and reservations, as Medusa v1's inventory and
stock-location modules.

- `levels`: every change of a level's quantities, by one conditional UPDATE, and the variants'
  `inventory_quantity` kept equal to what their items have available across all locations.
- `variant_stock`: what a variant has available at a sales channel's locations.
- `reservations`: units held at a location (an order's line, or by hand).
- `items`, `locations`: the admin's records; `switch_on`: what turning the setting on does.

While the setting is on, a variant's `inventory_quantity` is never written alone: every level
change rewrites it in the same transaction (sum over locations of stocked - reserved, divided
by the link's required quantity), so switching the setting off leaves every variant right.

Conditional updates here are hand-written `UPDATE … WHERE <the condition> RETURNING`, run through
services/core/sql.py's `execute`, rather than the ORM's `filter(...).update(...)`: the condition
compares a column with itself plus the change (`stocked_quantity + ? - reserved_quantity >= 0`),
and the answer names the row changed, so a refused change costs no second statement. The one
hand-written read is `reads.available_by_variant`."""

from __future__ import annotations

__all__ = ["configure", "enabled"]

_enabled = False


def configure(settings) -> bool:
    """Take INVENTORY_LOCATIONS from the process's settings (every process at start-up: services/setup.py)."""
    global _enabled
    _enabled = bool(getattr(settings, "inventory_locations", False))
    return _enabled


def enabled() -> bool:
    return _enabled

"""Loyalty points: a customer earns points for each order placed, loses them in proportion to what
is refunded, and they expire after a while; the shop's admins may adjust a balance by hand.

The one `Plugin` below is all the core sees (services/core/plugins.py): this package's tables (its
own Tortoise app, `loyalty`), its settings (LOYALTY_*), a subscriber to `order.placed` and
`order.refund_created`, the store's and the admin's routes, the expiry job with its schedule, and
its notification templates (the order confirmation says it earns points; services/notifications/
rendering.py searches them after the shop's NOTIFICATION_TEMPLATES and before the built-in ones).
It is on when PLUGINS names `loyalty`; every part is named by a string, so a process imports only
what it runs (the web processes the routes, every process the jobs)."""

from __future__ import annotations

from pathlib import Path

from services.core.plugins import Plugin, PluginContext, Schedule

from loyalty.settings import LoyaltySettings
from loyalty.subscribers import subscribe_loyalty

__all__ = ["plugin"]

__version__ = "0.1.0"


def _schedules(ctx: PluginContext) -> tuple[Schedule, ...]:
    return (Schedule("expire_loyalty_points", every=float(ctx.settings.expire_every_seconds), queue="maintenance"),)


plugin = Plugin(
    "loyalty", __version__,
    description="loyalty points earned on orders, taken back on refunds, expiring (examples/loyalty)",
    routes=("loyalty.routes:store", "loyalty.routes:admin"),
    subscribers=subscribe_loyalty,
    jobs=("loyalty.jobs",),
    schedules=_schedules,
    models="loyalty.models",
    migrations="loyalty.migrations",
    settings=LoyaltySettings,
    templates=Path(__file__).parent / "templates",
)

"""What the in-process benchmarks share: the store opened on `DATABASE_URL` as a worker opens it
(migrated, the defaults in place, the in-memory broker with the actors loaded), and the process's
peak memory."""

from __future__ import annotations

import resource
from contextlib import asynccontextmanager
from dataclasses import replace

from tortoise import Tortoise

from app.config import Settings

__all__ = ["open_store", "peak_rss_mb"]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


@asynccontextmanager
async def open_store(settings: Settings, *, broker: bool = True):
    """The migrated store with its defaults, closed at the end; `broker`: the in-memory broker and
    the actors, for runs called directly as an actor would call them."""
    from tortoise.migrations.api.migrate import migrate

    from services.store.defaults import ensure_defaults
    from workers.broker import load_actors, setup_broker

    if broker:
        setup_broker(replace(settings, redis_url=None))
        load_actors()
    await migrate(config=settings.tortoise_config())
    await Tortoise.close_connections()
    await Tortoise.init(config=settings.tortoise_config(), _enable_global_fallback=True)
    try:
        await ensure_defaults()
        yield
    finally:
        await Tortoise.close_connections()

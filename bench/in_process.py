"""What the in-process benchmarks share: the store opened on `DATABASE_URL` as a worker opens it
(migrated, the defaults in place, the in-memory broker with the actors loaded), the app served to a
client in the same process, and the process's peak memory."""

from __future__ import annotations

import resource
from contextlib import asynccontextmanager
from dataclasses import replace

import httpx
from tortoise import Tortoise

from app.config import Settings

__all__ = ["open_store", "served", "peak_rss_mb"]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


@asynccontextmanager
async def open_store(settings: Settings, *, broker: bool = True):
    """The migrated store with its defaults, closed at the end; `broker`: the in-memory broker and
    the actors, for runs called directly as an actor would call them."""
    from tortoise.migrations.api.migrate import migrate

    from services.orders.display_ids import ensure_sequence
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
        await ensure_sequence()
        yield
    finally:
        await Tortoise.close_connections()


@asynccontextmanager
async def served(settings: Settings, name: str):
    """The app on a free loopback port inside this process (the store already open, see
    `open_store`), as an HTTP client to it; the server stops at the end."""
    from app.server import create_app

    app = create_app(settings, manage_orm=False, name=name)
    app.config.TOUCHUP = False
    server = await app.create_server(host="127.0.0.1", port=0, return_asyncio_server=True, access_log=False)
    await server.startup()
    await server.before_start()
    await server.after_start()
    port = server.server.sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            yield client
    finally:
        await server.before_stop()
        await server.close()

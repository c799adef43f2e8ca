"""The web process: the app, plus in embedded mode the worker threads and the scheduler."""

from __future__ import annotations

import asyncio

from sanic import Sanic

from app.config import Settings
from app.server import create_app
from workers.balance import spread_connections
from workers.broker import load_actors, setup_broker
from workers.embedded import start_embedded_worker, stop_embedded_worker
from workers.logs import configure_logging
from workers.scheduler import build_scheduler, stop_scheduler, turns_for
from workers.web_start import record_start_failure
from workers.web_stop import stop_once

__all__ = ["build_app", "attach_embedded_jobs"]


def build_app() -> Sanic:
    """App factory for `commerce serve` (each Sanic worker process calls it)."""
    configure_logging()
    settings = Settings.from_env()
    broker = setup_broker(settings)  # before any actor is imported: they bind to it
    app = create_app(settings, name="commerce")  # sets the services up, the plugins loaded
    load_actors()  # the core's, then the plugins' (the built-in Stripe plugin's among them)
    record_start_failure(app)  # told by `commerce serve` if this process cannot start
    stop_once(app)  # a SIGTERM while it starts is not lost, nor a repeated one
    spread_connections(app)
    if settings.embedded:
        attach_embedded_jobs(app, broker, settings)
    return app


def attach_embedded_jobs(app: Sanic, broker, settings: Settings, *, scheduler: bool = True) -> None:
    @app.after_server_start
    async def start_jobs(app: Sanic):
        app.ctx.worker = start_embedded_worker(broker, asyncio.get_running_loop())
        # Each web process runs one; the database counters give each sweep's slot to one of them.
        app.ctx.scheduler = build_scheduler(settings, turns_for(settings)) if scheduler else None
        if app.ctx.scheduler:
            app.ctx.scheduler.start()

    @app.before_server_stop
    async def stop_jobs(app: Sanic):
        if app.ctx.scheduler:
            await stop_scheduler(app.ctx.scheduler)
        await stop_embedded_worker(app.ctx.worker)

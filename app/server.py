"""The Sanic application factory: settings, error mapping, sessions, auth gate, CORS, routes."""

from __future__ import annotations

import asyncio
import gc
import itertools

import orjson
from sanic import Request, Sanic
from sanic.exceptions import RequestTimeout
from sanic.response import HTTPResponse
from tortoise import Tortoise

from app.admin import admin, inventory_admin
from app.dashboard.serving import mount as mount_dashboard
from app.plugin_routes import mount_plugin_routes
from app.shapes.completion import ApiAnswers
from app.web.auth import PUBLIC_ADMIN_ROUTES, RecentAdminUsers, require_admin
from app.config import Settings
from app.web.cors import add_cors_headers
from app.web.db_retry import retry_reads
from app.web.db_startup import stop_trying, when_database_answers
from app.web.csrf import require_allowed_origin, require_json_body
from app.web.errors import JsonErrorHandler
from app.web.files import bp as files_bp
from app.web.responses import text
from app.web.sessions import DatabaseSessionStore, RecentSessions, RedisSessionStore, SessionStore
from app.store import store
from app.web.validation import read_json_body, refuse_nul_characters
from app.web.docs import bp as docs_bp
from app.web.metrics import bp as metrics_bp, request_finished, request_started
from app.web.request_log import finish_request, start_request
from services import inventory, plugins, setup

__all__ = ["create_app"]

_names = itertools.count()


class DeadlineRequest(Request):
    """A request whose whole body must arrive within BODY_TIMEOUT_SECONDS. Sanic's own timeouts
    only bound the gaps between packets, so a byte every few seconds would hold a connection."""

    async def receive_body(self):
        stream = self.stream
        if self.body or (getattr(stream, "request_body", "") is True and not stream.expecting_continue
                         and len(stream.recv_buffer) >= stream.request_bytes_left):
            # Read already, or the whole body is buffered (as nearly every JSON body is): reading
            # cannot wait, so no deadline to arm.
            return await super().receive_body()
        try:
            async with asyncio.timeout(self.app.ctx.settings.body_timeout_seconds):
                await super().receive_body()
        except TimeoutError:
            # The rest may never come: answer, then close rather than wait to read past it.
            self.stream.keep_alive = False
            self.stream.request_body = None
            seconds = f"{self.app.ctx.settings.body_timeout_seconds:g}"
            raise RequestTimeout(f"The request body did not arrive within {seconds} seconds") from None


def create_app(settings: Settings, *, manage_orm: bool = True, name: str | None = None) -> Sanic:
    """A configured app. `manage_orm=False` leaves Tortoise to the caller (tests own it)."""
    # Logging is configured once per process (workers/logs.py); Sanic's own set-up would double it.
    app = Sanic(
        name or f"commerce{next(_names)}", dumps=orjson.dumps, loads=orjson.loads, configure_logging=False,
        request_class=DeadlineRequest,
    )
    app.config.REQUEST_MAX_SIZE = settings.max_body_bytes
    app.config.REQUEST_TIMEOUT = settings.body_timeout_seconds  # the longest pause inside the headers
    app.config.FALLBACK_ERROR_FORMAT = "json"
    app.config.ACCESS_LOG = False
    app.error_handler = JsonErrorHandler()
    app.ctx.settings = settings
    app.ctx.recent_admins = RecentAdminUsers(settings.auth_cache_seconds)
    app.blueprint(admin)
    app.blueprint(store)
    app.blueprint(files_bp)
    app.blueprint(metrics_bp)
    app.blueprint(docs_bp)
    setup.configure(settings, answers=ApiAnswers())  # every area, the plugins, the subscribers (embedded mode runs jobs here)
    if inventory.enabled():  # INVENTORY_LOCATIONS: the inventory and stock-location routes
        app.blueprint(inventory_admin)
    mount_plugin_routes(app, plugins.current())  # Stripe's webhook, the shop's own routes

    @app.get("/health")
    async def health(request: Request):
        return text("OK")

    mount_dashboard(app, settings)  # last of the routes: it checks that it hides none of them

    # Every path parameter arrives percent-decoded (`%20` in a code, `%40` in an email). Set on
    # each route: sanic-routing otherwise lets a node inherit `unquote` from whichever routes it
    # met first, so decoding would depend on the order blueprints happen to register in.
    for route in app.router.routes:
        route.unquote = True
    retry_reads(app)  # a read whose database connection dropped runs again on a fresh one

    # One request middleware, not two: each costs Sanic a coroutine and its bookkeeping per request.
    @app.on_request(priority=100)
    async def gate(request: Request):
        start_request(request)  # first: a refused request is logged and counted too
        request_started(request)
        refuse_nul_characters(request)
        require_allowed_origin(request)
        require_json_body(request)
        read_json_body(request)
        path = request.path
        if path.startswith("/admin") and request.method != "OPTIONS":
            if (request.method, path.rstrip("/")) not in PUBLIC_ADMIN_ROUTES:
                await require_admin(request)

    @app.on_response
    async def cors(request: Request, response: HTTPResponse):
        if request.headers.get("origin"):
            add_cors_headers(request, response)
        route, seconds = finish_request(request, response)
        request_finished(request, route, response.status, seconds)

    @app.before_server_start
    async def open_resources(app: Sanic):
        if manage_orm:
            await Tortoise.init(config=settings.tortoise_config(), _enable_global_fallback=True)
        # A configured gateway is listed (GET /admin/store/payment-providers); the database may not be up yet.
        await when_database_answers(app, "providers' rows", setup.install_providers)
        app.ctx.redis = None
        if settings.redis_url:
            import redis.asyncio as aioredis

            app.ctx.redis = aioredis.from_url(settings.redis_url, socket_connect_timeout=2)
        if not hasattr(app.ctx, "sessions"):
            app.ctx.sessions = session_store(app.ctx.redis, settings.redis_namespace)
            if settings.session_cache_seconds > 0:
                app.ctx.sessions = RecentSessions(app.ctx.sessions, settings.session_cache_seconds)
        if manage_orm:
            # What start-up made (modules, routes, models) lives as long as the process: keep it
            # out of the collector's full passes, which otherwise stall requests for milliseconds.
            gc.collect()
            gc.freeze()

    @app.after_server_stop
    async def close_resources(app: Sanic):
        stop_trying(app)
        if app.ctx.redis is not None:
            await app.ctx.redis.aclose()
        if manage_orm:
            await Tortoise.close_connections()

    return app


def session_store(redis_client, namespace: str = "commerce") -> SessionStore:
    if redis_client is None:
        return DatabaseSessionStore()
    return RedisSessionStore(redis_client, prefix=f"{namespace}:sess:")

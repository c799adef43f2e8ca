"""A read whose database connection dropped is run again, once, on a fresh connection.

Every route's handler is wrapped when the server starts (routes added after `create_app` too).
On a lost connection (services/core/db_outages.py) the pool's connections are discarded, as a
restart or a mass kill drops them all; then a GET, HEAD or OPTIONS whose answer has not started
is run again, whole, and logged at WARNING. Anything else (a write, a second loss, a loss in
middleware, a real fault) goes on to the error handler, which answers the database's passing
trouble 503 with Retry-After (app/web/errors.py). Middleware is not run again: the request's log
line and metrics count it once, with its final status.
"""

from __future__ import annotations

import functools
import logging
from inspect import isawaitable

from sanic import Request, Sanic

from services.core.db_outages import connection_lost, discard_connections

__all__ = ["retry_reads", "IDEMPOTENT_METHODS"]

log = logging.getLogger("commerce.errors")

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def retry_reads(app: Sanic) -> None:
    """Set `app` up: its handlers wrapped at start, its pool discarded on any lost connection."""

    @app.before_server_start
    async def wrap_handlers(app: Sanic):
        for route in app.router.routes:
            if not getattr(route.handler, "retries_reads", False):
                route.handler = _retrying(route.handler)

    @app.signal("http.lifecycle.exception")
    async def discard_after_a_loss(request: Request, exception: BaseException):
        if connection_lost(exception):
            await discard_connections()


def _retrying(handler):
    @functools.wraps(handler)
    async def run(request: Request, *args, **kwargs):
        try:
            return await _call(handler, request, args, kwargs)
        except Exception as e:
            if not connection_lost(e) or request.method not in IDEMPOTENT_METHODS or request.responded:
                raise
            await discard_connections()
            log.warning("%s %s retried on a fresh database connection: %s: %s", request.method, request.path,
                        type(e).__name__, e)
        return await _call(handler, request, args, kwargs)

    run.retries_reads = True
    return run


async def _call(handler, request: Request, args: tuple, kwargs: dict):
    response = handler(request, *args, **kwargs)
    return await response if isawaitable(response) else response

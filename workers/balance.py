"""Keep-alive connections spread evenly over the web workers of `commerce serve --workers N`.

The workers share one listening socket, and whichever wakes first accepts every connection
waiting, so a burst of clients (a proxy's upstream pool, a load test) can land 26 of 32
connections on one worker and 6 on the other. The busy worker's requests then wait four times
as long while the other idles between its few. Each worker counts its open connections in an
array shared by all; one holding at least two more than the least loaded closes a connection
after answering on it (`Connection: close`, which every HTTP client follows by reconnecting),
at most one per `SHED_PAUSE_SECONDS`, so the reconnections have time to land where they will
before it looks again. Requests are never refused or cut short: only an idle keep-alive is ended.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import time

from sanic import Request, Sanic
from sanic.response import HTTPResponse

__all__ = ["ConnectionBalance", "spread_connections"]

SHED_PAUSE_SECONDS = 0.02


class ConnectionBalance:
    """One worker's view of the shared counts: `counts[slot]` is its own."""

    def __init__(self, counts, slot: int, *, clock=time.monotonic):
        self.counts, self.slot, self._clock = counts, slot, clock
        self._next_shed = 0.0
        counts[slot] = 0  # a restarted worker starts with none

    def opened(self) -> None:
        self.counts[self.slot] += 1

    def closed(self) -> None:
        self.counts[self.slot] -= 1

    def shed(self) -> bool:
        """Whether the connection just answered on should close, to move to a quieter worker."""
        counts = self.counts[:]
        if counts[self.slot] - min(counts) < 2:
            return False
        now = self._clock()
        if now < self._next_shed:
            return False
        self._next_shed = now + SHED_PAUSE_SECONDS
        return True


def _slot() -> int | None:
    """This worker's number among the servers (Sanic names them "Srv 0", "Srv 1", …)."""
    found = re.search(r"(\d+)\s*$", os.environ.get("SANIC_WORKER_IDENTIFIER", ""))
    return int(found.group(1)) if found else None


def spread_connections(app: Sanic) -> None:
    """Balance the app's connections over its workers; nothing with a single worker."""

    @app.main_process_start
    async def share_counts(app: Sanic):
        if app.state.workers > 1:
            app.shared_ctx.open_connections = multiprocessing.Array("i", app.state.workers)

    @app.before_server_start
    async def take_slot(app: Sanic):
        counts, slot = getattr(app.shared_ctx, "open_connections", None), _slot()
        app.ctx.balance = ConnectionBalance(counts, slot) if counts is not None and slot is not None \
            and slot < len(counts) else None

    @app.signal("http.lifecycle.begin")
    async def opened(conn_info):
        if app.ctx.balance is not None:
            app.ctx.balance.opened()

    @app.signal("http.lifecycle.complete")
    async def closed(conn_info):
        if app.ctx.balance is not None:
            app.ctx.balance.closed()

    @app.on_response(priority=-100)
    async def maybe_shed(request: Request, response: HTTPResponse):
        if app.ctx.balance is not None and request.stream.keep_alive and app.ctx.balance.shed():
            request.stream.keep_alive = False

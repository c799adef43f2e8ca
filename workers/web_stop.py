"""A web process's stop: asked by SIGTERM or SIGINT at any time once its server starts, done once.

Sanic's `_serve_http_1` (sanic/server/runners.py) answers on the port from the moment it creates
the server, leaves SIGTERM at its default (the process ends at once, without its shutdown) until
it installs its own handlers, then runs the after_server_start listeners in a
`run_until_complete`. Its handlers call `app.stop()`, so `loop.stop()`: during that run, this
stops the run only, and the process then serves on until SIGKILL. `commerce start` prints its
banner in that window (workers/banner.py prints it once /health answers), so a supervisor that
stopped it as soon as it was told it listens was ignored, or cut short. And a SIGTERM to the
process group under `commerce serve --workers N` reaches each web process twice (from the sender,
then from Sanic's manager): the second `loop.stop()` cut the first one's before_server_stop
listeners short, and the embedded jobs' threads they had not stopped kept the process alive.

Here a handler of ours takes both signals from the first before_server_start listener on, takes
them back from Sanic's in the first after_server_start listener, and again in the first
before_server_stop listener (Sanic resets them to their defaults when serving ends). The first
signal asks for the stop: at once if the server is serving, else as soon as it is (looked at
every STOP_CHECK_SECONDS); later ones change nothing once the shutdown has begun, and ask again
while the server still serves (a first stop that did not take: under load, a signal at the very
start is still lost now and then, the cause not yet found, and a supervisor that asks again must
be heard). Left to Sanic: a signal in the instant
between its handlers' installation and our first after_server_start listener, when the loop does
not run.
"""

from __future__ import annotations

import asyncio
import logging
import signal

from sanic import Sanic

__all__ = ["stop_once", "STOP_CHECK_SECONDS"]

log = logging.getLogger("commerce.web")

STOP_CHECK_SECONDS = 0.05  # between looks at whether a stop asked during start-up can be done
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_FIRST = 1000  # start-up listeners run by priority, highest first; shutdown ones the other way


def stop_once(app: Sanic) -> None:
    """Ask for `app`'s stop once, on the first SIGINT or SIGTERM after its server starts."""
    asked = stopping = False

    def ask(signum: int) -> None:
        nonlocal asked
        name = signal.Signals(signum).name
        if asked and (stopping or not app.state.is_running):
            log.info("%s received while stopping: the stop goes on", name)
            return
        if asked:  # still serving, its shutdown not begun: the first stop did not take
            log.warning("%s received again while the server still serves: stopping again", name)
        asked = True
        log.info("%s received: stopping", name)
        stop_when_serving()

    def stop_when_serving() -> None:
        # Sanic marks the app running between the start-up listeners' run and the loop's
        # run_forever: only there does `app.stop()` end the serving.
        if app.state.is_running:
            app.stop(terminate=False)
        else:
            asyncio.get_running_loop().call_later(STOP_CHECK_SECONDS, stop_when_serving)

    async def take_signals(app: Sanic) -> None:
        loop = asyncio.get_running_loop()
        for signum in _SIGNALS:
            loop.add_signal_handler(signum, ask, signum)

    app.register_listener(take_signals, "before_server_start", priority=_FIRST)
    app.register_listener(take_signals, "after_server_start", priority=_FIRST)
    async def shutdown_begins(app: Sanic) -> None:
        nonlocal stopping
        stopping = True

    app.register_listener(take_signals, "before_server_stop", priority=-_FIRST)
    app.register_listener(shutdown_begins, "before_server_stop", priority=-_FIRST)

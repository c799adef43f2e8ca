"""A web process's stop: asked by SIGTERM or SIGINT at any time once its server starts, done once.

Sanic's `_serve_http_1` (sanic/server/runners.py) answers on the port from the moment it creates
the server, leaves SIGTERM at its default (the process ends at once, without its shutdown) until
it installs its own handlers, then runs the after_server_start listeners in a
`run_until_complete`. Its handlers call `app.stop()`, so `loop.stop()`: during that run, this
stops the run only, and the process then serves on until SIGKILL. `commerce start` printed its
banner in that window (once /health answered), so a supervisor that
stopped it as soon as it was told it listens was ignored, or cut short. And a SIGTERM to the
process group under `commerce serve --workers N` reaches each web process twice (from the sender,
then from Sanic's manager): the second `loop.stop()` cut the first one's before_server_stop
listeners short, and the embedded jobs' threads they had not stopped kept the process alive.

A handler registered with `loop.add_signal_handler` has a third gap: uvloop (Sanic's loop when it
is installed) reads signals only while the loop runs. Between two runs (after the
after_server_start listeners' `run_until_complete`, before `run_forever`) it hands the wake-up
descriptor back, so a signal then only marks itself pending, and its handler runs when a later
signal arrives: a SIGTERM sent just after the banner, on a busy machine, was held until a second
one came. So the handler here is a plain `signal.signal` one: Python runs it in the main thread
whether the loop runs or not, and it hands the stop to the loop with `call_soon_threadsafe`, which
wakes the loop now or when it next runs. Sanic's handlers are taken out of the loop's table.

It takes both signals from the first before_server_start listener on, takes them back from
Sanic's in the first after_server_start listener, and again in the first before_server_stop
listener (Sanic resets them to their defaults when serving ends). The first signal asks for the
stop: at once if the server is serving, else as soon as it is (looked at every
STOP_CHECK_SECONDS); later ones change nothing once the shutdown has begun, and ask again while
the server still serves (a supervisor that asks again must be heard). Left to Sanic: a signal in
the instant between its handlers' installation and our first after_server_start listener; it begins
by setting both signals to SIG_IGN, so such a signal is lost. The server answers on the port by
then, so with one web process the banner waits until the app serves (workers/cli.py): a stop sent
on it cannot fall in that instant.
"""

from __future__ import annotations

import asyncio
import logging
import signal

from sanic import Sanic

__all__ = ["stop_once", "take_signals_on", "STOP_CHECK_SECONDS"]

log = logging.getLogger("commerce.web")

STOP_CHECK_SECONDS = 0.05  # between looks at whether a stop asked during start-up can be done
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_FIRST = 1000  # start-up listeners run by priority, highest first; shutdown ones the other way


def take_signals_on(loop: asyncio.AbstractEventLoop, ask) -> None:
    """SIGINT and SIGTERM call `ask(signum)` on `loop`, even one that arrives while the loop is
    between two runs; handlers in the loop's own table for them are removed."""

    def on_signal(signum: int, frame) -> None:
        if loop.is_closed():  # served and closed: nothing is left to stop
            return
        try:
            loop.call_soon_threadsafe(ask, signum)
        except RuntimeError:  # closed in between
            pass

    for signum in _SIGNALS:
        loop.remove_signal_handler(signum)
        signal.signal(signum, on_signal)


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
        take_signals_on(asyncio.get_running_loop(), ask)

    app.register_listener(take_signals, "before_server_start", priority=_FIRST)
    app.register_listener(take_signals, "after_server_start", priority=_FIRST)
    async def shutdown_begins(app: Sanic) -> None:
        nonlocal stopping
        stopping = True

    app.register_listener(take_signals, "before_server_stop", priority=-_FIRST)
    app.register_listener(shutdown_begins, "before_server_stop", priority=-_FIRST)

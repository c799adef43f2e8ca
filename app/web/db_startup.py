"""Start-up work that needs the database, when the database is not there yet.

A web process starts whether or not PostgreSQL accepts connections (restarting, failing over, at
its connection limit): requests that need it meanwhile answer 503 with Retry-After, as during any
outage (services/core/db_outages.py, app/web/errors.py), and `/health` answers. Work the process
does once at start (registering the payment providers' rows) runs again in the background, with
one log line per failed attempt, until the database answers. A fault that is not the database's
passing trouble (a wrong password, a bug) still fails the start, with its reason.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from sanic import Sanic

from services.core.db_outages import transient

__all__ = ["when_database_answers", "stop_trying", "ATTEMPT_SECONDS"]

log = logging.getLogger("commerce.startup")

ATTEMPT_SECONDS = 5.0  # one attempt's limit: a server that accepts and never answers must not hold the start
_FIRST_PAUSE, _LONGEST_PAUSE = 1.0, 15.0  # seconds between attempts, doubling


async def when_database_answers(app: Sanic, what: str, work: Callable[[], Awaitable[None]]) -> None:
    """Run `work` now; if the database cannot be reached, start anyway and run it in the
    background until it can. `what` names the work in the log lines."""
    error = await _attempt(work)
    if error is None:
        return
    log.warning("database unreachable at start (%s): serving anyway, requests that need it answer 503; "
                "%s: retrying in %.0f s", error, what, _FIRST_PAUSE)
    task = asyncio.get_running_loop().create_task(_until_done(what, work), name=f"startup: {what}")
    app.ctx.startup_tasks = [*getattr(app.ctx, "startup_tasks", []), task]


def stop_trying(app: Sanic) -> None:
    """At stop: start-up work still waiting for the database is given up."""
    for task in getattr(app.ctx, "startup_tasks", []):
        task.cancel()


async def _attempt(work: Callable[[], Awaitable[None]]) -> str | None:
    """None when `work` ran; the reason when the database could not be reached."""
    try:
        await asyncio.wait_for(work(), ATTEMPT_SECONDS)
        return None
    except TimeoutError:
        return f"no answer within {ATTEMPT_SECONDS:.0f} s"
    except Exception as e:
        if not transient(e):
            raise
        return f"{type(e).__name__}: {e}"


async def _until_done(what: str, work: Callable[[], Awaitable[None]]) -> None:
    pause, attempt = _FIRST_PAUSE, 1
    while True:
        await asyncio.sleep(pause)
        attempt += 1
        try:
            error = await _attempt(work)
        except Exception:  # a real fault now that the database answers: logged, not retried
            log.exception("%s failed", what)
            return
        if error is None:
            log.info("database reachable: %s done (attempt %d)", what, attempt)
            return
        pause = min(pause * 2, _LONGEST_PAUSE)
        log.warning("database still unreachable (%s): %s: attempt %d failed, next in %.0f s",
                    error, what, attempt, pause)

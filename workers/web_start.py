"""`commerce serve --workers N` when a web process cannot start: the reason in one line, and only
this server's own processes stopped.

Sanic's manager, when a web process fails to start (or has not acknowledged its start within its
limit), logs "Not all workers acknowledged a successful startup" and SIGKILLs the process group of
each web process (`os.killpg`): the group `commerce serve` was started in, which, from a shell
script or a terminal without job control, also holds a `commerce worker` and `commerce scheduler`
started beside it. Here each web process records the exception that ended its start in the
processes' shared state (Sanic's worker state), the manager logs the first one in one line, and
kills its own web processes only.
"""

from __future__ import annotations

import logging
import os
import signal
import time
import traceback
from contextlib import suppress
from pathlib import Path

from sanic import Sanic
from sanic.exceptions import ServerKilled
from sanic.worker.constants import ProcessState
from sanic.worker.manager import WorkerManager

__all__ = ["OwnProcessesManager", "record_start_failure", "describe"]

log = logging.getLogger("commerce.web")

_KEY = "commerce_start_failure"
_ROOT = Path(__file__).resolve().parents[1]


def describe(error: BaseException) -> str:
    """One line: the exception, and the innermost line of this project's code it came through."""
    where = ""
    for frame in traceback.extract_tb(error.__traceback__):
        path = Path(frame.filename).resolve()
        if path.is_relative_to(_ROOT) and "site-packages" not in path.parts:
            where = f" (at {path.relative_to(_ROOT)}:{frame.lineno} in {frame.name})"
    text = " ".join(str(error).split()) or "no message"
    return f"{type(error).__name__}: {text[:300]}{where}"


class _StartFailure(logging.Handler):
    """On Sanic's error logger until the process has started: the exception that ends a start
    goes to the shared state, for the manager to tell."""

    def __init__(self, app: Sanic):
        super().__init__(logging.ERROR)
        self.app = app

    def emit(self, record: logging.LogRecord) -> None:
        multiplexer = getattr(self.app, "multiplexer", None)
        if not record.exc_info or record.exc_info[1] is None or multiplexer is None:
            return
        try:
            multiplexer.state[_KEY] = (time.time(), describe(record.exc_info[1]))
        except Exception:  # the manager is gone: nobody to tell
            pass


def record_start_failure(app: Sanic) -> None:
    """In each web process: remember why its start failed, until it has started."""
    handler = _StartFailure(app)
    errors = logging.getLogger("sanic.error")
    errors.addHandler(handler)

    @app.after_server_start
    async def started(app: Sanic):
        errors.removeHandler(handler)


class OwnProcessesManager(WorkerManager):
    """Sanic's manager, which on a failed start says why and kills only its own processes."""

    def kill(self):
        failures = sorted(
            state[_KEY] for state in list(self.worker_state.values())
            if isinstance(state, dict) and state.get(_KEY)
        )
        if failures:
            log.error("a web process could not start: %s", failures[0][1])
        for process in self.processes:
            log.info("Killing %s [%s]", process.name, process.pid)
            with suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
        # Marked ended once gone, else Sanic waits 10 s for them and warns that some may still run.
        deadline = time.monotonic() + 5
        for process in self.processes:
            while process.is_alive() and time.monotonic() < deadline:
                time.sleep(0.05)
            if not process.is_alive():
                with suppress(Exception):
                    process.set_state(ProcessState.TERMINATED, force=True)
        raise ServerKilled

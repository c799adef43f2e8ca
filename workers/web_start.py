"""`commerce serve --workers N`'s main process: when a web process cannot start, the reason in one
line and only this server's own processes stopped; when it is asked to stop, a clean stop (exit 0)
whenever the signal comes.

Sanic's manager, when a web process fails to start (or has not acknowledged its start within its
limit), logs "Not all workers acknowledged a successful startup" and SIGKILLs the process group of
each web process (`os.killpg`): the group `commerce serve` was started in, which, from a shell
script or a terminal without job control, also holds a `commerce worker` and `commerce scheduler`
started beside it. Here each web process records the exception that ended its start in the
processes' shared state (Sanic's worker state), the manager logs the first one in one line, and
kills its own web processes only.

A SIGTERM to the process group (a supervisor's stop, Ctrl-C in a terminal) reaches every process
in it, and so the process that keeps that shared state (a `multiprocessing` manager, which Sanic
starts with the default handlers): it died at once, the main process's next look at the state
broke its pipe, and `commerce serve` ended with 1 on a stop it was asked for. That process now
ignores SIGINT and SIGTERM (`shared_state_manager`) and ends when the main process shuts it down,
as it does after the web processes have stopped, or dies with it. And a stop asked while the web
processes start ends the manager's wait for their start: Sanic's waited on until its limit, then
took the stopped processes for a failed start and exited with 1.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time
import traceback
from contextlib import suppress
from multiprocessing.managers import SyncManager
from pathlib import Path

from sanic import Sanic
from sanic.exceptions import ServerKilled
from sanic.worker.constants import ProcessState
from sanic.worker.manager import WorkerManager

from workers.parent_death import on_parent_death

__all__ = ["OwnProcessesManager", "record_start_failure", "describe", "shared_state_manager"]

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


def _keep_state(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    on_parent_death(signal.SIGKILL, parent)  # a main process killed outright leaves nothing behind


def shared_state_manager() -> SyncManager:
    """What Sanic's `multiprocessing.Manager()` is, in a process that a signal to the group does
    not end (see the module's docstring): Sanic shuts it down once the web processes have ended,
    and it dies with the main process."""
    manager = SyncManager(ctx=multiprocessing.get_context())
    manager.start(_keep_state, (os.getpid(),))
    return manager


class OwnProcessesManager(WorkerManager):
    """Sanic's manager, which on a failed start says why and kills only its own processes, and
    takes a stop asked during the start for a stop."""

    def _all_workers_ack(self) -> bool:
        # Sanic's wait for the starts looks here: once a stop is asked, there is nothing to wait for.
        return self._shutting_down or super()._all_workers_ack()

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

"""Dramatiq middleware that keeps each job's outbox row true: claimed before it runs (a
duplicate delivery is skipped), beaten while it runs (so a worker's death is noticed within
JOB_TAKEOVER_SECONDS), then succeeded, retrying or failed with the last error.

It also knows which jobs are in flight in this process, so a worker that stops before they
finish gives them back (`give_back_unfinished`) instead of leaving them to the takeover."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass

from dramatiq import Middleware
from dramatiq.asyncio import get_event_loop_thread
from dramatiq.middleware import Shutdown, SkipMessage

from services.core import outbox

__all__ = ["JobTracking"]

log = logging.getLogger("commerce.jobs")


def _run(coro, timeout: float | None = None):
    if timeout is None:
        return get_event_loop_thread().run_coroutine(coro)
    loop = get_event_loop_thread().loop
    return asyncio.run_coroutine_threadsafe(asyncio.wait_for(coro, timeout), loop).result(timeout + 0.1)


def _interrupted(exception: BaseException | None) -> bool:
    """Stopped by a stopping worker: Dramatiq's Shutdown, or, when the actor's coroutine took more
    than a second to unwind after it, the RuntimeError Dramatiq raises from it."""
    return isinstance(exception, Shutdown) or isinstance(getattr(exception, "__cause__", None), Shutdown)


@dataclass
class _InFlight:
    job_id: str
    attempt: int
    beating: asyncio.Future
    started: float = 0.0


class JobTracking(Middleware):
    def __init__(self, heartbeat_seconds: float = 5.0, takeover_seconds: float = outbox.TAKEOVER_SECONDS):
        self.heartbeat_seconds, self.takeover_seconds = heartbeat_seconds, takeover_seconds
        self._in_flight: dict[str, _InFlight] = {}  # message id -> its job's claim
        self._lock = threading.Lock()

    def before_process_message(self, broker, message):
        job_id = message.options.get("job_id")
        outbox.running_claim.set(None)  # this thread's previous message's claim is over
        if not job_id:
            return
        attempt = _run(outbox.claim(job_id, self.takeover_seconds, retry_of=message.options.get("retries") or None))
        if attempt is None:
            log.info("job %s already ran, is running or was canceled; skipping duplicate message", job_id)
            raise SkipMessage()
        outbox.running_claim.set((job_id, attempt))  # the actor's coroutine is started from this thread
        loop = get_event_loop_thread().loop
        beating = asyncio.run_coroutine_threadsafe(self._beat(job_id, attempt), loop)
        with self._lock:
            self._in_flight[message.message_id] = _InFlight(job_id, attempt, beating, time.monotonic())
        log.info("job %s %s started (attempt %d)", job_id, message.actor_name, attempt,
                 extra={"job": {"id": job_id, "actor": message.actor_name, "attempt": attempt, "event": "started"}})

    async def _beat(self, job_id: str, attempt: int) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            try:
                if not await outbox.beat(job_id, attempt):
                    log.warning("job %s (attempt %d) is no longer this worker's: stopped beating", job_id, attempt)
                    return
            except Exception as e:  # the database is away for a moment: try again next beat
                log.warning("job %s heartbeat not recorded: %s", job_id, e)

    def _done(self, message) -> _InFlight | None:
        with self._lock:
            held = self._in_flight.pop(message.message_id, None)
        if held is not None:
            held.beating.cancel()
        return held

    def after_process_message(self, broker, message, *, result=None, exception=None):
        held = self._done(message)
        if held is None:
            return
        took = round((time.monotonic() - held.started) * 1000)
        interrupted = _interrupted(exception)
        outcome = "succeeded" if exception is None else "interrupted" if interrupted else (
            "failed" if message.failed else "retrying")
        fields = {"id": held.job_id, "actor": message.actor_name, "attempt": held.attempt, "event": outcome,
                  "duration_ms": took}
        if exception is None:
            log.info("job %s %s succeeded in %d ms", held.job_id, message.actor_name, took, extra={"job": fields})
        else:
            log.warning("job %s %s %s after %d ms: %s: %s", held.job_id, message.actor_name, outcome, took,
                        type(exception).__name__, exception, extra={"job": fields})
        if exception is None:
            done = _run(outbox.finish(held.job_id, result, attempt=held.attempt))
        elif interrupted:  # interrupted by a stopping worker: someone else resumes it
            done = _run(outbox.give_back(held.job_id, held.attempt, "interrupted: the worker was stopping"))
        else:
            error = f"{type(exception).__name__}: {exception}"
            done = _run(outbox.fail(held.job_id, error, final=message.failed, attempt=held.attempt))
        if not done:
            log.warning("job %s attempt %d ended after it was taken over; its outcome is not recorded",
                        held.job_id, held.attempt)

    def after_skip_message(self, broker, message):
        self._done(message)

    def give_back_unfinished(self, timeout: float | None = None) -> int:
        """Called by a stopping worker once its threads had their grace period: every job still
        in flight is made claimable again and re-sent (on this process's loop, still running),
        all within `timeout` seconds when given (the process exits at its deadline)."""
        with self._lock:
            unfinished, self._in_flight = list(self._in_flight.values()), {}
        deadline = None if timeout is None else time.monotonic() + timeout
        given = 0
        for held in unfinished:
            held.beating.cancel()
            left = None if deadline is None else max(0.05, deadline - time.monotonic())
            try:
                given += _run(outbox.give_back(held.job_id, held.attempt, "the worker stopped before the job finished"),
                              left)
            except Exception as e:  # the sweep takes it over once its heartbeat is old enough
                log.warning("job %s not given back: %s", held.job_id, e or type(e).__name__)
        if unfinished:
            log.info("worker stopping: %d unfinished job(s) given back to the queue", given)
        return given

"""Dramatiq middleware that keeps each job's outbox row true: claimed before it runs (a
duplicate delivery is skipped), then succeeded, retrying or failed with the last error."""

from __future__ import annotations

import logging

from dramatiq import Middleware
from dramatiq.asyncio import get_event_loop_thread
from dramatiq.middleware import SkipMessage

from jobs import outbox

__all__ = ["JobTracking"]

log = logging.getLogger("commerce.jobs")


def _run(coro):
    return get_event_loop_thread().run_coroutine(coro)


class JobTracking(Middleware):
    def before_process_message(self, broker, message):
        job_id = message.options.get("job_id")
        if job_id and not _run(outbox.claim(job_id)):
            log.info("job %s already ran or is running; skipping duplicate message", job_id)
            raise SkipMessage()

    def after_process_message(self, broker, message, *, result=None, exception=None):
        job_id = message.options.get("job_id")
        if not job_id:
            return
        if exception is None:
            _run(outbox.finish(job_id, result))
        else:
            _run(outbox.fail(job_id, f"{type(exception).__name__}: {exception}", final=message.failed))

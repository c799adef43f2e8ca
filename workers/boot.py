"""The module `dramatiq` loads in each worker process (`commerce worker`): broker, Tortoise on
the worker's event loop, the actors, and a clean stop.

A clean stop: on the first SIGTERM (to the parent, which forwards it, or to the whole group, which
delivers it twice) the process stops taking messages and gives its running jobs until
WORKER_GRACE_SECONDS to finish; batch-job runs are interrupted at once (they resume from their
last committed chunk elsewhere); jobs still running at the end are given back to the queue; the
process exits 0. A worker process whose parent died stops the same way."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import defaultdict


def _stops_once(handler):
    """Dramatiq's handler, called only while its process is still running (its `running` flag):
    a second call would exit the process at once, threads and all."""
    names = handler.__code__.co_freevars
    running = handler.__closure__[names.index("running")] if "running" in names else None

    def stop_once(signum, frame):
        if running is None or running.cell_contents:
            handler(signum, frame)
    return stop_once


# Dramatiq's handler in a worker process exits it on a second SIGTERM, and a signal to the group
# arrives twice (directly and forwarded by the parent), possibly while the process still boots.
# The guard goes in before the imports below, which take the longest of the boot.
_dramatiq_handler = signal.getsignal(signal.SIGTERM)
if getattr(_dramatiq_handler, "__qualname__", "") == "worker_process.<locals>.termhandler":
    signal.signal(signal.SIGTERM, _stops_once(_dramatiq_handler))

from dramatiq import Middleware  # noqa: E402
from dramatiq.asyncio import get_event_loop_thread  # noqa: E402
from dramatiq.common import iter_queue  # noqa: E402
from tortoise import Tortoise  # noqa: E402

from app.config import Settings  # noqa: E402
from services import files, webhooks  # noqa: E402
from services.payments import gateways  # noqa: E402
from workers.broker import load_actors, setup_broker  # noqa: E402
from workers.logs import configure_logging  # noqa: E402
from workers.tracking import JobTracking  # noqa: E402

__all__ = ["TortoiseInit", "GracefulStop"]

log = logging.getLogger("commerce.worker")


class TortoiseInit(Middleware):
    """Tortoise opens its pools on the loop that runs the actors (added after AsyncIO, so that
    loop exists by `before_worker_boot`) and closes them once the worker threads stopped (after
    hooks run in reverse: before AsyncIO stops the loop)."""

    def __init__(self, settings: Settings):
        self.settings = settings

    def before_worker_boot(self, broker, worker):
        get_event_loop_thread().run_coroutine(
            Tortoise.init(config=self.settings.tortoise_config(), _enable_global_fallback=True)
        )

    def after_worker_shutdown(self, broker, worker):
        get_event_loop_thread().run_coroutine(Tortoise.close_connections())


async def _cancel_leftovers(timeout: float) -> None:
    """Coroutines of jobs given back (their threads outlived the grace period): cancelled, so
    they stop before the connections close under them."""
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=timeout)


class GracefulStop(Middleware):
    """Added last: its `after_worker_shutdown` runs first, while the database is still open."""

    def __init__(self, grace_seconds: float, tracking: JobTracking):
        self.grace_seconds, self.tracking = grace_seconds, tracking
        self._stopping = threading.Event()
        self._worker = None

    def before_worker_boot(self, broker, worker):
        self._worker = worker

    def after_process_boot(self, broker):
        # Dramatiq's own handler stops the worker on the first SIGTERM and calls sys.exit on the
        # second, which hangs a process whose threads are still running: a signal to the group
        # reaches each worker process twice (directly and forwarded by the parent).
        first = signal.getsignal(signal.SIGTERM)

        def on_term(signum, frame):
            if self._stopping.is_set():
                return
            self._stopping.set()
            log.info("worker process stopping: %.0f s for running jobs", self.grace_seconds)
            threading.Thread(target=self._deadline, name="stop-deadline", daemon=True).start()
            if callable(first):
                first(signum, frame)

        signal.signal(signal.SIGTERM, on_term)
        if hasattr(signal, "SIGHUP"):
            signal.signal(signal.SIGHUP, on_term)
        # The parent that forked this process, even if it died before this line ran.
        parent = multiprocessing.parent_process()
        watched = parent.pid if parent is not None else os.getppid()
        threading.Thread(target=self._watch_parent, args=(watched,), name="parent-watch", daemon=True).start()

    def _watch_parent(self, parent: int) -> None:
        while not self._stopping.is_set():
            if os.getppid() != parent:  # the parent died (kill -9): no orphan keeps taking jobs
                log.warning("worker process's parent %d is gone: stopping", parent)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            time.sleep(0.5)

    def _deadline(self) -> None:
        """The last resort: shortly before the grace period ends, jobs still running are given
        back (the loop still runs: it stops only once the worker has shut down), then whatever
        still holds the process is ended."""
        margin = min(1.5, self.grace_seconds / 4)
        time.sleep(self.grace_seconds - margin)
        self._stop_taking(wait=margin / 2)
        if get_event_loop_thread() is not None:
            try:
                self.tracking.give_back_unfinished()
            except Exception as e:  # the sweep takes them over once their heartbeat is old enough
                log.warning("unfinished jobs not given back: %s", e)
        time.sleep(margin / 2)
        self._stop_taking(wait=0)  # a consumer that outlived the first wait fetched at most once more
        log.warning("worker process did not stop within %.0f s: exiting", self.grace_seconds)
        logging.shutdown()
        os._exit(0)

    def _stop_taking(self, wait: float) -> None:
        """Dramatiq stops its consumers only once every worker thread has stopped (and under load
        its stop may not have begun at all), so while a job holds a thread past the grace period
        they keep fetching: a message given back now could be fetched by this very process and
        die with it, left for the broker's dead-worker sweep minutes later. So the threads and
        consumers stop first, and what was fetched but not taken goes back to the broker."""
        worker = self._worker
        if worker is None:
            return
        for thread in worker.workers:  # idle threads take nothing more (dramatiq's stop may not have run yet)
            thread.stop()
        consumers = list(worker.consumers.values())
        for consumer in consumers:
            consumer.stop()
        deadline = time.monotonic() + wait
        for consumer in consumers:
            consumer.join(max(0.0, deadline - time.monotonic()))
        fetched = defaultdict(list)
        for item in iter_queue(worker.work_queue):
            fetched[item.message.queue_name].append(item.message)
        for queue_name, messages in fetched.items():
            try:
                worker.consumers[queue_name].requeue_messages(messages)
            except Exception as e:  # the broker's own sweep returns them later
                log.warning("%d fetched message(s) of %s not returned: %s", len(messages), queue_name, e)

    def after_worker_shutdown(self, broker, worker):
        loop = get_event_loop_thread()
        if loop is None:
            return
        if self.tracking.give_back_unfinished():
            loop.run_coroutine(_cancel_leftovers(timeout=2.0))


configure_logging()
settings = Settings.from_env()
files.configure(settings)  # the worker process's file storage (imports, exports)
webhooks.configure(settings)  # which addresses webhooks may reach, timeouts
gateways.configure(settings)  # the gateways the worker's jobs call (Stripe's webhook, the sweeps)
broker = setup_broker(settings)
broker.add_middleware(TortoiseInit(settings))
broker.add_middleware(GracefulStop(settings.worker_grace_seconds, next(
    m for m in broker.middleware if isinstance(m, JobTracking)
)))
load_actors()

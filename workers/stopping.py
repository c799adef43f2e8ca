"""A worker process's clean stop, on the first SIGTERM (to the parent, which forwards it, or to
the whole group, which delivers it twice) or when its parent died.

At the signal the process takes nothing more: its consumers stop fetching, its idle threads stop,
and the messages it had fetched but not started go back to their queues at once, for the other
worker processes (one that kept fetching until its running jobs ended held what it fetched to
its deadline, and took back the very jobs it gave back). Running jobs get until
WORKER_GRACE_SECONDS to finish; batch-job runs are interrupted at once (they resume from their
last committed chunk elsewhere). Shortly before the grace ends, jobs still running are given back
and the process exits 0: each step is bounded by the deadline, counted from the signal."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import defaultdict

from dramatiq import Message, Middleware
from dramatiq.asyncio import get_event_loop_thread
from dramatiq.common import iter_queue
from dramatiq.middleware import SkipMessage

from workers.parent_death import on_parent_death
from workers.tracking import JobTracking
from workers.wakeups import WakingRedisBroker

__all__ = ["GracefulStop"]

log = logging.getLogger("commerce.worker")


async def _cancel_leftovers(timeout: float) -> None:
    """Coroutines of jobs given back (their threads outlived the grace period): cancelled, so
    they stop before the connections close under them."""
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=timeout)


class GracefulStop(Middleware):
    """Added last: its `after_worker_shutdown` runs first, while the database is still open. Its
    `edges` goes first in the chain (`broker.add_middleware(stop.edges, before=JobTracking)`)."""

    def __init__(self, grace_seconds: float, tracking: JobTracking):
        self.grace_seconds, self.tracking = grace_seconds, tracking
        self.stopping = threading.Event()
        self.edges = _Edges(self)
        self._signaled = 0.0
        self._worker = None
        self._parent = os.getppid()
        self._reported = threading.Lock()

    @property
    def exit_at(self) -> float:
        """When the process exits at the latest (monotonic): before the grace ends, by what the
        parent takes to see it gone and exit."""
        return self._signaled + self.grace_seconds - min(1.0, self.grace_seconds / 10)

    def before_worker_boot(self, broker, worker):
        self._worker = worker

    def after_worker_boot(self, broker, worker):
        if self.stopping.is_set():  # the signal came while the worker booted
            self._stop_fetching()
        # Booted: the parent's death now stops this process cleanly (it died outright until now).
        on_parent_death(signal.SIGTERM, self._parent)

    def after_process_boot(self, broker):
        # Dramatiq's own handler stops the worker on the first SIGTERM and calls sys.exit on the
        # second, which hangs a process whose threads are still running: a signal to the group
        # reaches each worker process twice (directly and forwarded by the parent).
        first = signal.getsignal(signal.SIGTERM)

        def on_term(signum, frame):
            if self.stopping.is_set():
                return
            self._signaled = time.monotonic()
            self.stopping.set()
            self._stop_fetching()  # before the line below: a message sent after it is not fetched here
            log.info("worker process stopping: it takes no more messages; %.0f s for running jobs",
                     self.grace_seconds)
            threading.Thread(target=self._stop, name="stop", daemon=True).start()
            if callable(first):
                first(signum, frame)

        signal.signal(signal.SIGTERM, on_term)
        if hasattr(signal, "SIGHUP"):
            signal.signal(signal.SIGHUP, on_term)
        # The parent that forked this process, even if it died before this line ran.
        parent = multiprocessing.parent_process()
        self._parent = parent.pid if parent is not None else os.getppid()

    def _stop_fetching(self) -> None:
        """Flags only (this runs in the signal handler): each consumer ends once its current
        fetch or wait for a wake-up returns, each idle thread once its wait for work does."""
        worker = self._worker
        if worker is None:
            return
        for thread in (*worker.consumers.values(), *worker.workers):
            thread.stop()

    def _stop(self) -> None:
        """At once, what was fetched goes back; shortly before the deadline, what still runs;
        at the deadline, the process ends whatever holds it."""
        given = self._give_back_fetched(wait=min(2.0, self.grace_seconds / 4))
        if given:
            log.info("worker process stopping: %d fetched message(s) given back to the queue", given)
        time.sleep(max(0.0, self.exit_at - min(1.5, self.grace_seconds / 5) - time.monotonic()))
        self._give_back_fetched(wait=0)  # a consumer that outlived the first wait
        if get_event_loop_thread() is not None:
            try:
                self.tracking.give_back_unfinished(timeout=max(0.05, self.exit_at - time.monotonic()))
            except Exception as e:  # the sweep takes them over once their heartbeat is old enough
                log.warning("unfinished jobs not given back: %s", e)
        if self._report("jobs still running at its deadline"):
            logging.shutdown()
            os._exit(0)

    def _give_back_fetched(self, wait: float) -> int:
        """Everything fetched and not started goes back to the broker: the work queue, and once
        a consumer has stopped (each gets until `wait` seconds from now), its prefetched and
        delayed messages."""
        worker = self._worker
        if worker is None:
            return 0
        consumers = list(worker.consumers.values())
        deadline = time.monotonic() + wait
        for consumer in consumers:
            consumer.join(max(0.0, deadline - time.monotonic()))
        messages = [item.message for item in iter_queue(worker.work_queue)]
        for thread in consumers:
            if thread.is_alive():  # still in a fetch: what it holds is not safe to read
                continue
            messages += [item.message for item in iter_queue(thread.delay_queue)]
            cache = getattr(thread.consumer, "message_cache", None)
            if cache:
                thread.consumer.message_cache = []
                messages += [Message.decode(data) for data in cache if data is not None]
        return self.give_back(messages)

    def give_back(self, messages) -> int:
        """Fetched messages back to their queues, for other processes (this one fetches no more)."""
        by_queue = defaultdict(list)
        for message in messages:
            by_queue[message.queue_name].append(message)
        for queue_name, fetched in by_queue.items():
            try:
                self._worker.consumers[queue_name].requeue_messages(fetched)
                broker = self._worker.broker
                if isinstance(broker, WakingRedisBroker):
                    broker.wake(queue_name)
            except Exception as e:  # the broker returns them once this process is silent (workers/liveness.py)
                log.warning("%d fetched message(s) of %s not given back: %s", len(fetched), queue_name, e)
        return len(messages)

    def _report(self, why: str) -> bool:
        """Log how long the stop took, once; False when it was already reported (exiting)."""
        if not self._reported.acquire(blocking=False):
            return False
        log.info("worker process stopped %.2f s after the signal (grace %.0f s)%s",
                 time.monotonic() - self._signaled, self.grace_seconds, f": {why}" if why else "")
        return True

    def after_worker_shutdown(self, broker, worker):
        loop = get_event_loop_thread()
        if loop is None:
            return
        if self.tracking.give_back_unfinished(timeout=max(0.05, self.exit_at - time.monotonic())):
            loop.run_coroutine(_cancel_leftovers(timeout=min(2.0, max(0.05, self.exit_at - time.monotonic()))))


class _Edges(Middleware):
    """The stop's hooks that must run first: while stopping, a message a thread takes goes back
    instead of running (before JobTracking claims it); and, its after-hook running last, the
    report of a stop once everything else has shut down."""

    def __init__(self, stop: GracefulStop):
        self.stop = stop

    def before_process_message(self, broker, message):
        if self.stop.stopping.is_set():
            self.stop.give_back([message])
            raise SkipMessage()

    def after_worker_shutdown(self, broker, worker):
        if self.stop.stopping.is_set():
            self.stop._report("")

"""Embedded mode: Dramatiq worker threads inside the web process, running actor coroutines on
the web server's own event loop, so actors and requests share one Tortoise
context and no second loop ever touches its connections."""

from __future__ import annotations

import asyncio
import logging
import threading

import dramatiq
from dramatiq.asyncio import EventLoopThread, set_event_loop_thread
from dramatiq.middleware import AsyncIO

__all__ = ["start_embedded_worker", "stop_embedded_worker"]

log = logging.getLogger("commerce.embedded")


class BorrowedLoop(EventLoopThread):
    """Dramatiq's loop thread interface over a loop someone else runs; never started."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        threading.Thread.__init__(self, name="borrowed-loop", daemon=True)
        self.loop, self.logger, self.interrupt_check_ival = loop, log, 0.1

    def stop(self):  # the loop belongs to the web server
        pass


def start_embedded_worker(
    broker: dramatiq.Broker, loop: asyncio.AbstractEventLoop, *, threads: int = 2, worker_timeout: int = 100
) -> dramatiq.Worker:
    broker.middleware[:] = [m for m in broker.middleware if not isinstance(m, AsyncIO)]
    set_event_loop_thread(BorrowedLoop(loop))
    if not getattr(broker, "_commerce_booted", False):  # their monitor threads start once a process
        broker.emit_after("process_boot")  # starts TimeLimit's and ShutdownNotifications' monitors
        broker._commerce_booted = True
    worker = dramatiq.Worker(broker, worker_threads=threads, worker_timeout=worker_timeout)
    worker.start()
    return worker


async def stop_embedded_worker(worker: dramatiq.Worker) -> None:
    # stop() joins threads that wait on this loop: it must run off the loop.
    await asyncio.to_thread(worker.stop)
    set_event_loop_thread(None)
    # Dramatiq leaves the stopped worker's middleware on the broker: a queue declared later would
    # start a consumer for that dead worker, which would take messages that nothing then runs.
    worker.broker.middleware[:] = [
        m for m in worker.broker.middleware
        if not (type(m).__name__ == "_WorkerMiddleware" and getattr(m, "worker", None) is worker)
    ]

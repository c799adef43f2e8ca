"""The module `dramatiq` loads in each worker process (`commerce worker`): broker, Tortoise on
the worker's event loop, the actors, the process's liveness on the broker (workers/liveness.py)
and a clean stop (workers/stopping.py)."""

from __future__ import annotations

import gc
import signal


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
from tortoise import Tortoise  # noqa: E402

from app.config import Settings  # noqa: E402
from app.shapes.completion import ApiAnswers  # noqa: E402
from services import setup  # noqa: E402
from workers.broker import load_actors, setup_broker  # noqa: E402
from workers.liveness import BrokerLiveness  # noqa: E402
from workers.logs import configure_logging  # noqa: E402
from workers.stopping import GracefulStop  # noqa: E402
from workers.tracking import JobTracking  # noqa: E402

__all__ = ["TortoiseInit", "FreezeBoot"]


class TortoiseInit(Middleware):
    """Tortoise opens its pools on the loop that runs the actors (added after AsyncIO, so that
    loop exists by `before_worker_boot`) and closes them once the worker threads stopped (after
    hooks run in reverse: before AsyncIO stops the loop)."""

    def __init__(self, settings: Settings):
        self.settings = settings

    def before_worker_boot(self, broker, worker):
        pool_size = self.settings.worker_pool_size(worker.worker_threads)
        get_event_loop_thread().run_coroutine(
            Tortoise.init(config=self.settings.tortoise_config(pool_size), _enable_global_fallback=True)
        )

    def after_worker_shutdown(self, broker, worker):
        get_event_loop_thread().run_coroutine(Tortoise.close_connections())


class FreezeBoot(Middleware):
    """Once the boot is done (Tortoise open, actors loaded): what it made lives as long as the
    process, so it leaves the cyclic collector's full passes, as the web server's start does
    (app/server.py). A long job's pages set those passes off, and each walked the whole boot:
    about a tenth of the order export's CPU."""

    def before_worker_boot(self, broker, worker):
        gc.collect()
        gc.freeze()


configure_logging()
settings = Settings.from_env()
setup.configure(settings, answers=ApiAnswers())  # every area the jobs read, the event subscribers
broker = setup_broker(settings)
broker.add_middleware(TortoiseInit(settings))
broker.add_middleware(BrokerLiveness(settings.job_takeover_seconds))
stop = GracefulStop(settings.worker_grace_seconds, next(m for m in broker.middleware if isinstance(m, JobTracking)))
broker.add_middleware(stop)
broker.add_middleware(stop.edges, before=JobTracking)
load_actors()
broker.add_middleware(FreezeBoot())  # last: after TortoiseInit opened the pools

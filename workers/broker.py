"""The broker every process uses: Redis when REDIS_URL is set, else Dramatiq's in-memory broker.
`setup_broker` must run before any actor module is imported (actors bind to the broker then)."""

from __future__ import annotations

import importlib
import logging

import dramatiq
from dramatiq.brokers.stub import StubBroker
from dramatiq.middleware import AsyncIO

from app.config import Settings
from services import plugins
from services.core.outbox import QUEUES
from services.plugins import PluginError, resolve
from workers.tracking import JobTracking
from workers.wakeups import WakingRedisBroker

__all__ = ["setup_broker", "load_actors", "ACTOR_MODULES", "QUEUES"]

ACTOR_MODULES = (
    "jobs.maintenance", "jobs.batch_jobs", "jobs.checkout", "jobs.notifications", "jobs.taxes", "jobs.events",
    "jobs.webhooks",
)


class _ResultsAreKept(logging.Filter):
    """Dramatiq warns that actor results are discarded without its Results middleware; ours
    are recorded on the job's outbox row by JobTracking, so the warning is noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "haven't added the Results middleware" not in record.getMessage()


def setup_broker(settings: Settings) -> dramatiq.Broker:
    if settings.redis_url:
        import redis

        client = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=2, socket_timeout=10)
        # A worker process silent this long is dead: what it had fetched goes back (workers/liveness.py).
        broker: dramatiq.Broker = WakingRedisBroker(
            client=client, namespace=settings.redis_namespace,
            heartbeat_timeout=int(settings.job_takeover_seconds * 1000),
        )
    else:
        broker = StubBroker()
    broker.add_middleware(AsyncIO())
    # First in the chain: Dramatiq runs "after" hooks in reverse, so JobTracking sees a message
    # only once Retries has decided whether it failed for good.
    tracking = JobTracking(settings.job_heartbeat_seconds, settings.job_takeover_seconds)
    broker.add_middleware(tracking, before=type(broker.middleware[0]))
    for queue in QUEUES:
        broker.declare_queue(queue)
    dramatiq.set_broker(broker)
    logging.getLogger("dramatiq.worker.WorkerThread").addFilter(_ResultsAreKept())
    return broker


def load_actors() -> None:
    """The core's actors, then the plugins' (services/core/plugins.py `Plugin.jobs`, the built-in
    Stripe plugin's among them), which services/setup.py configure loaded. A plugin's module that
    cannot be imported (an actor whose name another already has among the reasons) raises PluginError."""
    for module in ACTOR_MODULES:
        importlib.import_module(module)
    broker = dramatiq.get_broker()
    for active in plugins.current():
        for module in active.plugin.jobs:
            resolve(module, active.name)  # Dramatiq refuses an actor name another job has
            for name in broker.get_declared_actors():
                actor = broker.get_actor(name)
                if actor.fn.__module__ == module and actor.queue_name not in QUEUES:
                    raise PluginError(active.name, f"actor {name} is on queue {actor.queue_name!r}: the workers "
                                                   f"take {', '.join(QUEUES)}")

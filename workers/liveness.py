"""A worker process's liveness on the broker, and the return of what a dead one had fetched.

A worker process fetches more messages than it has threads; the broker keeps them aside as that
process's until it acknowledges them. Dramatiq's Redis broker counts a process dead after 60 s
without a command from it, and returns a dead one's messages to their queues only on a random one
command in a thousand: a message a killed worker had fetched but not started waited minutes.
Here each worker process beats every second (a quarter of the takeover time when shorter) and at
each beat returns, for one queue in turn, the messages of processes silent for
JOB_TAKEOVER_SECONDS (the broker's `heartbeat_timeout`): such a message is back in its queue
within the takeover time and one round of the queues. One returned while its process was only
slow runs once all the same: the job's claim decides who runs it (services.core.outbox)."""

from __future__ import annotations

import itertools
import logging
import threading
import time

from dramatiq import Middleware
from dramatiq.common import current_millis

from workers.wakeups import WakingRedisBroker

__all__ = ["BrokerLiveness", "return_from_dead_workers"]

log = logging.getLogger("commerce.worker")


def return_from_dead_workers(broker: WakingRedisBroker, queue_name: str) -> None:
    """Mark this process alive, and put the messages of `queue_name` fetched by processes silent
    for the broker's `heartbeat_timeout` back on it: Dramatiq's maintenance, run now rather than
    by chance (a `requeue` of no message, which does nothing else)."""
    broker.scripts["dispatch"](keys=[broker.namespace], args=[
        "requeue", current_millis(), queue_name, broker.broker_id, broker.heartbeat_timeout,
        broker.dead_message_ttl, 1, broker._max_unpack_size(),
    ])


class BrokerLiveness(Middleware):
    """Beats and returns dead processes' messages from a thread of each worker process, from its
    boot until it exits (a stopping process's running jobs stay its own)."""

    def __init__(self, takeover_seconds: float):
        self.beat_seconds = min(1.0, takeover_seconds / 4)

    def after_worker_boot(self, broker, worker):
        if isinstance(broker, WakingRedisBroker):
            threading.Thread(target=self._beat, args=(broker,), name="broker-liveness", daemon=True).start()

    def _beat(self, broker: WakingRedisBroker) -> None:
        queues = itertools.cycle(sorted(broker.get_declared_queues() | broker.get_declared_delay_queues()))
        failing = False
        while True:
            try:
                return_from_dead_workers(broker, next(queues))
                failing = False
            except Exception as e:  # Redis is away: the consumers say so too; try again next beat
                if not failing:
                    log.warning("broker heartbeat not recorded: %s", e)
                failing = True
            time.sleep(self.beat_seconds)

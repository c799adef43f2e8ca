"""Dramatiq's Redis broker with wake-ups: an idle consumer waits on a Redis list that every
enqueue pushes a token onto, instead of polling its queue every 50-100 ms.

With four queues and their delay queues, two worker processes polled Redis about 215 times a
second while idle: 5% of a core per process and Redis's own time, taken from the web processes
on a small machine. Waiting on the list costs one blocking call per consumer per `timeout`
(the worker timeout, 1 s), and a job starts as soon as its token arrives, which is sooner than
the polling did. A lost or surplus token costs at most one empty fetch or one timeout: the
tokens only say "look now", the queue itself stays Dramatiq's.
"""

from __future__ import annotations

import time

import redis
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.common import compute_backoff, current_millis, dq_name
from dramatiq.errors import ConnectionClosed

__all__ = ["WakingRedisBroker"]

# Enough tokens for every consumer of a queue to wake; more would only mean empty fetches.
TOKENS_KEPT = 16
# How often a consumer that cannot wait looks again (Dramatiq's backoff, capped here).
POLL_MS = 100


def _wake_key(namespace: str, queue_name: str) -> str:
    return f"{namespace}:{queue_name}.wake"


class WakingRedisBroker(RedisBroker):
    @property
    def consumer_class(self):
        return _WakingConsumer

    def do_enqueue(self, queue_name: str, *args):
        """Dramatiq's enqueue (its dispatch script, with the arguments its `_dispatch` gives it) and
        the queue's wake-up in one round trip, a pipeline: every job asked for (one or two an order
        placed) took two. A Redis that lost the script (a restart) gets it the usual way."""
        script = self.scripts["dispatch"]
        key = _wake_key(self.namespace, queue_name)
        arguments = (
            "enqueue", current_millis(), queue_name, self.broker_id, self.heartbeat_timeout, self.dead_message_ttl,
            self._should_do_maintenance("enqueue"), self._max_unpack_size(), *args,
        )
        with self.client.pipeline(transaction=False) as pipe:
            pipe.evalsha(script.sha, 1, self.namespace, *arguments)
            pipe.lpush(key, 1).ltrim(key, 0, TOKENS_KEPT - 1)
            enqueued = pipe.execute(raise_on_error=False)[0]
        if isinstance(enqueued, redis.exceptions.NoScriptError):
            enqueued = self._dispatch("enqueue")(queue_name, *args)  # loads the script
            self.wake(queue_name)  # the first wake-up came before the message
        elif isinstance(enqueued, Exception):
            raise enqueued
        return enqueued

    def wake(self, queue_name: str) -> None:
        """Tell the queue's idle consumers to look now."""
        key = _wake_key(self.namespace, queue_name)
        with self.client.pipeline(transaction=False) as pipe:
            pipe.lpush(key, 1).ltrim(key, 0, TOKENS_KEPT - 1).execute()


class _WakingConsumer(_RedisConsumer):
    """Dramatiq's consumer, with its idle sleep replaced by a wait for a token.

    It still sleeps (as Dramatiq does) while it holds as many messages as it may prefetch, and,
    on a delay queue, while it holds delayed messages: their thread re-enqueues them once due,
    between two calls of `__next__`, so those calls must keep coming."""

    def __init__(self, broker, queue_name, prefetch, timeout):
        super().__init__(broker, queue_name, prefetch, 0)  # the parent's miss then never sleeps
        self.wait_ms = timeout
        self.key = _wake_key(broker.namespace, queue_name)
        self.is_delay_queue = queue_name == dq_name(queue_name)

    def __next__(self):
        message = super().__next__()
        if message is not None:
            return message
        if self.outstanding_message_count >= self.prefetch or (self.is_delay_queue and self.queued_message_ids):
            self.misses, backoff_ms = compute_backoff(self.misses, max_backoff=min(POLL_MS, self.wait_ms))
            time.sleep(backoff_ms / 1000)
            return None
        try:
            self.broker.client.blpop([self.key], timeout=max(self.wait_ms / 1000, 0.01))
        except redis.ConnectionError as e:
            raise ConnectionClosed(e) from None
        return None

"""Idle job consumers wait for a wake-up instead of polling Redis, and still start work at once:
a job as soon as it is enqueued, a delayed job when it is due."""

import threading
import time

import dramatiq
import redis
from dramatiq.message import Message

from tests.conftest import NAMESPACE, REDIS_URL, requires_postgres
from workers.wakeups import WakingRedisBroker

pytestmark = requires_postgres("needs Redis (the PostgreSQL + Redis leg)")


def _broker(name: str) -> WakingRedisBroker:
    broker = WakingRedisBroker(client=redis.Redis.from_url(REDIS_URL), namespace=f"{NAMESPACE}-{name}")
    broker.declare_queue("q")
    return broker


def _counting_fetches(broker: WakingRedisBroker) -> list:
    calls: list = []
    fetch = broker._dispatch("fetch")

    def counted(*args):
        calls.append(time.monotonic())
        return fetch(*args)

    broker.do_fetch = counted
    return calls


def test_an_idle_consumer_waits_without_polling_and_an_enqueue_wakes_it():
    # Given a consumer of an empty queue that may wait 5 s for a wake-up
    broker = _broker("idle")
    fetches = _counting_fetches(broker)
    consumer = broker.consume("q", prefetch=1, timeout=5000)
    message = Message(queue_name="q", actor_name="noop", args=(), kwargs={}, options={})
    enqueued: list[float] = []

    def enqueue_later():
        time.sleep(1.5)
        enqueued.append(time.monotonic())
        broker.enqueue(message)

    # When a job is enqueued 1.5 s later
    threading.Thread(target=enqueue_later, daemon=True).start()
    started = time.monotonic()
    received = None
    while received is None and time.monotonic() - started < 10:
        received = next(consumer)
    arrived = time.monotonic()

    # Then the consumer looked twice (once idle, once woken), not at every step of a backoff,
    # and had the job within a fraction of its wait
    assert received is not None and received.message_id == message.message_id
    assert len(fetches) == 2
    assert arrived - enqueued[0] < 0.5
    consumer.ack(received)


def test_a_delayed_job_runs_when_due_though_idle_consumers_wait_long():
    # Given a worker whose idle consumers wait up to 2 s for a wake-up
    broker = _broker("delay")
    ran: list[float] = []
    done = threading.Event()

    @dramatiq.actor(broker=broker, queue_name="q", actor_name="stamp")
    def stamp():
        ran.append(time.monotonic())
        done.set()

    worker = dramatiq.Worker(broker, worker_threads=1, worker_timeout=2000)
    worker.start()
    try:
        time.sleep(0.3)  # the consumers are waiting
        # When a job is sent to run 0.5 s from now
        sent = time.monotonic()
        stamp.send_with_options(delay=500)

        # Then it runs once due, not after a 2 s wait of the delay queue's consumer
        assert done.wait(8)
        assert 0.5 <= ran[0] - sent < 1.5
    finally:
        worker.stop()

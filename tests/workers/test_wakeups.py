"""Idle job consumers wait for a wake-up instead of polling Redis, and still start work at once:
a job as soon as it is enqueued, a delayed job when it is due."""

import threading
import time

import dramatiq
import redis
from dramatiq.message import Message

from tests.conftest import NAMESPACE, PATIENCE, REDIS_URL, requires_postgres
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
        fetched = fetch(*args)
        calls.append(time.monotonic())  # once done: a message enqueued after it was not fetched by it
        return fetched

    broker.do_fetch = counted
    return calls


# How long an idle consumer here may wait for a wake-up (ms): far longer than any wake-up takes,
# however busy the machine, so a job arriving well within it was woken for, not found by a timeout.
LONG_WAIT_MS = 20_000


def test_an_idle_consumer_waits_without_polling_and_an_enqueue_wakes_it():
    # Given a consumer of an empty queue that may wait long for a wake-up
    broker = _broker("idle")
    fetches = _counting_fetches(broker)
    consumer = broker.consume("q", prefetch=1, timeout=LONG_WAIT_MS)
    message = Message(queue_name="q", actor_name="noop", args=(), kwargs={}, options={})
    enqueued: list[float] = []

    def enqueue_once_it_looked():
        deadline = time.monotonic() + PATIENCE
        while not fetches and time.monotonic() < deadline:
            time.sleep(0.01)
        enqueued.append(time.monotonic())
        broker.enqueue(message)

    # When a job is enqueued after it found the queue empty
    threading.Thread(target=enqueue_once_it_looked, daemon=True).start()
    started = time.monotonic()
    received = None
    while received is None and time.monotonic() - started < PATIENCE:
        received = next(consumer)
    arrived = time.monotonic()

    # Then the consumer looked twice (once idle, once woken), not at every step of a backoff,
    # and had the job long before its wait would have run out
    assert received is not None and received.message_id == message.message_id
    assert len(fetches) == 2
    assert arrived - enqueued[0] < LONG_WAIT_MS / 1000 / 2
    consumer.ack(received)


def test_a_delayed_job_runs_when_due_though_idle_consumers_wait_long():
    # Given a worker whose idle consumers wait long for a wake-up
    broker = _broker("delay")
    ran: list[float] = []
    done = threading.Event()

    @dramatiq.actor(broker=broker, queue_name="q", actor_name="stamp")
    def stamp():
        ran.append(time.monotonic())
        done.set()

    worker = dramatiq.Worker(broker, worker_threads=1, worker_timeout=LONG_WAIT_MS)
    worker.start()
    try:
        time.sleep(0.3)  # the consumers are waiting (or, on a busy machine, about to)
        # When a job is sent to run 0.5 s from now
        sent = time.monotonic()
        stamp.send_with_options(delay=500)

        # Then it runs once due (never before), not after the delay queue's consumer waited it out
        assert done.wait(PATIENCE)
        assert 0.5 <= ran[0] - sent < LONG_WAIT_MS / 1000 / 2
    finally:
        worker.stop()


def test_an_enqueue_is_one_round_trip_and_survives_a_redis_that_lost_its_scripts():
    # Given a broker whose script Redis does not know (as after a restart, here by a name Redis
    # never saw, so no other client's scripts are touched)
    broker = _broker("scripts")
    broker.scripts["dispatch"].sha = "0" * 40
    sent: list = []
    execute = redis.client.Pipeline.execute

    def counted(pipe, *args, **kwargs):
        sent.append(len(pipe.command_stack))
        return execute(pipe, *args, **kwargs)

    redis.client.Pipeline.execute = counted
    try:
        # When two jobs are enqueued
        for n in range(2):
            broker.enqueue(Message(queue_name="q", actor_name="noop", args=(n,), kwargs={}, options={}))
    finally:
        redis.client.Pipeline.execute = execute
    # I expect both queued, the second sent with its wake-up in one pipeline
    consumer = broker.consume("q", prefetch=2, timeout=100)
    got = []
    deadline = time.monotonic() + PATIENCE
    while len(got) < 2 and time.monotonic() < deadline:
        message = next(consumer)
        if message is not None:
            got.append(message.args[0])
            consumer.ack(message)
    consumer.close()
    assert sorted(got) == [0, 1] and sent[-1] == 3, sent

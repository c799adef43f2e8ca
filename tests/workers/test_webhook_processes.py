"""Webhook deliveries with real worker processes on PostgreSQL + Redis: a worker killed while a
receiver holds its delivery loses nothing; the delivery is made again, with the same id, by the
worker that takes over."""

import asyncio

import orjson

from models import Job, WebhookDelivery
from services.events.bus import emit
from services.webhooks.endpoints import create_endpoint
from tests.conftest import PATIENCE, requires_postgres, wait_for
from tests.jobs.test_broker_outage import private_redis  # noqa: F401 (fixture)
from tests.webhook_receiver import Receiver
from tests.workers.test_worker_lifecycle import _commerce, _kill_group

pytestmark = requires_postgres("needs PostgreSQL and Redis: worker processes share the database")


async def _until(predicate, timeout: float = PATIENCE):
    async def check():
        return predicate() or None

    return await wait_for(check, timeout=timeout, interval=0.05)


async def test_a_worker_killed_mid_delivery_delivers_again_with_the_same_id(private_redis):
    receiver = await Receiver().start()
    receiver.hold = asyncio.Event()
    url, logs, procs = private_redis.url, [], {}
    try:
        # Given a worker delivering an event to a receiver that took the request and has not answered
        receiver.hold.set()
        endpoint = await create_endpoint(receiver.url, ["order.placed"])
        event = await emit("order.placed", id="order_1", no_notification=None)
        procs["worker"] = _commerce("worker", "--processes", "1", "--threads", "2", redis_url=url)
        await _until(lambda: receiver.received)
        # When the worker's processes are killed mid-delivery, then a worker and the scheduler start again
        logs.append(_kill_group(procs.pop("worker")))
        receiver.hold.clear()
        procs["worker"] = _commerce("worker", "--processes", "1", "--threads", "2", redis_url=url)
        procs["scheduler"] = _commerce("scheduler", redis_url=url)
        # I expect it delivered (takeover is 2 s here)
        done = await wait_for(lambda: WebhookDelivery.get_or_none(endpoint_id=endpoint.id, status="succeeded"),
                              timeout=PATIENCE)
        await asyncio.sleep(1.0)  # room for a wrong third delivery to arrive
    finally:
        logs += [_kill_group(p) for p in procs.values()]
        await receiver.stop()
    # Twice received (the first answer never came back), once recorded, one id for both
    assert len(receiver.received) == 2, logs[-1][-2000:]
    assert {r.headers["webhook-id"] for r in receiver.received} == {event.id}
    assert all(orjson.loads(r.body)["data"] == {"id": "order_1", "no_notification": None} for r in receiver.received)
    assert done.attempts == 1 and await WebhookDelivery.all().count() == 1
    job = await Job.get(actor_name="deliver_webhook", args=[done.id])
    assert job.status == "succeeded" and job.attempts == 2

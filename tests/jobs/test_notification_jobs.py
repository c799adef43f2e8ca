"""Messages as jobs, run by a real (embedded) Dramatiq worker: nothing is lost while the broker is
down, a failed delivery is retried with backoff and shows its error, a duplicate sends once."""

import asyncio

import pytest

from services.core import outbox
from jobs.notifications import send_notification
from models import Event, Job, Notification
from services import notifications
from services.notifications.record import RecordProvider
from tests.account_factories import forget_rate_limits, recorder, sent_to
from tests.cart_factories import shopper
from tests.conftest import BROKER, SETTINGS, idle, wait_for
from workers.embedded import start_embedded_worker, stop_embedded_worker
from workers.scheduler import sweep_outbox


@pytest.fixture
async def worker():
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    yield w
    await stop_embedded_worker(w)


@pytest.fixture(autouse=True)
async def fresh_limits(client):
    yield
    await forget_rate_limits()


@pytest.fixture
def quick_retries(monkeypatch):
    """Backoff in milliseconds instead of seconds (Dramatiq reads the actor's options per retry)."""
    monkeypatch.setitem(send_notification.options, "min_backoff", 10)
    monkeypatch.setitem(send_notification.options, "max_backoff", 20)


class FailingFirst(RecordProvider):
    """A provider whose first `failures` sends fail, like a mail server that comes back."""

    id = "flaky"

    def __init__(self, failures: int):
        super().__init__()
        self.failures, self.errors = failures, []

    async def send(self, message):
        if self.failures > 0:
            self.failures -= 1
            self.errors.append(message.to)
            raise ConnectionRefusedError("mail server unreachable")
        await super().send(message)


async def _job(job_id: str, *statuses):
    job = await Job.get(id=job_id)
    return job if job.status in statuses else None


async def _note(*statuses):
    note = await Notification.first()
    return note if note is not None and note.status in statuses else None


async def test_a_reset_asked_for_while_the_broker_is_down_is_delivered_once_it_is_back(client, worker, monkeypatch):
    mailbox = recorder()
    customer, _ = await shopper(client)

    def refuse(message, *, delay=None):
        raise ConnectionError("broker unreachable")

    # Given the broker cannot be reached when the shopper asks for a reset
    monkeypatch.setattr(BROKER, "enqueue", refuse)
    r = await client.post("/store/customers/password-token", json={"email": customer.email})
    assert r.status_code == 204
    # (the request records its event, customer.password_reset; the message is written when it is heard)
    event = await Event.get(name="customer.password_reset")
    dispatching = await Job.get(actor_name="dispatch_event", args=[event.id])
    assert dispatching.status == "pending" and not await Notification.exists()
    monkeypatch.undo()

    # When the broker is back and the scheduler sweeps the outbox
    # (the dispatch of the event, whose notifications' subscriber asks for the message)
    assert await sweep_outbox(SETTINGS) == 1
    note = await wait_for(lambda: _note("sent"))

    # I expect one message, whose token resets the password
    [message] = sent_to(mailbox, customer.email)
    assert note.attempts == 1
    # and its job recorded as done (the worker records that just after the actor returns)
    [job] = await Job.filter(actor_name="send_notification")
    finished = await wait_for(lambda: _job(job.id, "succeeded", "failed"))
    assert finished.status == "succeeded"
    r = await client.post("/store/customers/password-reset", json={
        "email": customer.email, "token": message.data["token"], "password": "back-in-business"})
    assert r.status_code == 200


async def test_a_failed_delivery_is_retried_with_backoff_and_then_sent(client, worker, monkeypatch, quick_retries):
    flaky = FailingFirst(failures=2)
    monkeypatch.setattr(notifications, "_provider", flaky)
    customer, _ = await shopper(client)
    await client.post("/store/customers/password-token", json={"email": customer.email})
    note = await wait_for(lambda: _note("sent"))
    assert flaky.errors == [customer.email] * 2 and len(flaky.delivered) == 1
    assert (note.attempts, note.last_error, note.provider_id) == (3, None, "flaky")


async def test_a_delivery_that_keeps_failing_ends_failed_with_its_error(client, worker, monkeypatch, quick_retries):
    monkeypatch.setitem(send_notification.options, "max_retries", 1)
    monkeypatch.setattr(notifications, "_provider", FailingFirst(failures=99))
    customer, _ = await shopper(client)
    await client.post("/store/customers/password-token", json={"email": customer.email})
    note = await wait_for(lambda: _note("failed"))
    assert note.attempts == 2 and note.last_error == "ConnectionRefusedError: mail server unreachable"
    job = await wait_for(lambda: Job.get_or_none(actor_name="send_notification", status="failed"))
    assert job.last_error == "ConnectionRefusedError: mail server unreachable"


async def test_a_message_delivered_twice_to_the_worker_is_sent_once(client, worker):
    mailbox = recorder()
    customer, _ = await shopper(client)
    await client.post("/store/customers/password-token", json={"email": customer.email})
    await wait_for(lambda: _note("sent"))
    [job] = await Job.filter(actor_name="send_notification")
    # the same job's message arrives again, and the outbox row is re-sent by hand
    assert await outbox.send(job)
    await idle(worker)
    assert len(sent_to(mailbox, customer.email)) == 1

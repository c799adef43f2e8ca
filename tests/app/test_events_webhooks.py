"""Events, notifications and webhooks end to end, on both backends, with a real embedded worker,
a local SMTP sink and a local HTTP receiver: an order placed sends one confirmation email and one
signed `order.placed` delivery; a receiver that is down gets the delivery when it returns, with the
same id; `no_notification` stops the email but not the webhook; the order timeline lists what was
sent and resends it."""

from __future__ import annotations

import asyncio
import email
import time

import orjson
import pytest
from aiosmtpd.controller import Controller
from standardwebhooks.webhooks import Webhook

from models import Event, EventReceipt, Notification, ProductTag, WebhookDelivery, WebhookEndpoint
from services.core import clock
from services.events import subscribers
from services.events.bus import emit
from services.events.dispatch import SubscribersFailed, dispatch
from services.webhooks.delivery import queue_due
from services.webhooks.signing import verify
from tests.app.admin.test_order_operations import placed
from tests.conftest import BROKER, _free_port, configured, count_queries, idle, wait_for
from tests.draft_order_factories import new_draft, pay
from tests.webhook_receiver import Receiver
from workers.embedded import start_embedded_worker, stop_embedded_worker


class Sink:
    """An SMTP server keeping every message it is given."""

    def __init__(self):
        self.messages: list[email.message.Message] = []
        self.port = _free_port()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def sink():
    box = Sink()
    box.controller.start()
    # As a process started with SMTP_HOST: the built-in smtp plugin's provider sends
    with configured(smtp_host="127.0.0.1", smtp_port=box.port, smtp_tls="none", smtp_from="shop@example.com"):
        yield box
    box.controller.stop()


@pytest.fixture
async def worker():
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=4, worker_timeout=20)
    yield w
    await stop_embedded_worker(w)


@pytest.fixture
async def receiver():
    r = await Receiver().start()
    yield r
    await r.stop()


def now(check):
    """`check` (a plain function) as `wait_for` takes it."""
    async def predicate():
        return check()
    return predicate


async def hook(client, admin_headers, url: str, events: list[str], status: int = 200) -> dict:
    r = await client.post("/admin/webhooks", json={"url": url, "events": events, "description": "ERP"},
                          headers=admin_headers)
    assert r.status_code == status, r.text
    return r.json()


async def test_an_order_placed_sends_one_confirmation_and_one_signed_delivery(
    client, admin_headers, seeded, sink, worker, receiver,
):
    endpoint = (await hook(client, admin_headers, receiver.url, ["order.placed"]))["webhook"]
    assert endpoint["secret"].startswith("whsec_")
    order = await placed(client)
    await wait_for(now(lambda: len(receiver.received) == 1 and len(sink.messages) == 1))
    await idle(worker)
    assert len(receiver.received) == 1 and len(sink.messages) == 1
    # The delivery: Standard Webhooks headers, a signature both our verifier and the reference accept
    got = receiver.received[0]
    body = orjson.loads(got.body)
    assert (body["type"], body["data"]) == ("order.placed", {"id": order.id, "no_notification": None})
    event = await Event.get(name="order.placed")
    assert got.headers["webhook-id"] == event.id
    assert verify(endpoint["secret"], got.headers, got.body, int(time.time()))
    Webhook(endpoint["secret"]).verify(got.body, got.headers)
    assert not verify(endpoint["secret"], {**got.headers, "webhook-id": "evt_other"}, got.body, int(time.time()))
    # The email: to the shopper, plain text and HTML, the order's number and total
    mail = sink.messages[0]
    assert mail["To"] == order.email and f"#{order.display_id}" in mail["Subject"]
    parts = {p.get_content_type(): p.get_payload(decode=True).decode() for p in mail.walk() if not p.is_multipart()}
    assert set(parts) == {"text/plain", "text/html"}
    assert "Medusa Coffee" in parts["text/plain"] or "Total" in parts["text/plain"]
    # The order page's timeline lists it, and can send it again
    r = await client.get("/admin/notifications", params={"resource_id": order.id}, headers=admin_headers)
    [note] = r.json()["notifications"]
    assert (note["event_name"], note["to"]) == ("order.placed", order.email)
    r = await client.post(f"/admin/notifications/{note['id']}/resend", json={"to": "other@example.com"},
                          headers=admin_headers)
    assert r.status_code == 200, r.text
    await wait_for(now(lambda: len(sink.messages) == 2))
    assert sink.messages[1]["To"] == "other@example.com"
    # The admin sees the delivery and its attempt
    r = await client.get(f"/admin/webhooks/{endpoint['id']}/deliveries", headers=admin_headers)
    [delivery] = r.json()["deliveries"]
    assert (delivery["status"], delivery["attempts"], delivery["attempt_log"][0]["status_code"]) == (
        "succeeded", 1, 200)
    r = await client.get(f"/admin/webhooks/{endpoint['id']}", headers=admin_headers)
    assert r.json()["webhook"]["secret"] != endpoint["secret"] and "…" in r.json()["webhook"]["secret"]


async def test_a_receiver_that_is_down_gets_the_delivery_when_it_returns_with_one_id(
    client, admin_headers, seeded, worker, receiver,
):
    receiver.statuses = [503]
    endpoint = (await hook(client, admin_headers, receiver.url, ["*"]))["webhook"]
    order = await placed(client)
    delivery = await wait_for(lambda: WebhookDelivery.get_or_none(
        event_name="order.placed", status="retrying"))
    assert delivery.attempts == 1 and delivery.last_status_code == 503 and delivery.next_attempt_at > clock.now()
    # The receiver goes away altogether: the next attempt cannot connect
    await receiver.stop()
    await WebhookDelivery.filter(id=delivery.id).update(next_attempt_at=clock.now())
    assert await queue_due() == 1
    await wait_for(lambda: WebhookDelivery.get_or_none(id=delivery.id, status="retrying", attempts=2))
    assert "Connect" in (await WebhookDelivery.get(id=delivery.id)).last_error
    # It comes back: the due retry is delivered
    await receiver.start()
    await WebhookDelivery.filter(id=delivery.id).update(next_attempt_at=clock.now())
    assert await queue_due() == 1
    done = await wait_for(lambda: WebhookDelivery.get_or_none(id=delivery.id, status="succeeded"))
    assert done.attempts == 3 and [a["status_code"] for a in done.attempt_log] == [503, None, 200]
    event = await Event.get(name="order.placed")
    assert event.data["id"] == order.id
    ids = {r.headers["webhook-id"] for r in receiver.received if orjson.loads(r.body)["type"] == "order.placed"}
    assert ids == {event.id}
    # Redelivered by the admin: the same id again
    r = await client.post(f"/admin/webhooks/{endpoint['id']}/deliveries/{delivery.id}/redeliver",
                          headers=admin_headers)
    assert r.status_code == 200, r.text
    await wait_for(now(lambda: sum(orjson.loads(x.body)["type"] == "order.placed" for x in receiver.received) == 3))
    placed_ids = {x.headers["webhook-id"] for x in receiver.received if orjson.loads(x.body)["type"] == "order.placed"}
    assert placed_ids == {event.id}


async def test_no_notification_sends_no_email_but_still_delivers_the_webhook(
    client, admin_headers, seeded, sink, worker, receiver,
):
    await hook(client, admin_headers, receiver.url, ["order.placed"])
    draft = await new_draft(client, admin_headers, no_notification_order=True)
    r = await pay(client, admin_headers, draft)
    assert r.status_code == 200, r.text
    await wait_for(now(lambda: len(receiver.received) == 1))
    await idle(worker)
    assert orjson.loads(receiver.received[0].body)["data"]["no_notification"] is True
    assert sink.messages == [] and await Notification.filter(event_name="order.placed").count() == 0


async def test_a_410_disables_the_endpoint_and_a_rotated_secret_signs_with_both(
    client, admin_headers, seeded, worker, receiver,
):
    endpoint = (await hook(client, admin_headers, receiver.url, ["order.placed"]))["webhook"]
    r = await client.post(f"/admin/webhooks/{endpoint['id']}/rotate-secret", headers=admin_headers)
    rotated = r.json()["webhook"]
    assert rotated["secret"] != endpoint["secret"]
    await placed(client)
    await wait_for(now(lambda: len(receiver.received) == 1))
    got = receiver.received[0]
    assert len(got.headers["webhook-signature"].split()) == 2
    for secret in (endpoint["secret"], rotated["secret"]):
        assert verify(secret, got.headers, got.body, int(time.time()))
    receiver.statuses = [410]
    await placed(client)
    await wait_for(lambda: WebhookEndpoint.get_or_none(id=endpoint["id"], status="disabled"))
    r = await client.get(f"/admin/webhooks/{endpoint['id']}", headers=admin_headers)
    assert r.json()["webhook"]["disabled_reason"] == "the receiver answered 410 Gone"
    await placed(client)  # a disabled endpoint gets nothing more
    await idle(worker)
    assert len(receiver.received) == 2


async def test_webhook_endpoints_refuse_bad_urls_and_unknown_events(client, admin_headers, monkeypatch):
    from services import webhooks

    monkeypatch.setattr(webhooks, "_settings", webhooks.WebhookSettings(webhooks_allow_private=False))
    for url in ("http://127.0.0.1:9/x", "http://169.254.169.254/latest", "http://10.0.0.1/", "http://[::1]/",
                "ftp://example.com/", "file:///etc/passwd", "http://user:pw@example.com/", "not a url"):
        r = await client.post("/admin/webhooks", json={"url": url, "events": ["*"]}, headers=admin_headers)
        assert r.status_code == 400, (url, r.text)
    r = await client.post("/admin/webhooks", json={"url": "https://example.com/x", "events": ["order.teleported"]},
                          headers=admin_headers)
    assert (r.status_code, r.json()["message"]) == (400, "Unknown event names: order.teleported")
    r = await client.post("/admin/webhooks", json={"url": "https://example.com/x", "events": []},
                          headers=admin_headers)
    assert r.status_code == 400
    r = await client.get("/admin/webhooks")
    assert r.status_code == 401
    r = await client.get("/admin/webhooks/we_missing", headers=admin_headers)
    assert r.status_code == 404


async def test_a_failing_subscriber_is_retried_alone_and_each_runs_once(client):
    ran: list[str] = []

    async def steady(event):
        ran.append("steady")

    async def flaky(event):
        ran.append("flaky")
        if ran.count("flaky") == 1:
            raise RuntimeError("down for a moment")

    subscribers.subscribe("test-steady", ["product.created"], steady)
    subscribers.subscribe("test-flaky", "*", flaky)
    try:
        event = await emit("product.created", id="prod_1")
        with pytest.raises(SubscribersFailed):
            await dispatch(event.id)
        await dispatch(event.id)
        await dispatch(event.id)  # a duplicate message: nothing runs again
    finally:
        subscribers.unsubscribe("test-steady")
        subscribers.unsubscribe("test-flaky")
    assert ran == ["steady", "flaky", "flaky"]
    assert set(await EventReceipt.filter(event_id=event.id).values_list("subscriber_id", flat=True)) >= {
        "test-steady", "test-flaky"}
    assert (await Event.get(id=event.id)).dispatched_at is not None


async def test_a_dispatch_reads_its_event_and_receipts_in_one_statement(client):
    seen: list[tuple] = []

    async def record(event):
        seen.append((event.id, event.name, event.data))

    subscribers.subscribe("test-record", ["product.created"], record)
    try:
        event = await emit("product.created", id="prod_2", note={"a": 1})
        # When it is dispatched, then dispatched again (a duplicate message)
        async with count_queries() as statements:
            await dispatch(event.id)
        await dispatch(event.id)
    finally:
        subscribers.unsubscribe("test-record")
    # I expect one statement to read the event with its receipts (two before), the subscriber
    # given the event as written, and the duplicate running nothing again
    reads = [q for q in statements if q.startswith("SELECT") and ('FROM "event' in q or "FROM event" in q)]
    assert len(reads) == 1 and "event_receipt" in reads[0], statements
    assert seen == [(event.id, "product.created", {"id": "prod_2", "note": {"a": 1}})]
    assert (await Event.get(id=event.id)).dispatched_at is not None


async def test_events_carry_no_secrets(client, seeded):
    r = await client.post("/store/customers", json={"email": "new@example.com", "password": "secret-password-1",
                                                    "first_name": "N", "last_name": "C"})
    assert r.status_code == 200, r.text
    event = await Event.get(name="customer.created")
    assert set(event.data) == {"id"}
    r = await client.post("/store/customers/password-token", json={"email": "new@example.com"})
    assert r.status_code == 204, r.text
    reset = await Event.get(name="customer.password_reset")
    assert "token" not in reset.data and reset.data["email"] == "new@example.com"


async def test_old_events_and_deliveries_are_purged_and_recent_ones_kept(client):
    from datetime import timedelta

    from services.events.retention import purge_old_events

    endpoint = await WebhookEndpoint.create(url="https://example.com/h", events=["*"], secret="whsec_AAAA")
    long_ago, recently = clock.now() - timedelta(days=20), clock.now() - timedelta(days=1)
    old = await Event.create(name="product.created", data={"id": "prod_old"}, dispatched_at=long_ago)
    failed = await Event.create(name="product.created", data={"id": "prod_failed"}, dispatched_at=long_ago)
    fresh = await Event.create(name="product.created", data={"id": "prod_new"}, dispatched_at=recently)
    await WebhookDelivery.create(event_id=old.id, event_name=old.name, endpoint_id=endpoint.id, status="succeeded")
    await WebhookDelivery.create(event_id=failed.id, event_name=failed.name, endpoint_id=endpoint.id, status="failed")
    await WebhookDelivery.filter(event_id__in=[old.id, failed.id]).update(updated_at=long_ago)
    await EventReceipt.create(event_id=old.id, subscriber_id="webhooks")
    assert await purge_old_events() == {"deliveries": 1, "events": 1}
    # the failed delivery (kept 30 days) keeps its event; the recent event stays
    assert {e.id for e in await Event.all()} == {failed.id, fresh.id}
    assert await WebhookDelivery.filter(event_id=failed.id).exists()
    assert not await EventReceipt.filter(event_id=old.id).exists()


async def test_a_dispatch_marks_its_event_in_the_last_subscribers_transaction(client, monkeypatch):
    from contextlib import asynccontextmanager

    from services.core.db import atomic
    from services.events import dispatch as dispatching

    async def record(event):
        pass

    subscribers.subscribe("test-record", ["product.created"], record)
    try:
        event = await emit("product.created", id="prod_3")
        async with count_queries() as statements:
            @asynccontextmanager
            async def marked():
                statements.append("BEGIN")
                async with atomic() as unit:
                    yield unit
                statements.append("COMMIT")

            monkeypatch.setattr(dispatching, "atomic", marked)
            # When it is dispatched (every subscriber succeeding)
            await dispatch(event.id)
    finally:
        subscribers.unsubscribe("test-record")
    # I expect the event marked dispatched by the last subscriber's transaction, not a commit of
    # its own (one commit a dispatch fewer: the worker runs one for every order placed)
    marks = [i for i, q in enumerate(statements) if q.startswith('UPDATE "event"')]
    assert len(marks) == 1, statements
    last_begin = max(i for i, q in enumerate(statements) if q == "BEGIN")
    assert last_begin < marks[0] < statements.index("COMMIT", last_begin), statements
    assert (await Event.get(id=event.id)).dispatched_at is not None


async def test_a_subscriber_another_dispatch_handled_meanwhile_is_skipped_not_failed(client):
    ran: list[str] = []

    async def first(event):
        ran.append("first")
        # Another run of the same dispatch handles the second subscriber meanwhile
        await EventReceipt.create(event_id=event.id, subscriber_id="test-second")

    async def second(event):
        ran.append("second")

    subscribers.subscribe("test-first", ["product.created"], first)
    subscribers.subscribe("test-second", ["product.created"], second)
    try:
        event = await emit("product.created", id="prod_4")
        # When it is dispatched
        outcome = await dispatch(event.id)
    finally:
        subscribers.unsubscribe("test-first")
        subscribers.unsubscribe("test-second")
    # I expect the second subscriber not run again by this dispatch, no failure, and the event marked
    assert ran == ["first"] and "test-second" not in outcome["handled"]
    assert await EventReceipt.filter(event_id=event.id, subscriber_id="test-second").count() == 1
    assert (await Event.get(id=event.id)).dispatched_at is not None


async def test_a_rows_only_subscriber_writes_its_receipt_with_its_rows_and_a_repeat_writes_none():
    # Given a subscriber that only writes rows, its receipt put off to its transaction's end
    async def tag(event):
        await ProductTag.create(value=f"tag-{event.data['id']}")

    subscribers.subscribe("test-rows", ["product.created"], tag, rows_only=True)
    try:
        event = await emit("product.created", id="prod_5")
        # When it is dispatched, and again (a duplicate message)
        first = await dispatch(event.id)
        again = await dispatch(event.id)
    finally:
        subscribers.unsubscribe("test-rows")
    # I expect its row and its receipt once, and the duplicate running nothing
    assert "test-rows" in first["handled"] and "test-rows" not in again["handled"]
    assert await ProductTag.filter(value="tag-prod_5").count() == 1
    assert await EventReceipt.filter(event_id=event.id, subscriber_id="test-rows").count() == 1


async def test_a_rows_only_subscriber_handled_meanwhile_leaves_none_of_its_rows():
    # Given a rows-only subscriber whose receipt appears while it runs (another run handled it)
    async def tag(event):
        await ProductTag.create(value="twice")
        await EventReceipt.create(event_id=event.id, subscriber_id="test-rows-race")

    subscribers.subscribe("test-rows-race", ["product.created"], tag, rows_only=True)
    try:
        event = await emit("product.created", id="prod_6")
        outcome = await dispatch(event.id)
    finally:
        subscribers.unsubscribe("test-rows-race")
    # I expect its receipt to fail at the end and take its rows with it: skipped, not failed
    assert "test-rows-race" not in outcome["handled"]
    assert await ProductTag.filter(value="twice").count() == 0

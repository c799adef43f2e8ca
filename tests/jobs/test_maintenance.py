"""The scheduled maintenance (jobs/maintenance.py) touches only what is due, in bounded batches
until nothing due is left, finds its rows by index on PostgreSQL, and runs safely on two hosts at
once: each purge's statements delete at most purging.BATCH rows (lowered here to 2, so a handful
of rows takes several batches), the reconciler of stale authorizations reads SWEEP_BATCH
payments at a time and cancels each once, and so the scheduler's outbox sweep reads its
SWEEP_BATCH jobs at a time and sends each once."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from contextlib import asynccontextmanager
from datetime import timedelta

import pytest
from tortoise.transactions import in_transaction

from models import (
    Cart, Event, EventReceipt, GatewayEvent, IdempotencyKey, Job, Payment, Region, Session, WebhookDelivery,
    WebhookEndpoint,
)
from services.core import clock, outbox, purging
from services.core.idempotency import FINISHED, purge_finished as purge_keys
from services.core.outbox import purge_finished as purge_jobs
from services.events.retention import purge_old_events
from services.payments import authorizations
from services.payments.authorizations import cancel_stale_authorizations
from services.payments.manual import ManualProvider
from services.payments.stripe.webhooks import purge_handled
from services.store.maintenance import purge_expired_sessions
from tests.conftest import BROKER, requires_postgres

DAY = 86400.0
HOUR = 3600.0


def ago(seconds: float):
    return clock.now() - timedelta(seconds=seconds)


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(purging, "BATCH", 2)
    monkeypatch.setattr(authorizations, "SWEEP_BATCH", 2)
    monkeypatch.setattr(outbox, "SWEEP_BATCH", 2)


@pytest.fixture
def messages(monkeypatch) -> list[str]:
    """The ids of the jobs handed to the broker, which keeps them (no worker runs here)."""
    sent: list[str] = []
    monkeypatch.setattr(BROKER, "enqueue", lambda message, **kw: sent.append(message.options["job_id"]) or message)
    return sent


class _Statements(logging.Handler):
    """The statements the ORM sends, with their values (Tortoise logs each at DEBUG)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.sent: list[tuple[str, list]] = []

    def emit(self, record):
        if isinstance(record.args, tuple) and len(record.args) == 2 and isinstance(record.args[0], str):
            query, values = record.args
            if query.lstrip().upper().startswith(("SELECT", "DELETE", "UPDATE")):
                self.sent.append((query, list(values or [])))


@asynccontextmanager
async def recorded():
    logger = logging.getLogger("tortoise.db_client")
    handler, level = _Statements(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler.sent
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _marks_before(sql: str, position: int) -> int:
    return len(re.findall(r"\$\d+|\?", sql[:position]))


def rows_bound(sql: str, values: list) -> int:
    """How many rows a DELETE can touch at most: the LIMIT of its `IN (SELECT …)`, or the length
    of its `IN (…)` list of values."""
    limit = re.search(r"LIMIT (\$\d+|\?|\d+)", sql)
    if limit:
        mark = limit.group(1)
        return int(mark) if mark.isdigit() else values[_marks_before(sql, limit.start(1))]
    listed = re.search(r"IN \(([^()]*)\)", sql)
    assert listed, f"an unbounded delete: {sql}"
    return len(re.findall(r"\$\d+|\?", listed.group(1)))


def deletes_from(sent: list[tuple[str, list]], table: str) -> list[tuple[str, list]]:
    return [(sql, values) for sql, values in sent if sql.startswith(f'DELETE FROM "{table}"')]


def batch_reads(sent: list[tuple[str, list]], table: str) -> list[tuple[str, list]]:
    """The reads of a sweep's batches from `table`: in order, up to a LIMIT."""
    return [(sql, values) for sql, values in sent if sql.startswith("SELECT") and f'FROM "{table}" WHERE' in sql
            and "ORDER BY" in sql and "LIMIT" in sql]


def assert_batched(sent: list[tuple[str, list]], table: str, due: int) -> None:
    """Every delete from `table` touched at most purging.BATCH rows, and it took the batches that
    `due` rows need."""
    deletes = deletes_from(sent, table)
    assert all(rows_bound(sql, values) <= purging.BATCH for sql, values in deletes), deletes
    assert len(deletes) >= -(-due // purging.BATCH), deletes


# ---------------------------------------------------------------- what is due, and in batches

async def expired_sessions(n: int) -> set[str]:
    for i in range(n):
        await Session.create(id=f"old-{i}", data={}, expires_at=ago(60 + i))
    return {f"old-{i}" for i in range(n)}


async def test_expired_sessions_go_in_batches_and_live_ones_stay(small_batches):
    await expired_sessions(5)
    await Session.create(id="live", data={}, expires_at=ago(-HOUR))
    async with recorded() as sent:
        assert await purge_expired_sessions() == 5
    assert [s.id for s in await Session.all()] == ["live"]
    assert_batched(sent, "session", due=5)


async def finished_jobs(n: int) -> None:
    for i in range(n):
        await Job.create(actor_name="ping", status="succeeded" if i % 2 else "canceled", finished_at=ago(8 * DAY + i))


async def test_finished_jobs_go_in_batches_and_failed_recent_and_running_ones_stay(small_batches):
    await finished_jobs(5)
    kept = {(await Job.create(actor_name="ping", status="failed", finished_at=ago(8 * DAY))).id,
            (await Job.create(actor_name="ping", status="succeeded", finished_at=ago(60))).id,
            (await Job.create(actor_name="ping", status="running", started_at=ago(8 * DAY))).id}
    async with recorded() as sent:
        assert await purge_jobs(7 * DAY) == 5
    assert {j.id for j in await Job.all()} == kept
    assert_batched(sent, "job", due=5)


async def old_keys(n: int) -> None:
    for i in range(n):
        finished = i % 2 == 0
        await IdempotencyKey.create(idempotency_key=f"old-{i}", recovery_point=FINISHED if finished else "started",
                                    response_code=200 if finished else None)
    await IdempotencyKey.filter(idempotency_key__startswith="old-").update(created_at=ago(2 * DAY))


async def test_old_idempotency_keys_go_in_batches_and_the_unfinished_are_logged(small_batches, caplog):
    await old_keys(5)
    await IdempotencyKey.create(idempotency_key="today", recovery_point=FINISHED, response_code=200)
    with caplog.at_level(logging.WARNING, logger="commerce.idempotency"):
        async with recorded() as sent:
            assert await purge_keys(DAY) == 5
    assert [k.idempotency_key for k in await IdempotencyKey.all()] == ["today"]
    assert_batched(sent, "idempotency_key", due=5)
    logged = [r.getMessage() for r in caplog.records if "expired unfinished" in r.getMessage()]
    assert sorted(logged) == ["idempotency key old-1 expired unfinished at started",
                              "idempotency key old-3 expired unfinished at started"]


async def handled_gateway_events(n: int) -> None:
    for i in range(n):
        await GatewayEvent.create(id=f"evt_old{i}", provider_id="stripe", type="payment_intent.succeeded", data={},
                                  handled_at=ago(31 * DAY + i))


async def test_gateway_events_handled_long_ago_go_in_batches_and_others_stay(small_batches):
    await handled_gateway_events(5)
    await GatewayEvent.create(id="evt_unhandled", provider_id="stripe", type="x", data={}, handled_at=None)
    await GatewayEvent.create(id="evt_recent", provider_id="stripe", type="x", data={}, handled_at=ago(DAY))
    async with recorded() as sent:
        assert await purge_handled() == 5
    assert {e.id for e in await GatewayEvent.all()} == {"evt_unhandled", "evt_recent"}
    assert_batched(sent, "gateway_event", due=5)


async def old_events(n: int, endpoint: WebhookEndpoint, *, kept_first: int = 0) -> tuple[set[str], set[str]]:
    """`kept_first` events whose failed delivery is kept (30 days), then `n` whose delivery ended
    well (14 days), all dispatched at one instant 20 days ago (a batch goes on from the last one's
    end by id then): the ids of each."""
    kept, due = set(), set()
    dispatched = ago(20 * DAY)
    for i in range(kept_first + n):
        event = await Event.create(name="product.created", data={}, dispatched_at=dispatched)
        await EventReceipt.create(event_id=event.id, subscriber_id="webhooks")
        status = "failed" if i < kept_first else "succeeded"
        await WebhookDelivery.create(event_id=event.id, event_name=event.name, endpoint_id=endpoint.id, status=status)
        (kept if i < kept_first else due).add(event.id)
    await WebhookDelivery.all().update(updated_at=ago(20 * DAY))
    return kept, due


async def test_old_events_and_deliveries_go_in_batches_past_the_events_still_kept(small_batches):
    # Given the oldest events kept for their failed deliveries, more than a batch of them, and
    # due events and deliveries after them, and a recent event
    endpoint = await WebhookEndpoint.create(url="https://example.com/h", events=["*"], secret="whsec_AAAA")
    kept, due = await old_events(5, endpoint, kept_first=3)
    fresh = await Event.create(name="product.created", data={}, dispatched_at=ago(DAY))
    # When the purge runs
    async with recorded() as sent:
        assert await purge_old_events() == {"deliveries": 5, "events": 5}
    # I expect every due event gone with its receipts, the kept ones and the recent one still there
    assert {e.id for e in await Event.all()} == kept | {fresh.id}
    assert await EventReceipt.filter(event_id__in=list(due)).count() == 0
    assert {d.event_id for d in await WebhookDelivery.all()} == kept
    assert_batched(sent, "webhook_delivery", due=5)
    assert_batched(sent, "event", due=5)
    # and the kept events read once, not again at every batch
    event_reads = batch_reads(sent, "event")
    assert len(event_reads) == -(-(3 + 5) // purging.BATCH) + 1


# ---------------------------------------------------------------- stale authorizations

async def open_payment(age: float, **changes) -> Payment:
    region = await Region.first() or await Region.create(name="Test", currency_code="usd")
    cart = await Cart.create(region_id=region.id)
    payment = await Payment.create(cart_id=cart.id, amount=2500, currency_code="usd", provider_id="manual",
                                   data={"status": "authorized"}, **changes)
    await Cart.filter(id=cart.id).update(payment_id=payment.id, payment_authorized_at=ago(age))
    await Payment.filter(id=payment.id).update(created_at=ago(age))
    return payment


async def in_flight(payment: Payment) -> None:
    """A completion of the payment's cart still running (its key not answered yet)."""
    await IdempotencyKey.create(idempotency_key=f"k-{payment.id}", recovery_point="payment_authorized",
                                request_params={"cart_id": payment.cart_id})


async def test_stale_authorizations_are_read_in_batches_past_those_left_alone(small_batches):
    # Given, oldest first, three authorizations whose completion still runs, then five stale ones,
    # and ones that are not due (young, canceled, captured, with an order)
    passed = [await open_payment(5 * HOUR - i) for i in range(3)]
    for payment in passed:
        await in_flight(payment)
    stale = [await open_payment(4 * HOUR - i) for i in range(5)]
    young = await open_payment(60)
    canceled = await open_payment(2 * HOUR, canceled_at=ago(HOUR))
    captured = await open_payment(2 * HOUR, captured_at=ago(HOUR))
    ordered = await open_payment(2 * HOUR, order_id="order_1")
    # When the reconciler runs
    async with recorded() as sent:
        result = await cancel_stale_authorizations(HOUR)
    # I expect the five stale ones canceled, oldest first, and nothing else touched
    assert [c["payment_id"] for c in result["canceled"]] == [p.id for p in stale] and result["failed"] == []
    assert {p.id for p in await Payment.filter(canceled_at__isnull=False)} == {p.id for p in stale} | {canceled.id}
    for payment in passed + [young, captured, ordered]:
        assert (await Payment.get(id=payment.id)).data == {"status": "authorized"}
    # read two at a time from where the last read ended: eight due rows, four reads and the last
    reads = batch_reads(sent, "payment")
    assert len(reads) == 5 and all(rows_bound(sql, values) == 2 for sql, values in reads)


async def test_stale_authorizations_of_one_instant_are_all_read_batch_after_batch(small_batches):
    # Given five stale authorizations made at the same instant (told apart by id only)
    stale = [await open_payment(4 * HOUR) for _ in range(5)]
    await Payment.filter(id__in=[p.id for p in stale]).update(created_at=ago(4 * HOUR))
    # When the reconciler runs two at a time, I expect every one canceled, once
    result = await cancel_stale_authorizations(HOUR)
    assert sorted(c["payment_id"] for c in result["canceled"]) == sorted(p.id for p in stale)


async def test_a_run_tries_at_most_max_cancels_and_the_next_takes_the_rest(small_batches, monkeypatch):
    monkeypatch.setattr(authorizations, "MAX_CANCELS", 3)
    stale = [await open_payment(4 * HOUR - i) for i in range(5)]
    first = await cancel_stale_authorizations(HOUR)
    assert [c["payment_id"] for c in first["canceled"]] == [p.id for p in stale[:3]]
    second = await cancel_stale_authorizations(HOUR)
    assert [c["payment_id"] for c in second["canceled"]] == [p.id for p in stale[3:]]


@requires_postgres("two sweeps at once need PostgreSQL's row locks")
async def test_two_reconcilers_at_once_cancel_each_authorization_once(monkeypatch):
    # Given stale authorizations, and a gateway whose cancellation takes a moment
    stale = [await open_payment(4 * HOUR - i) for i in range(6)]
    calls: list[dict] = []

    async def cancel(self, data: dict) -> dict:
        calls.append(data)
        await asyncio.sleep(0.01)
        return {"status": "canceled"}

    monkeypatch.setattr(ManualProvider, "cancel", cancel)
    # When two hosts run the reconciler at the same time
    first, second = await asyncio.gather(cancel_stale_authorizations(HOUR), cancel_stale_authorizations(HOUR))
    # I expect each authorization canceled once, by one of them
    done = [c["payment_id"] for c in first["canceled"] + second["canceled"]]
    assert sorted(done) == sorted(p.id for p in stale) and len(calls) == len(stale)


@requires_postgres("two purges at once need PostgreSQL's concurrency")
async def test_two_purges_at_once_delete_each_row_once(small_batches):
    await finished_jobs(9)
    first, second = await asyncio.gather(purge_jobs(7 * DAY), purge_jobs(7 * DAY))
    assert first + second == 9 and await Job.all().count() == 0


# ---------------------------------------------------------------- the outbox sweep

async def stale_jobs(n: int) -> list[str]:
    """`n` jobs of each kind the outbox sweep sends, those of a kind at one instant (a batch goes on
    from the last one's end by id then): pending past the grace period, enqueued and retrying past
    the lease, running with a silent heartbeat, and running since long ago without one; their ids."""
    ids: list[str] = []
    kinds = (
        ("pending", "created_at", {}), ("enqueued", "updated_at", {}), ("retrying", "updated_at", {}),
        ("running", "heartbeat_at", {"started_at": ago(DAY)}), ("running", "started_at", {}),
    )
    for status, column, values in kinds:
        jobs = [await Job.create(actor_name="ping", queue_name="maintenance", args=[status], status=status,
                                 attempts=int(status == "running"), **values) for _ in range(n)]
        await Job.filter(id__in=[j.id for j in jobs]).update(**{column: ago(2 * DAY)})
        ids += [j.id for j in jobs]
    return ids


async def test_a_backlog_of_stale_jobs_larger_than_a_batch_is_all_sent_each_job_once(small_batches, messages):
    # Given five jobs of each kind the sweep sends, more than a batch each, and jobs it leaves alone
    due = await stale_jobs(5)
    await Job.create(actor_name="ping", status="pending")
    await Job.create(actor_name="ping", status="enqueued")
    beating = await Job.create(actor_name="ping", status="running", attempts=1, started_at=ago(DAY),
                               heartbeat_at=ago(1))
    await Job.create(actor_name="ping", status="succeeded", finished_at=ago(2 * DAY))
    # When the sweep runs
    async with recorded() as sent:
        assert await outbox.resend_stale(grace_seconds=60, lease_seconds=HOUR, takeover_seconds=15) == len(due)
    # I expect every due job sent once, and the silent running ones given to a retry
    assert sorted(messages) == sorted(due)
    assert await Job.filter(status="running").count() == 1 and (await Job.get(id=beating.id)).attempts == 1
    # read two at a time from where the last read ended: five of each of five kinds, three reads a kind
    reads = batch_reads(sent, "job")
    assert len(reads) == 5 * 3 and all(rows_bound(sql, values) == 2 for sql, values in reads), reads


# ---------------------------------------------------------------- plans

async def _arrange_events():
    endpoint = await WebhookEndpoint.create(url="https://example.com/h", events=["*"], secret="whsec_AAAA")
    await old_events(5, endpoint, kept_first=3)


async def _arrange_authorizations():
    for i in range(5):
        await open_payment(4 * HOUR - i)
    await in_flight(await open_payment(5 * HOUR))


JOBS = {
    "purge_sessions": (lambda: expired_sessions(5), purge_expired_sessions),
    "purge_jobs": (lambda: finished_jobs(5), lambda: purge_jobs(7 * DAY)),
    "purge_idempotency_keys": (lambda: old_keys(5), lambda: purge_keys(DAY)),
    "purge_events": (_arrange_events, purge_old_events),
    "purge_gateway_events": (lambda: handled_gateway_events(5), purge_handled),
    "cancel_stale_authorizations": (_arrange_authorizations, lambda: cancel_stale_authorizations(HOUR)),
    "sweep_outbox": (lambda: stale_jobs(5), lambda: outbox.resend_stale(60, HOUR, 15)),
}


def _nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", ()):
        yield from _nodes(child)


async def _plan(sql: str, values: list) -> list[dict]:
    async with in_transaction() as connection:
        await connection.execute_query("SET LOCAL enable_seqscan = off")
        await connection.execute_query("SET LOCAL enable_sort = off")
        await connection.execute_query("SET LOCAL enable_incremental_sort = off")  # a sort too
        _, rows = await connection.execute_query(f"EXPLAIN (FORMAT JSON) {sql}", values)
    plan = next(iter(dict(rows[0]).values()))
    return list(_nodes((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]))


@requires_postgres("plans are PostgreSQL's")
@pytest.mark.parametrize("job", JOBS)
async def test_every_statement_of_a_maintenance_job_finds_its_rows_by_index(small_batches, messages, job):
    # Every statement the job sent, planned with sequential scans and sorts priced out of reach,
    # must still have neither, and every index it reads must be bounded by a condition (or be a
    # partial index, whose rows are the few due ones): a due condition without an index of its own
    # would scan, or read another index and sort what it found to take the oldest, and fail here.
    arrange, run = JOBS[job]
    await arrange()
    async with recorded() as sent:
        await run()
    assert sent
    async with in_transaction() as connection:
        _, rows = await connection.execute_query(
            "SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indpred IS NOT NULL")
    partial = {dict(r)["name"].strip('"') for r in rows}
    for sql, values in sent:
        nodes = await _plan(sql, values)
        scans = [n.get("Relation Name") for n in nodes if n["Node Type"] == "Seq Scan"]
        assert not scans, f"{job}: {sql} reads every row of {scans}"
        unbounded = [n["Index Name"] for n in nodes if "Index Name" in n and "Index Cond" not in n
                     and n["Index Name"] not in partial]
        assert not unbounded, f"{job}: {sql} reads all of {unbounded}"
        sorts = [n["Node Type"] for n in nodes if n["Node Type"].endswith("Sort")]
        assert not sorts, f"{job}: {sql} sorts the due rows it found ({sorts})"


def test_the_jobs_planned_here_are_the_maintenance_the_scheduler_asks_for():
    from workers.scheduler import MAINTENANCE_ACTORS

    assert set(JOBS) == set(MAINTENANCE_ACTORS) | {"cancel_stale_authorizations", "sweep_outbox"}

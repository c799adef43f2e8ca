"""The reconciler of authorized payments left without an order: old ones are canceled through
their provider and recorded; young ones, ones whose cart has an order and ones whose completion
is still retrying are left alone (money taken without an order is the worse failure)."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta, timezone

import pytest

import services.checkout.stages
from models import Cart, IdempotencyKey, Job, Order, Payment
from services.payments.authorizations import cancel_stale_authorizations
from tests.checkout_factories import GatewayProvider, complete, gateway, pay_with, ready_cart  # noqa: F401 (a fixture)
from tests.conftest import BROKER, SETTINGS, wait_for
from workers.embedded import start_embedded_worker, stop_embedded_worker
from workers.scheduler import ask_for_maintenance, build_scheduler

HOUR = 3600.0


@pytest.fixture
def placing_fails(monkeypatch, gateway):
    """Every order placement fails the way a lost database connection would: the completion
    stops with its payment authorized (through a gateway: one without is authorized in the
    placing's own transaction) and its key waiting for the retry actor."""

    async def down(*args, **kwargs):
        raise ConnectionError("connection to the database was lost")

    monkeypatch.setattr(services.checkout.stages, "place_order", down)


async def authorized_without_order(client, key: str, *, age: float, retrying: bool = False) -> Payment:
    """A cart whose completion authorized its payment `age` seconds ago and never placed the
    order; unless `retrying`, its client gave up and the key is gone."""
    cart = await pay_with(client, await ready_cart(client, pay=False), GatewayProvider.id)
    assert (await complete(client, cart, key)).status_code == 503
    then = datetime.now(timezone.utc) - timedelta(seconds=age)
    if retrying:
        await IdempotencyKey.filter(idempotency_key=key).update(updated_at=then, locked_at=None)
    else:
        await IdempotencyKey.filter(idempotency_key=key).delete()
    payment = await Payment.get(cart_id=cart["id"])
    await Payment.filter(id=payment.id).update(created_at=then)
    return payment


async def test_an_old_authorization_without_an_order_is_canceled_and_recorded(client, seeded, placing_fails, caplog):
    # Given a payment authorized two hours ago whose cart never got its order
    payment = await authorized_without_order(client, "gave-up", age=2 * HOUR)
    # When the reconciler runs with an age of one hour
    with caplog.at_level(logging.INFO, logger="commerce.authorizations"):
        result = await cancel_stale_authorizations(HOUR)
    # I expect it canceled through the provider, the cart released, and what was done recorded
    assert result == {"canceled": [{"payment_id": payment.id, "cart_id": payment.cart_id, "amount": 2500,
                                    "currency_code": "usd", "provider_id": GatewayProvider.id}], "failed": []}
    row = await Payment.get(id=payment.id)
    assert row.canceled_at is not None and row.data == {"status": "canceled"} and row.order_id is None
    cart = await Cart.get(id=payment.cart_id)
    assert cart.payment_id is None and cart.payment_authorized_at is None and cart.completed_at is None
    assert any(payment.id in r.getMessage() and r.levelno == logging.INFO for r in caplog.records)
    # and running it again changes nothing
    assert await cancel_stale_authorizations(HOUR) == {"canceled": [], "failed": []}


async def test_a_young_authorization_is_left_alone(client, seeded, placing_fails):
    payment = await authorized_without_order(client, "young", age=10 * 60)
    assert await cancel_stale_authorizations(HOUR) == {"canceled": [], "failed": []}
    assert (await Payment.get(id=payment.id)).canceled_at is None


async def test_an_authorization_whose_completion_is_still_retrying_is_left_alone(client, seeded, placing_fails):
    # Given an old authorization whose key is unfinished, waiting for the retry actor
    payment = await authorized_without_order(client, "still-retrying", age=2 * HOUR, retrying=True)
    # When the reconciler runs
    assert await cancel_stale_authorizations(HOUR) == {"canceled": [], "failed": []}
    # I expect the payment kept for the completion to place its order with
    assert (await Payment.get(id=payment.id)).canceled_at is None


async def test_an_authorization_whose_cart_has_an_order_is_left_alone(client, seeded):
    # Given a placed order, and a second payment of its cart left authorized without the order
    cart = await ready_cart(client)
    assert (await complete(client, cart)).status_code == 200
    order = await Order.get(cart_id=cart["id"])
    stray = await Payment.create(cart_id=cart["id"], amount=2500, currency_code="usd", provider_id="manual",
                                 data={"status": "authorized"})
    long_ago = datetime.now(timezone.utc) - timedelta(days=1)
    await Payment.filter(cart_id=cart["id"]).update(created_at=long_ago)
    # When the reconciler runs
    assert await cancel_stale_authorizations(HOUR) == {"canceled": [], "failed": []}
    # I expect neither the order's payment nor the stray one canceled (a person looks at those)
    assert await Payment.filter(cart_id=cart["id"], canceled_at=None).count() == 2
    assert (await Payment.get(order_id=order.id)).canceled_at is None
    assert (await Payment.get(id=stray.id)).canceled_at is None


@pytest.fixture
async def worker():
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    yield w
    await stop_embedded_worker(w)


async def test_the_scheduler_asks_for_the_reconciler_and_its_job_records_what_it_canceled(
    client, seeded, placing_fails, worker
):
    # Given an orphaned authorization, and a scheduler with the default age
    payment = await authorized_without_order(client, "orphaned", age=2 * HOUR)
    assert SETTINGS.stale_authorization_seconds == HOUR
    assert "ask_for_maintenance" in {job.id for job in build_scheduler(SETTINGS).get_jobs()}
    # When the scheduler's maintenance tick runs
    await ask_for_maintenance(SETTINGS)
    # I expect the reconciler's job to run with the configured age and record its cancellation
    job = await wait_for(lambda: Job.get_or_none(actor_name="cancel_stale_authorizations", status="succeeded"))
    assert job.args == [HOUR] and job.queue_name == "maintenance"
    assert [c["payment_id"] for c in job.result["canceled"]] == [payment.id]
    assert (await Payment.get(id=payment.id)).canceled_at is not None

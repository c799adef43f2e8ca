"""Completions under pressure: many requests racing for one cart, and a completion that stops
after the payment is authorized, finished by the retry actor on a real worker."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest

import services.checkout.stages
from models import Cart, IdempotencyKey, Order, Payment, ProductVariant
from services.checkout.completion import hand_over_stalled
from tests.checkout_factories import complete, pay_with, paying_with, ready_cart  # noqa: F401 (a fixture)
from tests.conftest import BROKER, idle, wait_for
from workers.embedded import start_embedded_worker, stop_embedded_worker


@pytest.fixture
async def worker():
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    yield w
    await stop_embedded_worker(w)


async def test_twenty_concurrent_completions_of_one_cart_place_exactly_one_order(client, seeded):
    # Given a cart ready to pay
    cart = await ready_cart(client, items={"variant_cap_black": 3})
    # When twenty requests complete it at once, each with its own key
    answers = await asyncio.gather(*(complete(client, cart, f"race-{n}") for n in range(20)))
    # I expect no 5xx, one order, one payment, stock taken once, and every 200 naming that order
    assert all(r.status_code < 500 for r in answers), [r.text for r in answers if r.status_code >= 500]
    orders = await Order.filter(cart_id=cart["id"])
    assert len(orders) == 1
    assert {r.json()["data"]["id"] for r in answers if r.status_code == 200} == {orders[0].id}
    assert sum(r.status_code == 200 for r in answers) >= 1
    assert await Payment.filter(cart_id=cart["id"], canceled_at=None).count() == 1
    assert (await ProductVariant.get(id="variant_cap_black")).inventory_quantity == 100000 - 3


async def test_twenty_concurrent_requests_with_one_key_run_it_once(client, seeded):
    cart = await ready_cart(client)
    answers = await asyncio.gather(*(complete(client, cart, "the-one-key") for _ in range(20)))
    # Each either got the order (run or replayed) or was told to retry the key shortly
    assert {r.status_code for r in answers} <= {200, 409}
    for r in answers:
        if r.status_code == 409:
            assert r.json()["code"] == "idempotency_key_in_use" and int(r.headers["retry-after"]) >= 1
    assert await Order.filter(cart_id=cart["id"]).count() == 1
    r = await complete(client, cart, "the-one-key")
    assert r.status_code == 200 and r.json()["type"] == "order"


@pytest.fixture
def placing_fails_once(monkeypatch):
    """The order placement stage fails once, the way a dropped database connection would."""
    real = services.checkout.stages.place_order
    calls = {"n": 0}

    async def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConnectionError("connection to the database was lost")
        return await real(*args, **kwargs)

    monkeypatch.setattr(services.checkout.stages, "place_order", flaky)
    return calls


async def test_a_completion_interrupted_after_authorization_is_finished_by_the_retry_actor(
    client, seeded, worker, placing_fails_once, paying_with
):
    # Given a cart whose completion stops after its payment is authorized (through a gateway: in
    # its own transaction; with manual: in the placing's, rolled back with it)
    cart = await pay_with(client, await ready_cart(client, pay=False), paying_with)
    r = await complete(client, cart, "interrupted")
    # I expect the shopper to be told to retry, with the key, and no order yet
    assert r.status_code == 503, r.text
    assert r.json()["code"] == "completion_retrying" and r.headers["idempotency-key"] == "interrupted"
    assert r.headers["retry-after"]
    # When the retry actor runs (the worker is up)
    key = await wait_for(lambda: IdempotencyKey.get_or_none(idempotency_key="interrupted", recovery_point="finished"))
    # I expect the order placed with the payment authorized before the failure (not a second one)
    order = await Order.get(cart_id=cart["id"])
    assert key.response_code == 200 and key.response_body["data"]["id"] == order.id
    assert await Payment.filter(cart_id=cart["id"]).count() == 1
    assert (await Payment.get(cart_id=cart["id"])).order_id == order.id
    # and a client polling the cart sees it completed, and retrying the key gets the order
    polled = (await client.get(f"/store/carts/{cart['id']}")).json()["cart"]
    assert polled["completed_at"] is not None
    again = await complete(client, cart, "interrupted")
    assert again.status_code == 200 and again.json()["data"]["id"] == order.id
    assert placing_fails_once["n"] == 2


@pytest.mark.parametrize("left_at", ["started", "payment_authorized"])  # as left now, and by earlier versions
async def test_the_sweep_hands_a_completion_whose_holder_died_to_the_retry_actor(client, seeded, worker, left_at):
    # Given a completion whose process died after authorizing: the key is held, untouched for long
    cart = await ready_cart(client)
    r = await complete(client, cart, "orphan")
    assert r.status_code == 200
    order = await Order.get(cart_id=cart["id"])
    # (rewind it to the moment before placing: no order, key held by a dead process; once the
    # placed order's own jobs have run, or they would fail on the order deleted under them)
    await idle(worker)
    await Order.filter(id=order.id).delete()
    await Cart.filter(id=cart["id"]).update(completed_at=None)
    from models import LineItem, ShippingMethod

    await LineItem.filter(cart_id=cart["id"]).update(order_id=None)
    await ShippingMethod.filter(cart_id=cart["id"]).update(order_id=None)
    await Payment.filter(cart_id=cart["id"]).update(order_id=None)
    long_ago = datetime.now(timezone.utc) - timedelta(minutes=10)
    await IdempotencyKey.filter(idempotency_key="orphan").update(
        recovery_point=left_at, response_code=None, response_body=None, locked_at=long_ago,
        updated_at=long_ago,
    )
    # When the scheduler's sweep runs
    assert await hand_over_stalled(grace_seconds=60) == 1
    # I expect the worker to place the order with the payment already authorized
    await wait_for(lambda: IdempotencyKey.get_or_none(idempotency_key="orphan", recovery_point="finished"))
    placed = await Order.get(cart_id=cart["id"])
    assert (await Payment.get(cart_id=cart["id"])).order_id == placed.id
    assert await Payment.filter(cart_id=cart["id"]).count() == 1  # the live one reused, not a second
    assert await hand_over_stalled(grace_seconds=0) == 0


async def test_a_key_refused_for_the_shopper_to_fix_is_not_swept(client, seeded):
    cart = await ready_cart(client, pay=False)
    assert (await complete(client, cart, "needs-a-session")).status_code == 400
    assert await hand_over_stalled(grace_seconds=0) == 0


async def test_finished_keys_are_purged_after_a_day(client, seeded):
    from services.core.idempotency import purge_finished

    cart = await ready_cart(client)
    await complete(client, cart, "old")
    await complete(client, await ready_cart(client), "new")
    await IdempotencyKey.filter(idempotency_key="old").update(
        created_at=datetime.now(timezone.utc) - timedelta(hours=25)
    )
    assert await purge_finished(24 * 3600) == 1
    assert await IdempotencyKey.filter(idempotency_key="new").exists()
    # a reused key after the purge is a new request: the cart answers its order again
    r = await complete(client, cart, "old")
    assert r.status_code == 200 and r.json()["type"] == "order"

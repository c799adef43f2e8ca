"""Stripe's webhook racing the shopper, with real worker processes on PostgreSQL + Redis: twenty
completions of one cart and the same event delivered three times make one order, one live
payment and one capture at Stripe."""

import asyncio

from models import GatewayEvent, Order, Payment
from tests import stripe_fake
from tests.checkout_factories import complete
from tests.conftest import requires_postgres, wait_for
from tests.jobs.test_broker_outage import private_redis  # noqa: F401 (fixture)
from tests.stripe_factories import intent_of, stripe_cart
from tests.workers.test_worker_lifecycle import _commerce, _kill_group

pytestmark = requires_postgres("needs PostgreSQL and Redis: worker processes share the database")


async def deliver(client, event: dict):
    body, headers = stripe_fake.signed(event)
    return await client.post("/stripe/hooks", content=body, headers=headers)


async def test_twenty_completions_and_a_webhook_delivered_thrice_make_one_order_and_one_capture(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, private_redis):
    worker = _commerce("worker", "--processes", "2", "--threads", "2", redis_url=private_redis.url,
                       STRIPE_API_KEY=stripe_fake.API_KEY, STRIPE_API_BASE=localstripe_url,
                       STRIPE_WEBHOOK_SECRET=stripe_fake.WEBHOOK_SECRET)
    log = ""
    try:
        # Given a cart whose card was confirmed at Stripe (a hold: manual capture)
        cart = await stripe_cart(client, admin_headers)
        intent = await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
        event = stripe_fake.event("payment_intent.amount_capturable_updated", intent)
        # When twenty completions race Stripe's event, delivered three times, handled by the workers
        answers = await asyncio.gather(
            *(complete(client, cart, key=f"race-{i}") for i in range(20)),
            *(deliver(client, event) for _ in range(3)),
        )
        handled = await wait_for(lambda: GatewayEvent.get_or_none(id=event["id"], handled_at__not_isnull=True),
                                 timeout=60, interval=0.2)
    finally:
        log = _kill_group(worker)
    # I expect one order, answered to every completion that got one, and one live payment
    orders = await Order.filter(cart_id=cart["id"])
    assert len(orders) == 1, log[-2000:]
    assert handled.outcome == f"order {orders[0].id}", handled.outcome
    for r in answers[:20]:
        assert r.status_code in (200, 409, 503), r.text  # 409/503: a key still in flight, to retry
        if r.status_code == 200:
            assert r.json()["type"] == "order" and r.json()["data"]["id"] == orders[0].id
    assert [r.status_code for r in answers[20:]] == [200, 200, 200]
    assert sorted(r.json()["duplicate"] for r in answers[20:]) == [False, True, True]
    live = await Payment.filter(cart_id=cart["id"], canceled_at=None)
    assert [p.order_id for p in live] == [orders[0].id]
    # and the dashboard's capture takes the money once, leaving no hold behind
    r = await client.post(f"/admin/orders/{orders[0].id}/capture", headers=admin_headers)
    assert r.status_code == 200 and r.json()["order"]["payment_status"] == "captured", r.text
    at_stripe = await stripe_fake.get(localstripe_url, f"/v1/payment_intents/{intent['id']}")
    assert at_stripe["status"] == "succeeded" and at_stripe["amount"] == cart["total"]

"""The Stripe reconciliation sweep: a hold on the shopper's card whose cart never became an order
is released after STRIPE_ABANDONED_MINUTES; a cart whose intent succeeded without a webhook is
completed; anything younger is left alone."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from models import Order, PaymentSession
from services.core import clock
from services.payments.stripe.sweep import reconcile_intents
from tests import stripe_fake
from tests.stripe_factories import intent_of, stripe_cart


async def abandoned(cart: dict, minutes: float) -> None:
    """The cart's stripe session last touched `minutes` ago."""
    await PaymentSession.filter(cart_id=cart["id"], provider_id="stripe").update(
        updated_at=clock.now() - timedelta(minutes=minutes))


async def intent_at_stripe(base: str, intent_id: str) -> dict:
    return await stripe_fake.get(base, f"/v1/payment_intents/{intent_id}")


async def test_a_held_intent_of_an_abandoned_cart_is_released_after_the_configured_time(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    # Given two carts whose cards were confirmed (held) but never completed, one long ago
    old, young = [await stripe_cart(client, admin_headers) for _ in range(2)]
    for cart in (old, young):
        await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
    await abandoned(old, 61)
    await abandoned(young, 59)
    # When the sweep runs with the default 60 minutes
    done = await reconcile_intents(60)
    # I expect the old hold released at Stripe, and the young one left alone
    assert [x["cart_id"] for x in done["released"]] == [old["id"]] and not done["failed"]
    assert (await intent_at_stripe(localstripe_url, intent_of(old)["id"]))["status"] == "canceled"
    assert (await intent_at_stripe(localstripe_url, intent_of(young)["id"]))["status"] == "requires_capture"
    assert (await PaymentSession.get(cart_id=old["id"], provider_id="stripe")).status == "canceled"
    # and a second run finds nothing more to do
    again = await reconcile_intents(60)
    assert again == {"completed": [], "released": [], "failed": []}


async def test_a_cart_paid_at_stripe_whose_webhook_never_came_is_completed(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    from tests.conftest import use_stripe

    use_stripe(replace(stripe_gateway, stripe_capture=True))
    cart = await stripe_cart(client, admin_headers)
    intent = await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
    assert intent["status"] == "succeeded"
    await abandoned(cart, 61)
    import asyncio

    from tests.conftest import BROKER, wait_for
    from workers.embedded import start_embedded_worker, stop_embedded_worker

    done = await reconcile_intents(60)
    assert [x["cart_id"] for x in done["completed"]] == [cart["id"]], done
    # (the sweep hands the cart to checkout, which completes it and captures: a worker runs the jobs)
    worker = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    try:
        order = await wait_for(lambda: Order.get_or_none(cart_id=cart["id"], payment_status="captured"), timeout=30)
    finally:
        await stop_embedded_worker(worker)
    assert order.payment_status == "captured"


async def test_an_abandoned_intent_holding_nothing_is_left_for_the_shopper(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    cart = await stripe_cart(client, admin_headers)  # no card given yet
    await abandoned(cart, 120)
    done = await reconcile_intents(60)
    assert done == {"completed": [], "released": [], "failed": []}
    assert (await intent_at_stripe(localstripe_url, intent_of(cart)["id"]))["status"] == "requires_payment_method"
    session = await PaymentSession.get(cart_id=cart["id"], provider_id="stripe")
    assert session.updated_at > clock.now() - timedelta(minutes=5)  # looked at: out of sight for a period


async def test_the_stripe_plugin_schedules_the_sweep_only_when_stripe_is_configured(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    import asyncio

    from models import Job
    from tests.conftest import BROKER, SETTINGS, wait_for
    from workers.embedded import start_embedded_worker, stop_embedded_worker
    from services.builtin_plugins import stripe as stripe_plugin
    from services.core.plugins import PluginContext
    from services.plugins import Active, schedules_of
    from workers.scheduler import ask_for_scheduled

    def scheduled(configured):  # the built-in stripe plugin's scheduled jobs for these settings
        return schedules_of([Active(stripe_plugin, PluginContext(configured))])

    cart = await stripe_cart(client, admin_headers)
    await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
    await abandoned(cart, 2 * 60)
    # Without a key the plugin schedules nothing
    assert scheduled(SETTINGS) == []
    # With one it asks hourly, with STRIPE_ABANDONED_MINUTES, and its job records what it released
    [(plugin, schedule)] = scheduled(replace(stripe_gateway, stripe_abandoned_minutes=90))
    assert (plugin, schedule.actor, schedule.every) == ("stripe", "reconcile_stripe_intents", 3600.0)
    worker = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    try:
        await ask_for_scheduled(plugin, schedule)(SETTINGS)
        job = await wait_for(lambda: Job.get_or_none(actor_name="reconcile_stripe_intents", status="succeeded"),
                             timeout=30)
    finally:
        await stop_embedded_worker(worker)
    assert job.args == [90] and job.queue_name == "maintenance"
    assert [x["cart_id"] for x in job.result["released"]] == [cart["id"]]

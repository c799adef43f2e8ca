"""`POST /stripe/hooks`: Stripe's events, verified by signature, recorded once by their id, and
handled by a job: a cart paid at Stripe is completed through the same path as the shopper's
completion (one order however they race), refunds made in Stripe's dashboard and disputes show
on the order."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from models import GatewayEvent, Job, Note, Order, Payment, Refund
from tests import stripe_fake
from tests.checkout_factories import complete
from tests.conftest import BROKER, wait_for
from tests.stripe_factories import intent_of, paid_order, stripe_cart
from workers.embedded import start_embedded_worker, stop_embedded_worker


@pytest.fixture
async def worker():
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    yield w
    await stop_embedded_worker(w)


async def deliver(client, event: dict, **signing):
    body, headers = stripe_fake.signed(event, **signing)
    return await client.post("/stripe/hooks", content=body, headers=headers)


async def handled(event_id: str) -> GatewayEvent:
    async def done():
        row = await GatewayEvent.get_or_none(id=event_id)
        return row if row is not None and row.handled_at is not None else None
    return await wait_for(done, timeout=30)


async def intent_at_stripe(base: str, intent_id: str) -> dict:
    return await stripe_fake.get(base, f"/v1/payment_intents/{intent_id}")


async def charge_of(base: str, intent_id: str) -> dict:
    """The intent's charge as Stripe shows it now."""
    latest = (await intent_at_stripe(base, intent_id))["latest_charge"]
    return await stripe_fake.get(base, f"/v1/charges/{latest['id'] if isinstance(latest, dict) else latest}")


@pytest.mark.parametrize("signing", [
    {"secret": "whsec_someone_else"},
    {"skew": -3600},  # past the tolerance: a replay of an old delivery
    {"skew": 600},  # ahead of the tolerance: signed to be replayed later
    {"secret": ""},
], ids=["wrong-secret", "stale", "future", "empty-secret"])
async def test_a_badly_signed_event_is_a_400_and_changes_nothing(client, stripe_gateway, signing):
    if "skew" in signing:  # seconds from now, when the test runs (not when it was collected)
        signing = {"timestamp": int(time.time()) + signing["skew"]}
    r = await deliver(client, stripe_fake.event("payment_intent.succeeded", {"id": "pi_x", "metadata": {}}), **signing)
    assert r.status_code == 400, r.text
    assert r.json()["type"] == "invalid_data" and r.json()["message"].startswith("Webhook Error")
    assert await GatewayEvent.all().count() == 0 and await Job.filter(actor_name="handle_stripe_event").count() == 0


@pytest.mark.parametrize("skew", [-120, 120], ids=["behind", "ahead"])
async def test_a_timestamp_within_the_tolerance_either_way_is_accepted(client, stripe_gateway, skew):
    # Stripe's clock and ours differ by a little: that is what the tolerance is for
    event = stripe_fake.event("customer.created", {"id": "cus_x"})
    r = await deliver(client, event, timestamp=int(time.time()) + skew)
    assert r.status_code == 200, r.text


async def test_a_missing_signature_or_a_malformed_body_is_a_400_and_changes_nothing(client, stripe_gateway):
    r = await client.post("/stripe/hooks", json=stripe_fake.event("charge.refunded", {"id": "ch_x"}))
    assert r.status_code == 400 and "Stripe-Signature" in r.json()["message"], r.text
    body, headers = stripe_fake.signed({"id": "evt_1", "type": "charge.refunded"})  # no data.object
    r = await client.post("/stripe/hooks", content=body, headers=headers)
    assert r.status_code == 400, r.text
    assert await GatewayEvent.all().count() == 0


async def test_one_good_signature_among_several_is_enough(client, stripe_gateway):
    # While a secret is rolled Stripe signs with both: one v1 may not be ours.
    event = stripe_fake.event("customer.created", {"id": "cus_x"})
    r = await deliver(client, event, extra_signatures=("0" * 64,))
    assert r.status_code == 200, r.text
    assert await GatewayEvent.filter(id=event["id"]).count() == 1


async def test_a_replayed_event_is_recorded_and_handled_once(client, stripe_gateway):
    event = stripe_fake.event("payment_intent.payment_failed", {"id": "pi_x", "metadata": {}})
    first, again = await deliver(client, event), await deliver(client, event)
    assert (first.status_code, again.status_code) == (200, 200)
    assert (first.json()["duplicate"], again.json()["duplicate"]) == (False, True)
    assert await GatewayEvent.filter(id=event["id"]).count() == 1
    assert await Job.filter(actor_name="handle_stripe_event").count() == 1


async def test_a_failed_payment_of_our_cart_is_a_warning_recorded_on_the_event(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, caplog):
    from services.payments.stripe.handling import handle_event

    cart = await stripe_cart(client, admin_headers)
    failed = stripe_fake.event("payment_intent.payment_failed", await stripe_fake.declined_intent(
        localstripe_url, {"resource_id": cart["id"]}))
    assert (await deliver(client, failed)).status_code == 200
    with caplog.at_level(logging.INFO, logger="commerce.stripe"):
        outcome = await handle_event(failed["id"])
    assert outcome.startswith("payment failed: ") and outcome != "payment failed: no reason given"
    assert [r.levelno for r in caplog.records if "failed" in r.getMessage()][0] == logging.WARNING
    assert await Order.all().count() == 0


async def test_a_failed_payment_of_an_intent_not_ours_is_information_not_an_error(
        client, stripe_gateway, localstripe_url, caplog):
    from services.payments.stripe.handling import handle_event

    # Given an intent of another integration on the same Stripe account, its card declined
    failed = stripe_fake.event("payment_intent.payment_failed", await stripe_fake.declined_intent(
        localstripe_url, {"order": "elsewhere-42"}))
    r = await deliver(client, failed)
    assert r.status_code == 200, r.text
    with caplog.at_level(logging.INFO, logger="commerce.stripe"):
        outcome = await handle_event(failed["id"])
    # I expect it recorded as ignored and logged below WARNING
    assert outcome.startswith("ignored: the intent pays no cart of this store")
    assert caplog.records and max(r.levelno for r in caplog.records) == logging.INFO


async def test_an_intent_that_pays_no_cart_of_ours_is_ignored(
        client, stripe_gateway, localstripe_url, worker):
    intent = await stripe_fake.post(localstripe_url, "/v1/payment_intents", amount="1000", currency="usd",
                                    payment_method="pm_card_visa", confirm="true",
                                    **{"metadata[resource_id]": "cart_01NOSUCHCART"})
    unknown = stripe_fake.event("payment_intent.succeeded", intent)
    assert (await deliver(client, unknown)).status_code == 200
    assert (await handled(unknown["id"])).outcome.startswith("ignored")
    assert await Order.all().count() == 0


async def test_a_cart_paid_at_stripe_is_completed_by_stripes_own_webhook(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, worker):
    from dataclasses import replace

    from tests.conftest import use_stripe

    # Given localstripe sending its events to our hook (as Stripe does to the endpoint set in its
    # dashboard), and capture at authorization (localstripe sends payment_intent.succeeded only then)
    use_stripe(replace(stripe_gateway, stripe_capture=True))
    url = str(client.base_url.join("/stripe/hooks"))
    await stripe_fake.post(localstripe_url, "/_config/webhooks/commerce", url=url, secret=stripe_fake.WEBHOOK_SECRET)
    try:
        # When the shopper confirms the card and closes the tab (the storefront never completes)
        cart = await stripe_cart(client, admin_headers)
        await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
        # I expect the webhook to place one order, its payment captured
        order = await wait_for(lambda: Order.get_or_none(cart_id=cart["id"], payment_status="captured"), timeout=30)
    finally:
        await stripe_fake.post(localstripe_url, "/_config/webhooks/commerce", url=url,
                               secret=stripe_fake.WEBHOOK_SECRET, **{"events[0]": "none.none"})
    assert await Order.filter(cart_id=cart["id"]).count() == 1
    r = await complete(client, cart)  # the storefront coming back later gets that order
    assert r.json()["type"] == "order" and r.json()["data"]["id"] == order.id


async def test_a_cart_authorized_at_stripe_is_completed_by_the_webhook(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, worker):
    cart = await stripe_cart(client, admin_headers)
    intent = await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
    event = stripe_fake.event("payment_intent.amount_capturable_updated", intent)
    assert (await deliver(client, event)).status_code == 200
    assert (await handled(event["id"])).outcome.startswith("order ")
    order = await Order.get(cart_id=cart["id"])
    assert order.payment_status == "awaiting"
    assert (await intent_at_stripe(localstripe_url, intent["id"]))["status"] == "requires_capture"


async def test_an_intent_captured_at_authorization_marks_the_order_captured(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, worker):
    from dataclasses import replace

    from tests.conftest import use_stripe

    use_stripe(replace(stripe_gateway, stripe_capture=True))
    cart = await stripe_cart(client, admin_headers)
    assert intent_of(cart)["capture_method"] == "automatic"
    intent = await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
    assert intent["status"] == "succeeded"
    order = (await complete(client, cart)).json()["data"]
    event = stripe_fake.event("payment_intent.succeeded", intent)
    assert (await deliver(client, event)).status_code == 200
    assert (await handled(event["id"])).outcome.endswith("payment captured")
    assert (await Order.get(id=order["id"])).payment_status == "captured"


async def test_a_refund_made_in_stripes_dashboard_shows_once_on_the_order(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, worker):
    order = await paid_order(client, admin_headers, localstripe_url)
    assert (await client.post(f"/admin/orders/{order['id']}/capture", headers=admin_headers)).status_code == 200
    intent_id = (await Payment.get(order_id=order["id"])).data["id"]
    # Given 400 refunded in Stripe's dashboard, and Stripe's event about it sent twice (two ids)
    await stripe_fake.post(localstripe_url, "/v1/refunds", payment_intent=intent_id, amount="400")
    charge = await charge_of(localstripe_url, intent_id)
    assert charge["amount_refunded"] == 400
    for _ in range(2):
        event = stripe_fake.event("charge.refunded", charge)
        assert (await deliver(client, event)).status_code == 200
        await handled(event["id"])
    # I expect one refund of 400 on the order
    refunds = await Refund.filter(order_id=order["id"])
    assert [(r.amount, r.reason) for r in refunds] == [(400, "other")]
    assert (await Payment.get(order_id=order["id"])).amount_refunded == 400
    assert (await Order.get(id=order["id"])).payment_status == "partially_refunded"


async def test_a_dispute_is_noted_on_the_orders_timeline(client, admin_headers, seeded, stripe_gateway,
                                                         localstripe_url, worker):
    order = await paid_order(client, admin_headers, localstripe_url)
    intent_id = (await Payment.get(order_id=order["id"])).data["id"]
    dispute = await stripe_fake.dispute(localstripe_url, (await charge_of(localstripe_url, intent_id))["id"])
    # The body's amount and reason are not Stripe's: the note says what Stripe says.
    event = stripe_fake.event("charge.dispute.created", {**dispute, "amount": 1, "reason": "forged"})
    assert (await deliver(client, event)).status_code == 200
    await handled(event["id"])
    notes = await Note.filter(resource_type="order", resource_id=order["id"])
    assert [n.value for n in notes] == [
        f"Stripe dispute {dispute['id']} opened for {dispute['amount']} USD: fraudulent"]


async def test_an_event_about_an_object_stripe_does_not_know_changes_nothing(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, worker):
    order = await paid_order(client, admin_headers, localstripe_url)
    intent_id = (await Payment.get(order_id=order["id"])).data["id"]
    made_up = stripe_fake.event("charge.dispute.created", {
        "id": "dp_madeup", "object": "dispute", "amount": 2500, "currency": "usd", "reason": "fraudulent",
        "payment_intent": intent_id})
    assert (await deliver(client, made_up)).status_code == 200
    assert (await handled(made_up["id"])).outcome == "ignored: Stripe has no dispute dp_madeup"
    assert await Note.filter(resource_type="order", resource_id=order["id"]).count() == 0


async def test_without_a_webhook_secret_every_event_is_refused(client, stripe_gateway):
    from dataclasses import replace

    from tests.conftest import use_stripe

    use_stripe(replace(stripe_gateway, stripe_webhook_secret=None))
    r = await deliver(client, stripe_fake.event("payment_intent.succeeded", {"id": "pi_x", "metadata": {}}))
    assert r.status_code == 400 and "STRIPE_WEBHOOK_SECRET" in r.json()["message"], r.text
    assert await GatewayEvent.all().count() == 0


async def test_handled_events_are_purged_after_thirty_days_and_unhandled_ones_kept(client, stripe_gateway):
    from datetime import timedelta

    from services.core import clock
    from services.payments.stripe.webhooks import purge_handled

    events = [stripe_fake.event("customer.created", {"id": f"cus_{i}"}) for i in range(3)]
    for event in events:
        assert (await deliver(client, event)).status_code == 200
    old, recent, unhandled = (e["id"] for e in events)
    await GatewayEvent.filter(id=old).update(handled_at=clock.now() - timedelta(days=31))
    await GatewayEvent.filter(id=recent).update(handled_at=clock.now() - timedelta(days=29))
    assert await purge_handled() == 1
    assert set(await GatewayEvent.all().values_list("id", flat=True)) == {recent, unhandled}


async def test_a_forged_succeeded_body_does_not_capture_an_intent_stripe_holds_uncaptured(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, worker):
    # Given a cart whose card is authorized at Stripe, the money held uncaptured
    cart = await stripe_cart(client, admin_headers)
    intent = await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
    assert intent["status"] == "requires_capture"
    # When a signed event's body says the intent succeeded (captured)
    event = stripe_fake.event("payment_intent.succeeded", {**intent, "status": "succeeded"})
    assert (await deliver(client, event)).status_code == 200
    # I expect the handling to act on the intent as Stripe has it: an order, its payment not captured
    assert (await handled(event["id"])).outcome == f"order {(await Order.get(cart_id=cart['id'])).id}"
    assert (await Order.get(cart_id=cart["id"])).payment_status == "awaiting"
    assert (await intent_at_stripe(localstripe_url, intent["id"]))["status"] == "requires_capture"


async def test_a_forged_refund_body_records_only_what_stripe_refunded(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, worker):
    order = await paid_order(client, admin_headers, localstripe_url)
    assert (await client.post(f"/admin/orders/{order['id']}/capture", headers=admin_headers)).status_code == 200
    intent_id = (await Payment.get(order_id=order["id"])).data["id"]
    # Given a charge nothing was refunded of, and an event whose body says 1000 was
    charge = await charge_of(localstripe_url, intent_id)
    assert charge["amount_refunded"] == 0
    event = stripe_fake.event("charge.refunded", {**charge, "amount_refunded": 1000, "refunded": True})
    assert (await deliver(client, event)).status_code == 200
    await handled(event["id"])
    # I expect no refund on the order
    assert await Refund.filter(order_id=order["id"]).count() == 0
    assert (await Order.get(id=order["id"])).payment_status == "captured"

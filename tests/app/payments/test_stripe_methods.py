"""Medusa's European Stripe providers (medusa-payment-stripe's `stripe-ideal`, `stripe-bancontact`,
`stripe-giropay`, `stripe-blik`, `stripe-przelewy24`) against localstripe: each offered per region
like `stripe`, its intent naming its one payment method and capturing at once; the shopper
approves at their bank, the storefront completes the cart, Stripe's webhook marks it captured."""

from __future__ import annotations

import asyncio

import pytest

from models import GatewayEvent, Order, Payment
from tests import stripe_fake
from tests.conftest import use_stripe
from tests.cart_factories import shopper
from tests.checkout_factories import complete
from tests.conftest import BROKER, wait_for
from tests.stripe_factories import intent_of, offer_stripe, stripe_cart
from workers.embedded import start_embedded_worker, stop_embedded_worker

METHODS = {"stripe-ideal": "ideal", "stripe-bancontact": "bancontact", "stripe-giropay": "giropay",
           "stripe-blik": "blik", "stripe-przelewy24": "p24"}


async def test_with_stripe_configured_every_european_method_is_a_provider_a_region_can_offer(
        client, admin_headers, seeded, stripe_gateway):
    r = await client.get("/admin/store/payment-providers", headers=admin_headers)
    assert {"stripe", *METHODS} <= {p["id"] for p in r.json()["payment_providers"]}
    region = await offer_stripe(client, admin_headers, "EU", "stripe-ideal")
    assert "stripe-ideal" in {p["id"] for p in region["payment_providers"]}
    r = await client.get("/store/regions")
    offering = [g["id"] for g in r.json()["regions"] if "stripe-ideal" in {p["id"] for p in g["payment_providers"]}]
    assert offering == [region["id"]]


@pytest.mark.parametrize("provider_id", sorted(METHODS))
async def test_a_bank_approved_payment_completes_the_cart_and_the_webhook_marks_it_captured(
        client, admin_headers, seeded, stripe_gateway, localstripe_url, provider_id):
    # Given an EU cart paying with the method's provider: its intent allows that method only
    # and captures when the shopper approves, as Medusa's plugin asks Stripe
    cart = await stripe_cart(client, admin_headers, region="EU", provider_id=provider_id)
    intent = intent_of(cart, provider_id)
    assert (intent["payment_method_types"], intent["capture_method"]) == ([METHODS[provider_id]], "automatic")
    assert (intent["amount"], intent["currency"], intent["metadata"]) == (cart["total"], "eur", {"resource_id": cart["id"]})
    # When the shopper confirms, is sent to their bank, and the storefront completes meanwhile
    waiting = await stripe_fake.confirm_at_bank(localstripe_url, intent["id"], METHODS[provider_id])
    assert waiting["status"] == "requires_action"
    r = await complete(client, cart)
    assert r.status_code == 200 and r.json()["type"] == "cart", r.text
    assert r.json()["payment_status"] == "requires_more"
    # Then approves at the bank, and the storefront completes again
    assert (await stripe_fake.authenticate(localstripe_url, waiting))["status"] == "succeeded"
    r = await complete(client, cart)
    assert r.status_code == 200 and r.json()["type"] == "order", r.text
    order = r.json()["data"]
    payment = await Payment.get(order_id=order["id"])
    assert (payment.provider_id, payment.data["id"]) == (provider_id, intent["id"])
    # I expect Stripe's payment_intent.succeeded to mark the order's payment captured, once
    event = stripe_fake.event("payment_intent.succeeded", await stripe_fake.get(
        localstripe_url, f"/v1/payment_intents/{intent['id']}"))
    body, headers = stripe_fake.signed(event)
    assert (await client.post("/stripe/hooks", content=body, headers=headers)).status_code == 200
    # (its handling hands the cart to checkout, which captures: a worker runs the jobs)
    worker = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    try:
        handled = await wait_for(lambda: GatewayEvent.get_or_none(id=event["id"], handled_at__not_isnull=True),
                                 timeout=30)
    finally:
        await stop_embedded_worker(worker)
    assert handled.outcome.endswith("payment captured")
    assert (await Order.get(id=order["id"])).payment_status == "captured"
    assert await Order.filter(cart_id=cart["id"]).count() == 1


async def test_a_european_method_lists_no_saved_cards_and_ignores_automatic_payment_methods(
        client, admin_headers, seeded, stripe_gateway):
    from dataclasses import replace

    from services.payments import get_provider, stripe

    # Stripe refuses both at once (localstripe refuses any automatic_payment_methods): the intent
    # being made at all shows it was not sent.
    use_stripe(replace(stripe_gateway, stripe_automatic_payment_methods=True))
    cart = await stripe_cart(client, admin_headers, region="EU", provider_id="stripe-ideal")
    assert intent_of(cart, "stripe-ideal")["payment_method_types"] == ["ideal"]
    customer, _ = await shopper(client)
    assert await get_provider("stripe-ideal").saved_methods(customer.id) == []

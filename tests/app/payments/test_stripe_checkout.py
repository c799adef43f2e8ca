"""Paying with Stripe as a Medusa v1 storefront does (medusa-payment-stripe 6.x), against
localstripe: the session is the PaymentIntent, the card is confirmed at Stripe by the browser,
completion reads the intent; the dashboard's capture and refund act on it."""

from __future__ import annotations

import httpx

from models import Customer, Order, Payment, Refund
from services.payments import get_provider
from tests import stripe_fake
from tests.cart_factories import shopper
from tests.checkout_factories import complete
from tests.stripe_factories import intent_of, offer_stripe, paid_order, stripe_cart


async def test_a_configured_stripe_is_listed_and_a_region_can_offer_it(client, admin_headers, seeded, stripe_gateway):
    r = await client.get("/admin/store/payment-providers", headers=admin_headers)
    assert "stripe" in {p["id"] for p in r.json()["payment_providers"]}
    region = await offer_stripe(client, admin_headers)
    assert "stripe" in {p["id"] for p in region["payment_providers"]}


async def test_the_session_is_a_payment_intent_for_the_cart(client, admin_headers, seeded, stripe_gateway,
                                                            localstripe_url):
    cart = await stripe_cart(client, admin_headers)
    intent = intent_of(cart)
    # What Stripe Elements reads, and what Medusa's plugin asks Stripe for.
    assert intent["id"].startswith("pi_") and intent["client_secret"].startswith(intent["id"])
    assert intent["status"] == "requires_payment_method"
    assert (intent["amount"], intent["currency"]) == (cart["total"], "usd")
    assert intent["capture_method"] == "manual"
    assert intent["metadata"] == {"resource_id": cart["id"]}
    at_stripe = await stripe_fake.get(localstripe_url, f"/v1/payment_intents/{intent['id']}")
    assert at_stripe["amount"] == cart["total"]


async def test_a_card_confirmed_at_stripe_completes_the_cart_with_the_payment_authorized(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    # Given a cart whose shopper confirmed a card at Stripe, as Stripe.js does
    cart = await stripe_cart(client, admin_headers)
    await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
    # When the storefront completes the cart
    r = await complete(client, cart)
    # I expect an order awaiting capture, its payment the authorized intent
    assert r.status_code == 200, r.text
    order = r.json()["data"]
    assert r.json()["type"] == "order" and order["payment_status"] == "awaiting"
    payment = await Payment.get(order_id=order["id"])
    assert payment.provider_id == "stripe" and payment.data["status"] == "requires_capture"
    assert payment.data["id"] == intent_of(cart)["id"]


async def test_a_three_d_secure_card_asks_for_more_then_completes_once_authenticated(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    cart = await stripe_cart(client, admin_headers)
    method = await stripe_fake.card(localstripe_url, stripe_fake.THREE_D_SECURE_CARD)
    intent = await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"], method)
    assert intent["status"] == "requires_action"
    r = await complete(client, cart)
    assert r.status_code == 200 and r.json()["type"] == "cart", r.text
    assert r.json()["payment_status"] == "requires_more"
    await stripe_fake.authenticate(localstripe_url, intent)
    r = await complete(client, cart)
    assert r.status_code == 200 and r.json()["type"] == "order", r.text


async def test_a_customer_gets_one_stripe_customer_remembered_in_its_metadata(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    customer, headers = await shopper(client)
    first = await stripe_cart(client, admin_headers, headers)
    second = await stripe_cart(client, admin_headers, headers)
    assert first["customer_id"] == second["customer_id"] == customer.id
    stripe_id = (await Customer.get(id=customer.id)).metadata["stripe_id"]
    assert intent_of(first)["customer"] == intent_of(second)["customer"] == stripe_id
    # A card the customer saved at Stripe is listed as theirs.
    await stripe_fake.post(localstripe_url, "/v1/payment_methods/pm_card_visa/attach", customer=stripe_id)
    r = await client.get("/store/customers/me/payment-methods", headers=headers)
    assert r.status_code == 200, r.text
    methods = r.json()["payment_methods"]
    assert [m["provider_id"] for m in methods] == ["stripe"] and methods[0]["data"]["card"]["last4"] == "4242"


async def test_capture_and_refund_from_the_dashboard_act_on_the_intent(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    order = await paid_order(client, admin_headers, localstripe_url)
    intent_id = (await Payment.get(order_id=order["id"])).data["id"]
    r = await client.post(f"/admin/orders/{order['id']}/capture", headers=admin_headers)
    assert r.status_code == 200 and r.json()["order"]["payment_status"] == "captured", r.text
    assert (await stripe_fake.get(localstripe_url, f"/v1/payment_intents/{intent_id}"))["status"] == "succeeded"
    r = await client.post(f"/admin/orders/{order['id']}/refund", headers=admin_headers,
                          json={"amount": 300, "reason": "discount"})
    assert r.status_code == 200, r.text
    refunds = (await stripe_fake.get(localstripe_url, "/v1/refunds", payment_intent=intent_id))["data"]
    assert [x["amount"] for x in refunds] == [300]


async def test_a_refund_retried_after_a_timeout_refunds_once_at_stripe(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    # Given a captured Stripe order, and a gateway whose first refund answer never arrives
    order = await paid_order(client, admin_headers, localstripe_url)
    r = await client.post(f"/admin/orders/{order['id']}/capture", headers=admin_headers)
    assert r.status_code == 200, r.text
    api = get_provider("stripe").api
    real_refund, lost = api.refund, []

    async def answer_lost(*args):
        made = await real_refund(*args)
        if not lost:
            lost.append(True)
            raise httpx.ReadTimeout("the answer was lost")
        return made

    api.refund = answer_lost
    headers = {**admin_headers, "Idempotency-Key": "refund-once"}
    body = {"amount": 500, "reason": "return"}
    try:
        # When the refund fails on our side after Stripe made it, and is retried with its key
        first = await client.post(f"/admin/orders/{order['id']}/refund", headers=headers, json=body)
        assert first.status_code == 503, first.text
        assert await Refund.filter(order_id=order["id"]).count() == 0
        second = await client.post(f"/admin/orders/{order['id']}/refund", headers=headers, json=body)
    finally:
        del api.refund
    # I expect one refund here and one at Stripe
    assert second.status_code == 200, second.text
    assert await Refund.filter(order_id=order["id"]).count() == 1
    intent_id = (await Payment.get(order_id=order["id"])).data["id"]
    refunds = (await stripe_fake.get(localstripe_url, "/v1/refunds", payment_intent=intent_id))["data"]
    assert [x["amount"] for x in refunds] == [500]


async def test_a_stripe_refusal_is_answered_with_its_message_and_changes_nothing(
        client, admin_headers, seeded, stripe_gateway):
    cart = await stripe_cart(client, admin_headers)
    before = intent_of(cart)
    r = await client.post(f"/store/carts/{cart['id']}/payment-sessions/stripe",
                          json={"data": {"receipt_email": "jane@example.com"}})
    assert r.status_code == 422, r.text
    assert r.json()["type"] == "payment_authorization_error" and "Stripe refused the request" in r.json()["message"]
    r = await client.get(f"/store/carts/{cart['id']}")
    assert intent_of(r.json()["cart"]) == before


async def test_stripe_out_of_reach_is_a_502_and_no_session_is_started(client, admin_headers, seeded, stripe_gateway):
    from dataclasses import replace

    from tests.conftest import use_stripe

    from tests.conftest import _free_port

    # A port just freed: nothing listens there, the gateway is away.
    use_stripe(replace(stripe_gateway, stripe_api_base=f"http://127.0.0.1:{_free_port()}"))
    await offer_stripe(client, admin_headers)
    from tests.checkout_factories import ready_cart

    cart = await ready_cart(client, pay=False)
    r = await client.post(f"/store/carts/{cart['id']}/payment-session", json={"provider_id": "stripe"})
    assert r.status_code == 502, r.text
    assert r.json()["type"] == "payment_gateway_error" and "Stripe did not answer" in r.json()["message"]
    r = await client.get(f"/store/carts/{cart['id']}")
    assert not any(s["is_selected"] for s in r.json()["cart"]["payment_sessions"])
    assert await Order.filter(cart_id=cart["id"]).count() == 0


async def test_a_session_start_whose_answer_was_lost_makes_one_intent_when_retried(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    from services.core.errors import GatewayUnavailable
    from tests.checkout_factories import ready_cart

    # Given a cart with its sessions created (the storefront's first step), and a Stripe whose
    # first answer to creating the intent never arrives
    await offer_stripe(client, admin_headers)
    cart = await ready_cart(client, pay=False)
    assert (await client.post(f"/store/carts/{cart['id']}/payment-sessions", json={})).status_code == 200
    api = get_provider("stripe").api
    real_create, lost = api.create_intent, []

    async def answer_lost(*args):
        made = await real_create(*args)
        if not lost:
            lost.append(made["id"])
            raise GatewayUnavailable("Stripe did not answer: timed out")
        return made

    api.create_intent = answer_lost
    try:
        # When the shopper selects Stripe, and tries again after the 502
        first = await client.post(f"/store/carts/{cart['id']}/payment-session", json={"provider_id": "stripe"})
        assert first.status_code == 502, first.text
        second = await client.post(f"/store/carts/{cart['id']}/payment-session", json={"provider_id": "stripe"})
    finally:
        del api.create_intent
    # I expect the intent Stripe made the first time, and no other
    assert second.status_code == 200, second.text
    assert intent_of(second.json()["cart"])["id"] == lost[0]
    intents = (await stripe_fake.get(localstripe_url, "/v1/payment_intents", limit=100))["data"]
    assert [i["id"] for i in intents if i["metadata"].get("resource_id") == cart["id"]] == lost


async def test_the_shopper_may_set_the_card_but_not_what_the_shop_owns_on_the_intent(
        client, admin_headers, seeded, stripe_gateway, localstripe_url):
    cart = await stripe_cart(client, admin_headers)
    path = f"/store/carts/{cart['id']}/payment-sessions/stripe"
    for data in ({"amount": 1}, {"metadata": {"resource_id": "cart_other"}}, {"capture_method": "automatic"}):
        r = await client.post(path, json={"data": data})
        assert r.status_code == 400 and r.json()["type"] == "invalid_data", r.text
    r = await client.post(path, json={"data": {"payment_method": "pm_card_visa"}})
    assert r.status_code == 200, r.text
    assert intent_of(r.json()["cart"])["status"] == "requires_confirmation"
    at_stripe = await stripe_fake.get(localstripe_url, f"/v1/payment_intents/{intent_of(cart)['id']}")
    assert at_stripe["metadata"] == {"resource_id": cart["id"]} and at_stripe["capture_method"] == "manual"


async def test_canceling_the_order_releases_the_hold_at_stripe(client, admin_headers, seeded, stripe_gateway,
                                                                localstripe_url):
    order = await paid_order(client, admin_headers, localstripe_url)
    intent_id = (await Payment.get(order_id=order["id"])).data["id"]
    r = await client.post(f"/admin/orders/{order['id']}/cancel", headers=admin_headers)
    assert r.status_code == 200, r.text
    assert (await stripe_fake.get(localstripe_url, f"/v1/payment_intents/{intent_id}"))["status"] == "canceled"

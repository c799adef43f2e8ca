"""Internal events (what a payment gateway said, for the areas above payments to act on) are heard
only by the subscribers that name them: webhooks, which subscribe to every event, never send them,
and the webhook API does not offer them, since Medusa emits no such events."""

from __future__ import annotations

from services.events import names as ev
from services.events.subscribers import subscribers_for


def test_an_internal_event_is_heard_only_by_the_subscribers_that_name_it():
    assert {s.id for s in subscribers_for(ev.GATEWAY_PAYMENT_READY)} == {"checkout"}
    assert {s.id for s in subscribers_for(ev.GATEWAY_REFUND_MADE)} == {"orders"}
    # while Medusa's events still reach every subscriber to all of them
    assert "webhooks" in {s.id for s in subscribers_for(ev.ORDER_PLACED)}


def test_the_webhook_api_does_not_offer_internal_events():
    assert not ev.INTERNAL_EVENT_NAMES & ev.EVENT_NAMES
    assert not ev.is_known(ev.GATEWAY_PAYMENT_READY) and not ev.is_known(ev.GATEWAY_REFUND_MADE)

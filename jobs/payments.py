"""Payment gateways' long work: a Stripe event recorded by `POST /stripe/hooks`, handled once;
the scheduled reconciliation of Stripe's intents with our carts."""

import dramatiq

from services.payments.stripe.handling import handle_event
from services.payments.stripe.sweep import reconcile_intents
from services.payments.stripe.webhooks import HANDLE_ACTOR

# A failure to reach Stripe or the database is retried after a second, then up to a minute.
_OPTIONS = {"queue_name": "default", "max_retries": 8, "min_backoff": 1_000, "max_backoff": 60_000,
            "time_limit": 120_000}


@dramatiq.actor(actor_name=HANDLE_ACTOR, **_OPTIONS)
async def handle_stripe_event(event_id: str) -> dict:
    return {"outcome": await handle_event(event_id)}


@dramatiq.actor(queue_name="maintenance", max_retries=3, time_limit=300_000)
async def reconcile_stripe_intents(abandoned_minutes: float) -> dict:
    """Stripe holds of carts without an order released, and carts paid without a webhook handed to
    checkout to complete."""
    return await reconcile_intents(abandoned_minutes)

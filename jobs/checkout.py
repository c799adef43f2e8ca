"""Cart completions finished by a worker. The retry: completions that stopped at a recovery point
for a transient reason; the message names the idempotency key, and the run takes the key's hold
first, so a duplicate message, or a client retrying the key at the same moment, does no harm.
The paid cart: a cart a gateway said was paid (services/checkout/paid.py), completed under the
gateway event's own key, which may race the shopper's own completion."""

import dramatiq

from services.checkout.answers import configured_answers
from services.checkout.completion import RETRY_ACTOR, resume_completion
from services.checkout.paid import PAID_ACTOR, complete_paid_cart

# Backoff from 1 s to 1 min: a database failover or a gateway blip is usually over by then (and a
# paid cart's key held by the shopper's completion is settled); the scheduler's sweep of stalled
# keys picks up whatever outlives the retries.
_OPTIONS = {"queue_name": "default", "max_retries": 8, "min_backoff": 1_000, "max_backoff": 60_000,
            "time_limit": 120_000}


@dramatiq.actor(actor_name=RETRY_ACTOR, **_OPTIONS)
async def retry_cart_completion(key_id: str) -> dict:
    return {"outcome": await resume_completion(key_id, configured_answers())}


@dramatiq.actor(actor_name=PAID_ACTOR, **_OPTIONS)
async def complete_paid_cart_job(event_id: str) -> dict:
    return {"outcome": await complete_paid_cart(event_id, configured_answers())}

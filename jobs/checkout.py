"""Cart completions that stopped at a recovery point for a transient reason, finished by a
worker. The message names the idempotency key; the run takes the key's hold first, so a
duplicate message, or a client retrying the key at the same moment, does no harm."""

import dramatiq

from services.checkout.answers import configured_answers
from services.checkout.completion import RETRY_ACTOR, resume_completion

# Backoff from 1 s to 1 min: a database failover or a gateway blip is usually over by then; the
# scheduler's sweep of stalled keys picks up whatever outlives the retries.
_OPTIONS = {"queue_name": "default", "max_retries": 8, "min_backoff": 1_000, "max_backoff": 60_000,
            "time_limit": 120_000}


@dramatiq.actor(actor_name=RETRY_ACTOR, **_OPTIONS)
async def retry_cart_completion(key_id: str) -> dict:
    return {"outcome": await resume_completion(key_id, configured_answers())}

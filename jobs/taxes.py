"""Tax calculation through a region's tax provider, as an actor: `POST
/store/carts/:id/taxes` asks for it and waits a bounded time (services/carts/taxes.py).

Running twice is harmless: the job only reads the cart and records the lines it computed, with
the fingerprint of the cart they are for. The fingerprint argument is the state the request saw;
it makes the job findable by the requests that repeat it."""

import dramatiq

from services.carts import taxes as cart_taxes

# A provider's refusal is the job's outcome, recorded by the service; what escapes (the tax
# service or the database away) is retried quickly, as a shopper is waiting.
_OPTIONS = {"queue_name": "default", "max_retries": 2, "min_backoff": 200, "max_backoff": 2_000, "time_limit": 60_000}


@dramatiq.actor(actor_name=cart_taxes.TAX_ACTOR, **_OPTIONS)
async def calculate_cart_taxes(cart_id: str, fingerprint: str) -> dict:
    return await cart_taxes.run_tax_calculation(cart_id)

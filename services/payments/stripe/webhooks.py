"""Stripe's webhook, `POST /stripe/hooks` (Medusa's path): the event is verified against
STRIPE_WEBHOOK_SECRET, recorded once by its Stripe id, and handed to a job (handling.py) in the
same transaction; the request answers at once.

Verification is Stripe's scheme (https://docs.stripe.com/webhooks#verify-manually): the header's
`t` within TOLERANCE_SECONDS of now, and one of its `v1` signatures (there are several while a
secret is rolled) the HMAC-SHA256 of `t.body`. Anything else is refused and changes nothing.
Stripe's library refuses only a `t` too far in the past; one too far ahead (a delivery signed to
be replayed later, or a sender's clock far off) is refused here too."""

from __future__ import annotations

import time
from datetime import timedelta

import orjson
from tortoise.exceptions import IntegrityError

from models import GatewayEvent
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData
from services.core.purging import delete_in_batches
from services.payments import get_provider, is_registered
from services.payments.stripe.provider import PROVIDER_ID

__all__ = ["receive_event", "purge_handled", "HANDLE_ACTOR", "TOLERANCE_SECONDS", "KEPT_SECONDS"]

HANDLE_ACTOR = "handle_stripe_event"
TOLERANCE_SECONDS = 300  # Stripe's own libraries' default
MAX_EVENT_ID_LENGTH = 255
# Stripe retries a delivery for up to three days: a handled event is kept well past that, so a
# late repeat is still recognised, then purged by the maintenance.
KEPT_SECONDS = 30 * 86400.0

async def receive_event(payload: bytes, signature: str | None) -> bool:
    """Verify and record the event; True when it is new (its job asked for), False for a repeat."""
    event = _verified(payload, signature)
    try:
        async with atomic():
            await GatewayEvent.create(id=event["id"], provider_id=PROVIDER_ID, type=event["type"], data=event)
            from services.core.outbox import enqueue

            await enqueue(HANDLE_ACTOR, event["id"])
    except IntegrityError:  # Stripe delivered it again (or twice at once): handled once
        return False
    return True


async def purge_handled(kept: float = KEPT_SECONDS) -> int:
    """Handled events older than `kept` seconds deleted, in batches along the `handled_at` index
    (services/core/purging.py); answers how many."""
    return await delete_in_batches(GatewayEvent.filter(handled_at__lt=clock.now() - timedelta(seconds=kept)),
                                   "handled_at")


def _verified(payload: bytes, signature: str | None) -> dict:
    import stripe  # on first use: see client.py

    # The secret travels with the registered provider (STRIPE_API_KEY and STRIPE_WEBHOOK_SECRET).
    secret = get_provider(PROVIDER_ID).webhook_secret if is_registered(PROVIDER_ID) else None
    if not secret:
        raise InvalidData("Webhook Error: Stripe webhooks are not configured (STRIPE_WEBHOOK_SECRET)")
    if not signature:
        raise InvalidData("Webhook Error: the Stripe-Signature header is missing")
    try:
        text = payload.decode("utf-8")
        stripe.WebhookSignature.verify_header(text, signature, secret, TOLERANCE_SECONDS)
    except UnicodeDecodeError:
        raise InvalidData("Webhook Error: the body is not UTF-8") from None
    except stripe.SignatureVerificationError as e:
        raise InvalidData(f"Webhook Error: {e.user_message or e}") from None
    if _timestamp(signature) > time.time() + TOLERANCE_SECONDS:  # the clock Stripe's library reads
        raise InvalidData("Webhook Error: Timestamp outside the tolerance zone (in the future)")
    try:
        event = orjson.loads(payload)
    except orjson.JSONDecodeError:
        raise InvalidData("Webhook Error: the body is not JSON") from None
    if not isinstance(event, dict) or not isinstance(event.get("type"), str) or not isinstance(
            (event.get("data") or {}).get("object") if isinstance(event.get("data"), dict) else None, dict):
        raise InvalidData("Webhook Error: the body is not a Stripe event (type, data.object)")
    event_id = event.get("id")
    if not isinstance(event_id, str) or not 0 < len(event_id) <= MAX_EVENT_ID_LENGTH:
        raise InvalidData("Webhook Error: the event has no id")
    if len(event["type"]) > 100:
        raise InvalidData("Webhook Error: the event's type is not one of Stripe's")
    return event


def _timestamp(signature: str) -> int:
    """The header's first `t` (seconds since the epoch), the one verify_header checked."""
    for item in signature.split(","):
        key, _, value = item.partition("=")  # read as the library reads it
        if key == "t":
            return int(value)
    raise InvalidData("Webhook Error: Unable to extract timestamp and signatures from header")

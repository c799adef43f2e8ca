"""Sending one webhook delivery (Standard Webhooks 1.0): a POST
of `{type, timestamp, data}` with `webhook-id` (the event's id, the same on every attempt and
redelivery, for the receiver to drop duplicates), `webhook-timestamp` (this attempt) and
`webhook-signature`; sent only to a vetted address of the URL's host (sending.py), no redirects
followed; a timeout per attempt.

A 2xx is delivered. A 410 means the receiver is gone: the delivery fails and the endpoint is
disabled. Anything else (another status, a timeout, a refused connection or address) is retried
on the schedule below, about three days in all, honouring a `Retry-After` of up to a day; the
scheduler's sweep queues each retry when it is due. An endpoint failing for
WEBHOOK_DISABLE_AFTER_SECONDS without a single success is disabled.
"""

from __future__ import annotations

import logging
import random
import time
from datetime import timedelta

import httpx
import orjson

from services.core import outbox
from models import Event, WebhookDelivery, WebhookEndpoint
from services.core import clock
from services.core.db import atomic
from services.core.errors import NotAllowed, NotFound
from services.webhooks import settings
from services.webhooks.destinations import Refused
from services.webhooks.sending import post
from services.webhooks.signing import signature_header
from services.webhooks.subscriber import DELIVER_ACTOR

__all__ = ["attempt", "queue_due", "redeliver", "BACKOFF_SECONDS", "body_of"]

log = logging.getLogger("commerce.webhooks")

# The wait after each failed attempt (the specification's example): then the delivery fails.
BACKOFF_SECONDS = (5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400)
_FINAL = ("succeeded", "failed", "canceled")


def body_of(event: Event) -> bytes:
    return orjson.dumps({"type": event.name, "timestamp": event.created_at.isoformat(), "data": event.data})


def _secrets(endpoint: WebhookEndpoint) -> list[str]:
    out = [endpoint.secret]
    expires = endpoint.previous_secret_expires_at
    if endpoint.previous_secret and expires and expires > clock.now():
        out.append(endpoint.previous_secret)
    return out


async def attempt(delivery_id: str) -> dict:
    delivery = await WebhookDelivery.get_or_none(id=delivery_id)
    if delivery is None or delivery.status != "queued":
        return {"skipped": delivery_id}
    endpoint = await WebhookEndpoint.get_or_none(id=delivery.endpoint_id, deleted_at=None)
    if endpoint is None or endpoint.status != "enabled":
        await WebhookDelivery.filter(id=delivery.id, status="queued").update(
            status="canceled", last_error="the endpoint is disabled or deleted")
        return {"canceled": delivery_id}
    event = await Event.get(id=delivery.event_id)
    body = body_of(event)
    timestamp = int(time.time())
    headers = {
        "content-type": "application/json", "user-agent": "commerce-webhooks/1", "webhook-id": event.id,
        "webhook-timestamp": str(timestamp), "webhook-signature": signature_header(_secrets(endpoint), event.id,
                                                                                   timestamp, body),
    }
    config = settings()
    started = time.monotonic()
    code, error, retry_after = None, None, None
    try:
        response = await post(endpoint.url, body, headers, config.webhooks_allow_private,
                              config.webhook_timeout_seconds)
        code = response.status_code
        if not 200 <= code < 300:
            error = f"HTTP {code}: {response.text[:300]}"
            retry_after = _seconds(response.headers.get("retry-after"))
    except Refused as refusal:
        error = str(refusal)
    except httpx.HTTPError as e:
        error = f"{type(e).__name__}: {e}"[:500] or type(e).__name__
    except TimeoutError:
        error = f"no answer within {config.webhook_timeout_seconds:g} seconds"
    duration = int((time.monotonic() - started) * 1000)
    return await _record(delivery, endpoint, code, error, retry_after, duration)


def _seconds(value: str | None) -> float | None:
    try:
        return min(float(value), 86400.0) if value else None
    except ValueError:
        return None


async def _record(delivery: WebhookDelivery, endpoint: WebhookEndpoint, code: int | None, error: str | None,
                  retry_after: float | None, duration: int) -> dict:
    now = clock.now()
    attempts = delivery.attempts + 1
    log_entry = {"at": now.isoformat(), "status_code": code, "error": error, "duration_ms": duration}
    changes: dict = {"attempts": attempts, "last_status_code": code, "last_error": error,
                     "attempt_log": [*delivery.attempt_log, log_entry][-50:], "updated_at": now}
    async with atomic():
        if error is None:
            changes.update(status="succeeded", delivered_at=now, next_attempt_at=None)
            await WebhookEndpoint.filter(id=endpoint.id).update(failing_since=None, last_success_at=now)
        elif code == 410:
            changes.update(status="failed", next_attempt_at=None)
            await _disable(endpoint, "the receiver answered 410 Gone")
        else:
            if attempts > len(BACKOFF_SECONDS):
                changes.update(status="failed", next_attempt_at=None)
            else:
                wait = max(BACKOFF_SECONDS[attempts - 1] * random.uniform(0.9, 1.1), retry_after or 0)
                changes.update(status="retrying", next_attempt_at=now + timedelta(seconds=wait))
            since = endpoint.failing_since or now
            if endpoint.failing_since is None:
                await WebhookEndpoint.filter(id=endpoint.id, failing_since=None).update(failing_since=now)
            if (now - since).total_seconds() >= settings().webhook_disable_after_seconds:
                await _disable(endpoint, f"every delivery failed since {since.isoformat()}")
        recorded = await WebhookDelivery.filter(id=delivery.id, status="queued", attempts=delivery.attempts).update(
            **changes)
    if not recorded:
        return {"superseded": delivery.id}
    if error:
        log.info("webhook %s to %s failed (attempt %d): %s", delivery.id, endpoint.url, attempts, error)
    return {"delivery": delivery.id, "status": changes["status"], "status_code": code}


async def _disable(endpoint: WebhookEndpoint, reason: str) -> None:
    await WebhookEndpoint.filter(id=endpoint.id, status="enabled").update(
        status="disabled", disabled_reason=reason, updated_at=clock.now())
    log.warning("webhook endpoint %s (%s) disabled: %s", endpoint.id, endpoint.url, reason)


async def queue_due(limit: int = 500) -> int:
    """The scheduler's sweep: deliveries whose next attempt is due go back to a worker."""
    due = await WebhookDelivery.filter(status="retrying", next_attempt_at__lte=clock.now()).order_by(
        "next_attempt_at").limit(limit).values_list("id", flat=True)
    queued = 0
    for delivery_id in due:
        async with atomic():
            if await WebhookDelivery.filter(id=delivery_id, status="retrying").update(status="queued"):
                await outbox.enqueue(DELIVER_ACTOR, delivery_id, queue_name="webhooks")
                queued += 1
    return queued


async def redeliver(endpoint_id: str, delivery_id: str) -> WebhookDelivery:
    """Send a delivery again now (the same `webhook-id`), whatever became of it; one being sent
    is left to finish."""
    async with atomic():
        delivery = await WebhookDelivery.get_or_none(id=delivery_id, endpoint_id=endpoint_id)
        if delivery is None:
            raise NotFound(f"Webhook delivery with id {delivery_id} was not found")
        endpoint = await WebhookEndpoint.get(id=endpoint_id)
        if endpoint.status != "enabled":
            raise NotAllowed("The webhook is disabled: enable it before redelivering")
        if delivery.status != "queued":
            await WebhookDelivery.filter(id=delivery.id).update(status="queued", next_attempt_at=None)
            await outbox.enqueue(DELIVER_ACTOR, delivery.id, queue_name="webhooks")
    return await WebhookDelivery.get(id=delivery_id)

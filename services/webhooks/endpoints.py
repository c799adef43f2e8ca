"""The merchant's webhook endpoints (`/admin/webhooks`): made with a fresh secret, changed,
disabled or enabled again, deleted, and their secret rotated (the previous one keeps signing
for a day, so a receiver can switch without losing a delivery)."""

from __future__ import annotations

from datetime import timedelta

from models import WebhookDelivery, WebhookEndpoint
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.ids import fits
from services.events.names import EVENT_NAMES
from services.webhooks import settings
from services.webhooks.destinations import Refused, check_destination, check_url
from services.webhooks.signing import new_secret

__all__ = ["create_endpoint", "update_endpoint", "delete_endpoint", "rotate_secret", "get_endpoint", "list_endpoints",
           "list_deliveries", "ROTATION_OVERLAP_SECONDS", "ENDPOINT_STATUSES"]

ROTATION_OVERLAP_SECONDS = 24 * 3600.0
ENDPOINT_STATUSES = ("enabled", "disabled")


def _events(events: list[str]) -> list[str]:
    names = list(dict.fromkeys(e.strip() for e in events if e and e.strip()))
    if not names:
        raise InvalidData('events must name at least one event, or "*" for every event')
    if "*" in names:
        return ["*"]
    unknown = [n for n in names if n not in EVENT_NAMES]
    if unknown:
        raise InvalidData(f"Unknown event names: {', '.join(unknown)}")
    return names


async def _url(url: str) -> str:
    check_url(url)
    try:
        await check_destination(url, settings().webhooks_allow_private)
    except Refused as refusal:
        raise InvalidData(f"url is not allowed: {refusal}") from None
    return url


async def get_endpoint(endpoint_id: str) -> WebhookEndpoint:
    found = await WebhookEndpoint.get_or_none(id=endpoint_id, deleted_at=None) if fits(
        WebhookEndpoint, endpoint_id) else None
    if found is None:
        raise NotFound(f"Webhook with id {endpoint_id} was not found")
    return found


async def list_endpoints(limit: int, offset: int) -> tuple[list[WebhookEndpoint], int]:
    live = WebhookEndpoint.filter(deleted_at=None)
    return list(await live.order_by("-created_at", "-id").offset(offset).limit(limit)), await live.count()


async def list_deliveries(endpoint_id: str, limit: int, offset: int) -> tuple[list[WebhookDelivery], int]:
    """The endpoint's deliveries, newest first."""
    endpoint = await get_endpoint(endpoint_id)
    mine = WebhookDelivery.filter(endpoint_id=endpoint.id)
    return list(await mine.order_by("-created_at", "-id").offset(offset).limit(limit)), await mine.count()


async def create_endpoint(url: str, events: list[str], description: str | None = None,
                          metadata: dict | None = None) -> WebhookEndpoint:
    names = _events(events)
    return await WebhookEndpoint.create(
        url=await _url(url), events=names, description=description, secret=new_secret(), metadata=metadata or {},
    )


async def update_endpoint(endpoint_id: str, changes: dict) -> WebhookEndpoint:
    async with atomic():
        endpoint = await get_endpoint(endpoint_id)
        columns: dict = {}
        if changes.get("url") is not None:
            columns["url"] = await _url(changes["url"])
        if changes.get("events") is not None:
            columns["events"] = _events(changes["events"])
        if "description" in changes:
            columns["description"] = changes["description"]
        if changes.get("metadata") is not None:
            columns["metadata"] = {**(endpoint.metadata or {}), **changes["metadata"]}
        status = changes.get("status")
        if status is not None:
            if status not in ENDPOINT_STATUSES:
                raise InvalidData('status must be "enabled" or "disabled"')
            columns["status"] = status
            columns["disabled_reason"] = "disabled by a user" if status == "disabled" else None
            if status == "enabled":
                columns["failing_since"] = None
        if columns:
            await WebhookEndpoint.filter(id=endpoint.id).update(updated_at=clock.now(), **columns)
    return await get_endpoint(endpoint_id)


async def delete_endpoint(endpoint_id: str) -> None:
    """Its deliveries not yet made are canceled; the record of those made stays."""
    async with atomic():
        endpoint = await get_endpoint(endpoint_id)
        await WebhookEndpoint.filter(id=endpoint.id).update(deleted_at=clock.now(), status="disabled")
        await WebhookDelivery.filter(endpoint_id=endpoint.id, status__in=("queued", "retrying")).update(
            status="canceled", last_error="the endpoint was deleted")


async def rotate_secret(endpoint_id: str) -> WebhookEndpoint:
    async with atomic():
        endpoint = await get_endpoint(endpoint_id)
        await WebhookEndpoint.filter(id=endpoint.id).update(
            secret=new_secret(), previous_secret=endpoint.secret, updated_at=clock.now(),
            previous_secret_expires_at=clock.now() + timedelta(seconds=ROTATION_OVERLAP_SECONDS),
        )
    return await get_endpoint(endpoint_id)

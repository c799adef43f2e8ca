"""Webhooks, our extension of the Medusa v1 admin API (README "Webhooks"): endpoints under
`/admin/webhooks` (create, list, get, update, disable or enable, delete, rotate the secret) and
their deliveries (listed with every attempt, one redelivered). The signing secret is shown when it
is made (create, rotate) and masked everywhere else."""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request

from app.web.query import QuerySpec, parse_query
from app.web.responses import json
from app.web.validation import Body, NonEmptyStr, parse_body, max_items
from models import WebhookDelivery, WebhookEndpoint
from services.webhooks.delivery import redeliver
from services.webhooks.endpoints import (
    create_endpoint, delete_endpoint, get_endpoint, list_deliveries, list_endpoints, rotate_secret, update_endpoint,
)

__all__ = ["bp"]

bp = Blueprint("admin_webhooks", url_prefix="/webhooks")

_ENDPOINT = ("id", "url", "description", "events", "status", "disabled_reason", "failing_since", "last_success_at",
             "metadata", "created_at", "updated_at")
_DELIVERY = ("id", "event_id", "event_name", "endpoint_id", "status", "attempts", "next_attempt_at",
             "last_status_code", "last_error", "delivered_at", "created_at", "updated_at")
MAX_EVENTS = 200  # more than there are event names (services/events/names.py)
LIST = QuerySpec(columns=_ENDPOINT, selectable=False, default_limit=50)
DELIVERIES = QuerySpec(columns=_DELIVERY, selectable=False, default_limit=50)


def _endpoint(endpoint: WebhookEndpoint, *, reveal: bool = False) -> dict:
    data = {c: getattr(endpoint, c) for c in _ENDPOINT}
    data["object"] = "webhook"
    data["secret"] = endpoint.secret if reveal else endpoint.secret[:10] + "…" + endpoint.secret[-4:]
    return data


def _delivery(delivery: WebhookDelivery) -> dict:
    return {**{c: getattr(delivery, c) for c in _DELIVERY}, "object": "webhook_delivery",
            "attempt_log": delivery.attempt_log}


class NewWebhook(Body):
    url: NonEmptyStr
    events: Annotated[list[str], max_items(MAX_EVENTS)]
    description: str | None = None
    metadata: dict[str, Any] | None = None


class WebhookChange(Body):
    url: NonEmptyStr | None = None
    events: Annotated[list[str], max_items(MAX_EVENTS)] | None = None
    description: str | None = None
    status: str | None = None
    metadata: dict[str, Any] | None = None


@bp.post("")
async def create(request: Request):
    body = parse_body(request, NewWebhook)
    endpoint = await create_endpoint(body.url, body.events, body.description, body.metadata)
    return json({"webhook": _endpoint(endpoint, reveal=True)})


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    page, count = await list_endpoints(q.limit, q.offset)
    return json({"webhooks": [_endpoint(e) for e in page], "count": count, "offset": q.offset, "limit": q.limit})


@bp.get("/<webhook_id:str>")
async def get(request: Request, webhook_id: str):
    return json({"webhook": _endpoint(await get_endpoint(webhook_id))})


@bp.post("/<webhook_id:str>")
async def update(request: Request, webhook_id: str):
    changes = parse_body(request, WebhookChange).model_dump(exclude_unset=True)
    return json({"webhook": _endpoint(await update_endpoint(webhook_id, changes))})


@bp.delete("/<webhook_id:str>")
async def delete(request: Request, webhook_id: str):
    await delete_endpoint(webhook_id)
    return json({"id": webhook_id, "object": "webhook", "deleted": True})


@bp.post("/<webhook_id:str>/rotate-secret")
async def rotate(request: Request, webhook_id: str):
    return json({"webhook": _endpoint(await rotate_secret(webhook_id), reveal=True)})


@bp.get("/<webhook_id:str>/deliveries")
async def deliveries(request: Request, webhook_id: str):
    q = parse_query(request.query_string, DELIVERIES)
    page, count = await list_deliveries(webhook_id, q.limit, q.offset)
    return json({"deliveries": [_delivery(d) for d in page], "count": count, "offset": q.offset, "limit": q.limit})


@bp.post("/<webhook_id:str>/deliveries/<delivery_id:str>/redeliver")
async def redeliver_one(request: Request, webhook_id: str, delivery_id: str):
    endpoint = await get_endpoint(webhook_id)
    return json({"delivery": _delivery(await redeliver(endpoint.id, delivery_id))})

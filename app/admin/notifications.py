"""Admin notifications: `/admin/notifications` and resend, the
messages an order's timeline shows (`?resource_id=<order id>`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError
from sanic import Blueprint, Request

from app.shapes.notifications import COLUMNS, RELATIONS, notification_json
from app.web.auth import require_admin
from app.web.query import Filters, QuerySpec, StrList, parse_query
from app.web.responses import json
from app.web.validation import Body, NonEmptyStr, max_length, parse_body
from services.notifications.history import (
    NotificationFilter, list_notifications, resend_notification, resends_of,
)

bp = Blueprint("admin_notifications", url_prefix="/notifications")


def _flag(value: Any) -> Any:
    # Medusa reads `include_resends` as "true"/"1" (anything else but "false"/"0" is refused here).
    if isinstance(value, str):
        if value.lower() in ("true", "1"):
            return True
        if value.lower() in ("false", "0", ""):
            return False
        raise PydanticCustomError("bool", "must be a boolean value")
    return value


class ListFilters(Filters):
    event_name: StrList = []
    resource_type: StrList = []
    resource_id: StrList = []
    to: StrList = []
    include_resends: Annotated[bool, BeforeValidator(_flag)] = False


LIST = QuerySpec(
    columns=COLUMNS, default_relations=RELATIONS, allowed_relations=RELATIONS, filters=ListFilters,
    default_limit=50,
)


class Resend(Body):
    to: Annotated[NonEmptyStr, max_length(255)] | None = None


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    notes, count = await list_notifications(NotificationFilter(**q.filters.plain()), q.find())
    resends = await resends_of(notes) if "resends" in q.relations else {}
    return json({
        "notifications": [notification_json(n, resends, q.fields, q.relations) for n in notes],
        "count": count, "limit": q.limit, "offset": q.offset,
    })


@bp.post("/<notification_id:str>/resend")
async def resend(request: Request, notification_id: str):
    body = parse_body(request, Resend)
    original = await resend_notification(await require_admin(request), notification_id, body.to)
    resends = await resends_of([original])
    return json({"notification": notification_json(original, resends, None, RELATIONS)})

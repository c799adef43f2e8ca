"""One line per request (method, route template, status, duration, request id, the client's address
(app/web/client_address.py) and the signed-in user or customer id; never a path's values, a query
string, a header, a token or a password), and the request id: taken from a client's `X-Request-Id`
when it is a plain token of at most 128 characters, else made here, and answered in `X-Request-Id`."""

from __future__ import annotations

import logging
import re
import time
import uuid

from sanic import Request
from sanic.response import HTTPResponse

from app.web.client_address import client_address

__all__ = ["start_request", "finish_request", "request_id", "route_of"]

log = logging.getLogger("commerce.access")
_GIVEN = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def request_id(request: Request) -> str:
    return getattr(request.ctx, "request_id", None) or "-"


def start_request(request: Request) -> None:
    request.ctx.started = time.perf_counter()
    given = request.headers.get("x-request-id") or ""
    request.ctx.request_id = given if _GIVEN.match(given) else uuid.uuid4().hex


def route_of(request: Request) -> str:
    """The route template (`/store/products/<product_id:str>`): a path's values never show."""
    return ("/" + request.route.path.lstrip("/")) if request.route is not None else "unmatched"


def finish_request(request: Request, response: HTTPResponse) -> tuple[str, float | None]:
    """Log the request's line and answer its id; the route template and the seconds it took."""
    rid = request_id(request)
    response.headers["X-Request-Id"] = rid
    started = getattr(request.ctx, "started", None)
    seconds = time.perf_counter() - started if started is not None else None
    duration_ms = round(seconds * 1000, 2) if seconds is not None else None
    route = route_of(request)
    user = getattr(getattr(request.ctx, "user", None), "id", None)
    customer = getattr(request.ctx, "customer_id", None)
    client = client_address(request)
    log.info(
        "%s %s %s %sms id=%s client=%s%s", request.method, route, response.status, duration_ms, rid, client,
        f" user={user}" if user else f" customer={customer}" if customer else "",
        extra={"http": {"method": request.method, "route": route, "status": response.status,
                        "duration_ms": duration_ms, "request_id": rid, "client": client, "user_id": user,
                        "customer_id": customer}},
    )
    return route, seconds

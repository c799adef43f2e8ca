"""One line per request (method, route template, status, duration, request id, the client's address
(app/web/client_address.py) and the signed-in user or customer id; never a path's values, a query
string, a header, a token or a password), and the request id: taken from a client's `X-Request-Id`
when it is a plain token of at most 128 characters, else made here, and answered in `X-Request-Id`."""

from __future__ import annotations

import logging
import re
import time
from random import getrandbits

from sanic import Request
from sanic.response import HTTPResponse

from app.web.client_address import client_address

__all__ = ["start_request", "finish_request", "request_id", "route_of"]

log = logging.getLogger("commerce.access")
_GIVEN = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_LINE = "%s %s %s %sms id=%s client=%s%s"


def request_id(request: Request) -> str:
    return getattr(request.ctx, "request_id", None) or "-"


def start_request(request: Request) -> None:
    request.ctx.started = time.perf_counter()
    given = request.headers.get("x-request-id") or ""
    # 128 random bits as 32 hex digits (`random` is reseeded in each forked worker): an id to find a
    # request's lines by, not a secret, so no system call for it.
    request.ctx.request_id = given if given and _GIVEN.match(given) else f"{getrandbits(128):032x}"


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
    if log.isEnabledFor(logging.INFO):
        # As `log.info` would, less its walk up the stack for the caller's file and line, which no
        # format shows and every request paid for.
        log.handle(log.makeRecord(
            log.name, logging.INFO, __file__, 0, _LINE,
            (request.method, route, response.status, duration_ms, rid, client,
             f" user={user}" if user else f" customer={customer}" if customer else ""),
            None, "finish_request",
            {"http": {"method": request.method, "route": route, "status": response.status,
                      "duration_ms": duration_ms, "request_id": rid, "client": client, "user_id": user,
                      "customer_id": customer}},
        ))
    return route, seconds

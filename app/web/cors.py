"""CORS for the two interfaces: /store answers STORE_CORS origins, /admin ADMIN_CORS, with
credentials (the session cookie), as Medusa v1 does."""

from __future__ import annotations

from sanic import Request
from sanic.response import HTTPResponse

__all__ = ["cors_headers", "add_cors_headers", "origin_allowed", "preflight", "EXPOSED_HEADERS"]

_ALLOW_HEADERS = (
    "Content-Type, Authorization, Idempotency-Key, x-medusa-access-token, x-publishable-api-key"
)


# What a browser script may read of any answer (one list: errors.py's key headers use it too).
EXPOSED_HEADERS = "Idempotency-Key, Retry-After, X-Request-Id"


def _allowed(request: Request) -> tuple[str, ...]:
    settings = request.app.ctx.settings
    if request.path.startswith("/store"):
        return settings.store_cors
    if request.path.startswith("/admin"):
        return settings.admin_cors
    return ()


def origin_allowed(request: Request, origin: str) -> bool:
    """Whether `origin` is one the request's interface answers with credentials."""
    allowed = _allowed(request)
    return "*" in allowed or origin in allowed


def cors_headers(request: Request) -> dict[str, str]:
    origin = request.headers.get("origin")
    if not origin:
        return {}
    if not origin_allowed(request, origin):
        # Still vary by origin, so a shared cache never hands this answer to an allowed origin.
        return {"Vary": "Origin"} if _allowed(request) else {}
    return {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Credentials": "true",
        "Access-Control-Expose-Headers": EXPOSED_HEADERS,
        "Vary": "Origin",
    }


def add_cors_headers(request: Request, response: HTTPResponse) -> None:
    """The CORS headers onto an answer, `Origin` joining a `Vary` it already has (a catalogue read's)."""
    headers = cors_headers(request)
    vary = headers.pop("Vary", None)
    response.headers.update(headers)
    if vary:
        had = response.headers.get("Vary")
        if not had:
            response.headers["Vary"] = vary
        elif vary.lower() not in (v.strip().lower() for v in had.split(",")):
            response.headers["Vary"] = f"{had}, {vary}"


def preflight(request: Request) -> HTTPResponse:
    headers = cors_headers(request)
    if "Access-Control-Allow-Origin" in headers:
        headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
        # As Medusa v1's `cors` does: the headers asked for (a storefront may add its own, e.g.
        # tracing headers), else the ones our clients send.
        headers["Access-Control-Allow-Headers"] = (
            request.headers.get("access-control-request-headers") or _ALLOW_HEADERS
        )
        headers["Access-Control-Max-Age"] = "600"
    return HTTPResponse(status=204, headers=headers)

"""Cross-site request forgery, refused on both sides.

- A write's body is JSON (`application/json`, parameters and `+json` types included): an HTML form
  on another site can send only text/plain, urlencoded or multipart, and a script must first pass
  the CORS preflight. Streamed routes (uploads) read multipart themselves.
- A write authenticated by the session cookie (no `Authorization`, no `x-medusa-access-token`)
  comes from an allowed origin of its interface (STORE_CORS, ADMIN_CORS) or from this host. So
  does a sign-in that answers with a session cookie (login CSRF), whatever credentials it carries.

- A read that writes as a side effect (a signed-in customer's `GET /store/carts/{id}` makes the cart
  theirs, as in Medusa v1) writes only when `read_may_write`: another site's `<img>` sends the
  production cookie (SameSite=None) with a GET too, and sends no `Origin`.

The origin is `Origin`, else the origin of `Referer`. A request with neither is accepted: the
browsers that send the cookie cross-site at all (SameSite=None) send `Origin` on every cross-origin
POST, PUT, PATCH and DELETE, and a page that hides its referrer sends `Origin: null`, which is
refused; only clients that are not browsers (curl with a cookie jar, server-side code) send
neither, and no other site can make them send the victim's cookie. A GET with neither may still
come from a browser (an `<img>` on a page with `Referrer-Policy: no-referrer`): its
`Sec-Fetch-Site` then says whether it is cross-site. A browser that sends none of the three
(Safari before 16.4) cannot be told from another site's `<img>`, so such a cookie read has no
side effect. No client loses by it: storefronts' servers (the Next.js starter) send a Bearer token,
not the cookie; medusa-js in a browser sends `Origin` cross-origin, and a browser's same-origin
read carries `Sec-Fetch-Site` or `Referer`; a client of the shopper's own with the cookie (curl,
server code) makes the cart theirs by a write (`POST /store/carts/{id}`), as Medusa v1 also does.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from sanic import Request
from sanic.exceptions import Forbidden, SanicException

from app.web.cors import origin_allowed
from app.web.sessions import COOKIE_NAME

__all__ = [
    "WRITE_METHODS", "SESSION_STARTING_ROUTES", "require_json_body", "require_allowed_origin", "read_may_write",
]

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Sign-ins that answer with a session cookie; a forged one signs the victim in as the attacker.
SESSION_STARTING_ROUTES = frozenset({("POST", "/admin/auth"), ("POST", "/store/auth"), ("POST", "/store/customers")})
CROSS_SITE_MESSAGE = "Cross-site request refused: the origin is not allowed to write with the session cookie"
NOT_JSON_MESSAGE = "The request body must be JSON (Content-Type: application/json)"


def require_json_body(request: Request) -> None:
    """A write with a body declares JSON; one without a body (or only whitespace) needs no type."""
    if request.method not in WRITE_METHODS or _streamed(request):
        return
    body = request.body
    if not body or body.isspace():
        return
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    kind, _, subtype = media_type.partition("/")
    if kind != "application" or not (subtype == "json" or subtype.endswith("+json")):
        raise SanicException(NOT_JSON_MESSAGE, status_code=415)


def require_allowed_origin(request: Request) -> None:
    """A cookie-authenticated write or a session-starting sign-in from another origin is a 403."""
    if request.method not in WRITE_METHODS:
        return
    if not _cookie_authenticated(request) and (request.method, request.path.rstrip("/")) not in SESSION_STARTING_ROUTES:
        return
    origin = _origin(request)
    if origin is not None and not _allowed(request, origin):
        raise Forbidden(CROSS_SITE_MESSAGE)


def read_may_write(request: Request) -> bool:
    """Whether a read may have a side effect for its signed-in customer or user: not when the
    session cookie authenticates it and it comes from a foreign origin, or, with no `Origin` nor
    `Referer`, from a browser that says it is cross-site (or same-site: a sibling host we cannot
    check), or with none of the three (an older browser that cannot be told from another site's
    `<img>`)."""
    if not _cookie_authenticated(request):
        return True  # a header credential is sent by the client's own code, never by another site
    origin = _origin(request)
    if origin is not None:
        return _allowed(request, origin)
    return request.headers.get("sec-fetch-site", "").strip().lower() in ("same-origin", "none")


def _allowed(request: Request, origin: str) -> bool:
    return origin_allowed(request, origin) or _same_host(request, origin)


def _streamed(request: Request) -> bool:
    route = request.route  # None when no route matched (the gate runs before a 404 or 405 too)
    return route is not None and getattr(route.handler, "is_stream", False)


def _cookie_authenticated(request: Request) -> bool:
    headers = request.headers
    return bool(request.cookies.get(COOKIE_NAME)) and not (
        headers.get("authorization") or headers.get("x-medusa-access-token")
    )


def _origin(request: Request) -> str | None:
    """`Origin` (`null` included), else `Referer`'s scheme and host; None when neither is sent."""
    origin = request.headers.get("origin")
    if origin is not None:
        return origin.strip()
    referer = request.headers.get("referer")
    if not referer:
        return None
    parts = urlsplit(referer.strip())
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else "null"


def _same_host(request: Request, origin: str) -> bool:
    # A page this server serves (an admin dashboard at /app, say): no browser lets a page forge
    # either header.
    return origin != "null" and urlsplit(origin).netloc.lower() == request.host.lower()

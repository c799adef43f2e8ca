"""Storefront catalogue reads a CDN or a browser can keep (collections, categories, products,
regions, a region's shipping options).

Each answer carries an `ETag` made from the catalogue's version (services/catalog/versions.py,
moved by every write to what it shows, in the writer's transaction), the path, the query string
and, where it matters, the publishable key. The version is read first, in one statement: a request
whose `If-None-Match` names the current tag is answered 304 before anything else is loaded. Each
web process also keeps the bytes of recent answers under their tag, so an unchanged catalogue is
answered without building the body again; a change anywhere is seen on the next request, by every
process, because the tag moves with the version.

`Cache-Control` is `public, max-age=STORE_CACHE_SECONDS` (0, the default: `max-age=0,
must-revalidate`, i.e. ask every time and take the 304). An answer that depends on the shopper (a
signed-in customer's product prices, a `cart_id` query) is `private, no-store` and has no tag.
"""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from sanic import Request
from sanic.response import HTTPResponse

from app.web.auth import customer_id, has_customer_credentials
from app.web.publishable_keys import HEADER as KEY_HEADER
from services.catalog.versions import catalogue_version

__all__ = ["cached", "forget_answers", "PRIVATE"]

PRIVATE = "private, no-store"
MAX_BODY_BYTES = 1 << 20  # an answer larger than this is tagged but not kept in memory
MAX_KEPT_BYTES = 32 << 20  # all kept answers of one process


class _Answers:
    """The bytes of recent answers by tag, least recently used dropped first, bounded in bytes."""

    def __init__(self, limit: int = MAX_KEPT_BYTES):
        self.limit, self.size = limit, 0
        self._bodies: OrderedDict[str, bytes] = OrderedDict()

    def get(self, tag: str) -> bytes | None:
        body = self._bodies.get(tag)
        if body is not None:
            self._bodies.move_to_end(tag)
        return body

    def put(self, tag: str, body: bytes) -> None:
        if len(body) > MAX_BODY_BYTES or tag in self._bodies:
            return
        self._bodies[tag] = body
        self.size += len(body)
        while self.size > self.limit:
            _, dropped = self._bodies.popitem(last=False)
            self.size -= len(dropped)

    def clear(self) -> None:
        self._bodies.clear()
        self.size = 0


_ANSWERS = _Answers()


def forget_answers() -> None:
    """Drop every kept answer (tests; a tag never comes back, so nothing needs it otherwise)."""
    _ANSWERS.clear()


def cache_control(seconds: int) -> str:
    return f"public, max-age={seconds}" if seconds > 0 else "public, max-age=0, must-revalidate"


def _tag(version: str, request: Request, by_key: bool) -> str:
    key = request.headers.get(KEY_HEADER, "") if by_key else ""
    seed = "\0".join((version, request.path, request.query_string, key)).encode()
    return '"' + hashlib.blake2b(seed, digest_size=12).hexdigest() + '"'


def _matches(header: str | None, tag: str) -> bool:
    """RFC 9110's weak comparison of If-None-Match's list (or `*`) with our tag."""
    if not header:
        return False
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == tag:
            return True
    return False


async def _personal_products(request: Request) -> bool:
    """A product read priced for one shopper: a signed-in customer's (group prices) or a cart's."""
    if "cart_id" in request.args:
        return True
    return has_customer_credentials(request) and await customer_id(request) is not None


def cached(version: Callable[[], Awaitable[str]] = catalogue_version, *, products: bool = False):
    """A store GET handler whose 200 answers are tagged, revalidated and kept (see the module's doc).
    `products`: the answer also depends on the publishable key and may be personal."""
    vary = "Origin, x-publishable-api-key, Authorization, Cookie" if products else "Origin"

    def decorate(handler):
        @functools.wraps(handler)
        async def answer(request: Request, *args, **kwargs):
            if products and await _personal_products(request):
                response = await handler(request, *args, **kwargs)
                response.headers["Cache-Control"] = PRIVATE
                return response
            tag = _tag(await version(), request, products)
            headers = {
                "ETag": tag, "Vary": vary,
                "Cache-Control": cache_control(request.app.ctx.settings.store_cache_seconds),
            }
            if _matches(request.headers.get("if-none-match"), tag):
                return HTTPResponse(status=304, headers=headers)
            body = _ANSWERS.get(tag)
            if body is None:
                response = await handler(request, *args, **kwargs)
                if response.status != 200:
                    return response
                body = response.body
                _ANSWERS.put(tag, body)
            return HTTPResponse(body, headers=headers, content_type="application/json")

        return answer

    return decorate

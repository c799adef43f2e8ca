"""Storefront catalogue reads a CDN or a browser can keep (collections, categories, products,
regions, a region's shipping options).

Each answer carries an `ETag` made from the catalogue's version (services/catalog/version_reads.py,
moved by every write to what it shows, in the writer's transaction), the path, the query string
and, where it matters, the publishable key. The version is read first, in one statement: a request
whose `If-None-Match` names the current tag is answered 304 before anything else is loaded. Each
web process also keeps the bytes of recent answers under their tag (app/web/answer_cache.py), so an
unchanged catalogue is answered without building the body again; a change anywhere is seen on the
next request, by every process, because the tag moves with the version. Concurrent requests share
the version's read (`SharedRead`: each still gets a read started after it arrived).

`Cache-Control` is `public, max-age=STORE_CACHE_SECONDS` (0, the default: `max-age=0,
must-revalidate`, i.e. ask every time and take the 304). An answer that depends on the shopper (a
signed-in customer's product prices, a `cart_id` query) is `private, no-store` and has no tag.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from sanic import Request

from app.web.answer_cache import SharedRead, kept
from app.web.auth import customer_id, has_customer_credentials
from app.web.publishable_keys import HEADER as KEY_HEADER
from services.catalog.version_reads import catalogue_version

__all__ = ["cached", "shared_version", "PRIVATE"]

PRIVATE = "private, no-store"
_SHARED: dict[Callable[[], Awaitable[str]], SharedRead[str]] = {}


def cache_control(seconds: int) -> str:
    return f"public, max-age={seconds}" if seconds > 0 else "public, max-age=0, must-revalidate"


async def _personal_products(request: Request) -> bool:
    """A product read priced for one shopper: a signed-in customer's (group prices) or a cart's."""
    if "cart_id" in request.args:
        return True
    return has_customer_credentials(request) and await customer_id(request) is not None


def shared_version(version: Callable[[], Awaitable[str]]) -> SharedRead[str]:
    """The one shared read of `version` every route of this process uses."""
    return _SHARED.setdefault(version, SharedRead(version))


def cached(version: Callable[[], Awaitable[str]] = catalogue_version, *, products: bool = False):
    """A store GET handler whose 200 answers are tagged, revalidated and kept (see the module's doc).
    `products`: the answer also depends on the publishable key and may be personal."""
    vary = "Origin, x-publishable-api-key, Authorization, Cookie" if products else "Origin"
    shared = shared_version(version)

    def decorate(handler):
        @functools.wraps(handler)
        async def answer(request: Request, *args, **kwargs):
            if products and await _personal_products(request):
                response = await handler(request, *args, **kwargs)
                response.headers["Cache-Control"] = PRIVATE
                return response
            headers = {
                "Vary": vary, "Cache-Control": cache_control(request.app.ctx.settings.store_cache_seconds),
            }
            key = request.query_string
            if products:
                key += "\0" + request.headers.get(KEY_HEADER, "")
            return await kept(request, await shared(), key, lambda: handler(request, *args, **kwargs), headers)

        return answer

    return decorate

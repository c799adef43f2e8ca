"""Answers kept by version: a read whose answer depends only on a version that every change to
what it shows moves (a value triggers keep in the database) and on the request's path and query.

`kept` reads nothing itself: the caller reads the version (one statement) and names what else the
answer depends on (`key`). The tag (`ETag`) is made of the version, the path and the key; a
request whose `If-None-Match` names the current tag is answered 304; else the bytes kept under the
tag are sent, or the answer is built, sent and kept. A change anywhere is seen on the next request,
by every process, because the tag moves with the version. Users: the storefront's catalogue reads
(app/web/store_cache.py) and the admin customers list (app/admin/customers.py).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from sanic import Request
from sanic.response import HTTPResponse

__all__ = ["kept", "forget_answers"]

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


def _tag(version: str, path: str, key: str) -> str:
    seed = "\0".join((version, path, key)).encode()
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


async def kept(
    request: Request, version: str, key: str, build: Callable[[], Awaitable[HTTPResponse]],
    headers: dict[str, str],
) -> HTTPResponse:
    """The answer under `version` and `key` (see the module's doc), with `headers` and its ETag.
    An answer `build` gives other than a 200 is sent as it is and not kept."""
    tag = _tag(version, request.path, key)
    headers = {"ETag": tag, **headers}
    if _matches(request.headers.get("if-none-match"), tag):
        return HTTPResponse(status=304, headers=headers)
    body = _ANSWERS.get(tag)
    if body is None:
        response = await build()
        if response.status != 200:
            return response
        body = response.body
        _ANSWERS.put(tag, body)
    return HTTPResponse(body, headers=headers, content_type="application/json")

"""Answers kept by version: a read whose answer depends only on a version that every change to
what it shows moves (a value triggers keep in the database) and on the request's path and query.

`kept` reads nothing itself: the caller reads the version (one statement) and names what else the
answer depends on (`key`). The tag (`ETag`) is made of the version, the path and the key; a
request whose `If-None-Match` names the current tag is answered 304; else the bytes kept under the
tag are sent, or the answer is built, sent and kept. A change anywhere is seen on the next request,
by every process, because the tag moves with the version. Users: the storefront's catalogue reads
(app/web/store_cache.py), the admin customers list (app/admin/customers.py), the admin product reads
(app/admin/products.py) and a price list's page and products (app/admin/price_lists.py).

A large answer (a page of products each carrying its full metadata) is what costs a process most
to build, so it is the one most worth keeping: answers up to a quarter of the budget are kept.
And requests that find no kept answer while the same one is being built wait for that build
instead of each building it again: a burst of reads of one large answer costs one build.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from sanic import Request
from sanic.response import HTTPResponse

__all__ = ["kept", "forget_answers", "SharedRead"]

T = TypeVar("T")

MAX_KEPT_BYTES = 64 << 20  # all kept answers of one process (a price list of 10,000 prices answers 13.7 MB)
MAX_BODY_BYTES = MAX_KEPT_BYTES // 4  # an answer larger than this is tagged but not kept in memory


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
# The answers being built now, by tag: their bytes (None: not a 200, or the build failed).
_BUILDING: dict[str, asyncio.Future] = {}


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
        building = _BUILDING.get(tag)
        if building is not None and building.get_loop() is asyncio.get_running_loop():
            body = await asyncio.shield(building)
    if body is None:
        response = await _build(tag, build)
        if response.status != 200:
            return response
        body = response.body
    return HTTPResponse(body, headers=headers, content_type="application/json")


async def _build(tag: str, build: Callable[[], Awaitable[HTTPResponse]]) -> HTTPResponse:
    """`build()`, kept when a 200; requests arriving meanwhile get its bytes (or None)."""
    future = asyncio.get_running_loop().create_future()
    _BUILDING[tag] = future
    body = None
    try:
        response = await build()
        if response.status == 200:
            body = response.body
            _ANSWERS.put(tag, body)
        return response
    finally:
        if _BUILDING.get(tag) is future:
            del _BUILDING[tag]
        future.set_result(body)


class SharedRead(Generic[T]):
    """A version read that concurrent requests of one process share. Each call gets the result of
    a read that *started after the call was made*, so it sees every write committed before the
    request arrived, as its own read would; but while one read is on its way, the calls made
    meanwhile wait for it and then share the next one. Under load one round trip to the database
    serves many requests (at most two round trips of waiting each); alone, a call costs one read.
    For reads outside any transaction only (a request's version): the shared read runs in a task
    that inherits the context of the call that started it."""

    def __init__(self, read: Callable[[], Awaitable[T]]):
        self.read = read
        self.reads = 0  # how many reads were made (tests)
        self._next: asyncio.Future | None = None  # the read that the calls arriving now will share
        self._runner: asyncio.Task | None = None

    async def __call__(self) -> T:
        loop = asyncio.get_running_loop()
        if self._next is None or self._next.get_loop() is not loop:
            self._next = loop.create_future()
        future = self._next
        if self._runner is None or self._runner.done() or self._runner.get_loop() is not loop:
            self._runner = loop.create_task(self._run())
        return await asyncio.shield(future)

    async def _run(self) -> None:
        while self._next is not None:
            future, self._next = self._next, None  # whoever comes now waits for the next read
            self.reads += 1
            try:
                value = await self.read()
            except asyncio.CancelledError:  # the process is stopping: nobody is left waiting
                for waiting in (future, self._next):
                    if waiting is not None:
                        waiting.cancel()
                self._next = None
                raise
            except Exception as e:  # every sharer sees the failure, as its own read would have
                future.set_exception(e)
            else:
                future.set_result(value)

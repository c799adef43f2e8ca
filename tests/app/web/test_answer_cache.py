"""Answers kept by version (app/web/answer_cache.py): a large answer is built once and kept, and
requests arriving while it is being built share that build."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from sanic.response import HTTPResponse

from app.web.answer_cache import MAX_BODY_BYTES, forget_answers, kept


def request(path: str = "/store/products/prod_big"):
    return SimpleNamespace(path=path, headers={})


class Builds:
    """A build of a `size`-byte answer that counts its runs and, when `gate` is given, waits on it."""

    def __init__(self, size: int, gate: asyncio.Event | None = None):
        self.size, self.gate, self.runs, self.started = size, gate, 0, asyncio.Event()

    async def __call__(self) -> HTTPResponse:
        self.runs += 1
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()
        return HTTPResponse(b"x" * self.size, content_type="application/json")


async def test_a_large_answer_is_built_once_and_kept():
    forget_answers()
    build = Builds(4 << 20)  # a page of products carrying much metadata
    answers = [await kept(request(), "v1", "", build, {}) for _ in range(3)]
    assert [len(a.body) for a in answers] == [4 << 20] * 3
    assert build.runs == 1


async def test_requests_arriving_during_a_build_share_it():
    forget_answers()
    gate = asyncio.Event()
    build = Builds(MAX_BODY_BYTES + 1, gate)  # too large to keep: only the sharing saves the rebuilds
    first = asyncio.ensure_future(kept(request(), "v1", "", build, {}))
    await build.started.wait()
    others = [asyncio.ensure_future(kept(request(), "v1", "", build, {})) for _ in range(4)]
    await asyncio.sleep(0)  # let them reach the build in flight
    gate.set()
    answers = await asyncio.gather(first, *others)
    assert {len(a.body) for a in answers} == {MAX_BODY_BYTES + 1} and {a.status for a in answers} == {200}
    assert build.runs == 1
    # Not kept (over the bound): the next request builds again.
    await kept(request(), "v1", "", build, {})
    assert build.runs == 2


async def test_a_failed_build_leaves_the_waiting_requests_to_build_their_own():
    forget_answers()
    gate, calls = asyncio.Event(), []

    async def failing_then_fine() -> HTTPResponse:
        calls.append(1)
        if len(calls) == 1:
            await gate.wait()
            raise RuntimeError("the database went away")
        return HTTPResponse(b"{}", content_type="application/json")

    first = asyncio.ensure_future(kept(request(), "v2", "", failing_then_fine, {}))
    await asyncio.sleep(0)
    second = asyncio.ensure_future(kept(request(), "v2", "", failing_then_fine, {}))
    await asyncio.sleep(0)
    gate.set()
    results = await asyncio.gather(first, second, return_exceptions=True)
    assert isinstance(results[0], RuntimeError) and results[1].body == b"{}"

"""Answering a request that runs under an `Idempotency-Key` (services/orders/keyed.py): the key
echoed, and `Idempotent-Replayed: true` on an answer replayed from a finished key."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from sanic import Request
from sanic.response import HTTPResponse

from app.web.errors import key_headers
from app.web.responses import json
from services.orders.keyed import run_keyed

__all__ = ["keyed_json"]


async def keyed_json(request: Request, path: str, params: dict, run: Callable[[], Awaitable[Any]]) -> HTTPResponse:
    done = await run_keyed(request.headers.get("idempotency-key"), path=path, body=request.json or None,
                           params=params, run=run)
    headers = key_headers(done.key)
    if done.replayed:
        headers["Idempotent-Replayed"] = "true"
    return json(done.body, 200, headers)

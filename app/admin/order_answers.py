"""How every order operation answers: the order as its get shows it, with
the request's `expand`/`fields` (refused before anything changes), run under the request's
Idempotency-Key where the operation takes one (services/orders/keyed.py)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from sanic import Request
from sanic.response import HTTPResponse

from app.shapes.order_query import ADMIN_ONE, only_keys
from app.shapes.orders import order_json, with_claims_and_swaps
from app.web.keyed import keyed_json
from app.web.responses import json
from services.orders.view import ADMIN_NOT_FOUND, load_order_view

__all__ = ["order_answer", "keyed_order", "moved_order"]


async def order_answer(request: Request, order_id: str) -> dict:
    q = only_keys(request.query_string, ADMIN_ONE)
    [view] = await with_claims_and_swaps([await load_order_view(order_id, message=ADMIN_NOT_FOUND)])
    return {"order": order_json(view, q.relations, q.fields)}


async def keyed_order(
    request: Request, order_id: str, route: str, operation: Callable[[str | None], Awaitable[Any]],
) -> HTTPResponse:
    """Run `operation(key)` once for the request's key and answer the order; `key` is the
    header's value, for the providers' own idempotency."""
    only_keys(request.query_string, ADMIN_ONE)
    key = request.headers.get("idempotency-key")

    async def run() -> dict:
        await operation(key)
        return await order_answer(request, order_id)

    return await keyed_json(request, f"/admin/orders/{order_id}/{route}", {"order_id": order_id}, run)


async def moved_order(request: Request, order_id: str, operation: Callable[[str], Awaitable[Any]]) -> HTTPResponse:
    only_keys(request.query_string, ADMIN_ONE)
    await operation(order_id)
    return json(await order_answer(request, order_id))

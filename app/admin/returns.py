"""Admin returns: the list, receiving and canceling. Asking for a
return is on the order (`POST /admin/orders/{id}/return`, app/admin/orders.py)."""

from __future__ import annotations

from typing import Annotated

from sanic import Blueprint, Request

from app.shapes.orders import ADMIN_RELATIONS, ORDER_COLUMNS, order_json, return_json, with_claims_and_swaps
from app.web.query import QuerySpec, parse_query
from app.web.responses import json
from app.web.serialize import COLUMNS, dump
from app.web.validation import Body, NonEmptyStr, SignedAmount, parse_body, max_lines
from models import Order, Return, Swap
from services.orders.view import ADMIN_NOT_FOUND, load_order_view
from services.returns.cancellation import cancel_return
from services.returns.listing import list_returns, load_returns
from services.returns.receiving import receive_return
from services.swaps.view import swaps_by_id

__all__ = ["bp"]

bp = Blueprint("admin_returns", url_prefix="/returns")

LIST = QuerySpec(columns=COLUMNS[Return], selectable=False, default_limit=50)


def _with_order(data: dict, order: Order | None, swaps: dict[str, Swap]) -> dict:
    data["order"] = {c: order.__dict__.get(c) for c in ORDER_COLUMNS} if order is not None else None
    data["swap"] = dump(swaps.get(data["swap_id"])) if data.get("swap_id") else None
    return data


async def _swaps(returns: list[Return]) -> dict[str, Swap]:
    return await swaps_by_id([r.swap_id for r in returns if r.swap_id])


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    page, count, after, orders = await list_returns(q.limit, q.offset)
    swaps = await _swaps(page)
    return json({
        "returns": [_with_order(return_json(after, r), orders.get(r.order_id), swaps) for r in page],
        "count": count, "offset": q.offset, "limit": q.limit,
    })


class ReceivedItem(Body):
    item_id: NonEmptyStr
    quantity: int


class Receipt(Body):
    items: Annotated[list[ReceivedItem], max_lines("return")]
    refund: SignedAmount | None = None
    location_id: str | None = None


@bp.post("/<return_id:str>/receive")
async def receive(request: Request, return_id: str):
    body = parse_body(request, Receipt)
    ret = await receive_return(return_id, [i.model_dump() for i in body.items], refund=body.refund,
                               location_id=body.location_id)
    after, orders = await load_returns([ret])
    return json({"return": _with_order(return_json(after, ret), orders.get(ret.order_id), await _swaps([ret]))})


@bp.post("/<return_id:str>/cancel")
async def cancel(request: Request, return_id: str):
    order_id = await cancel_return(return_id)
    [view] = await with_claims_and_swaps([await load_order_view(order_id, message=ADMIN_NOT_FOUND)])
    return json({"order": order_json(view, ADMIN_RELATIONS)})

"""Admin swap reads: `GET /admin/swaps` (newest first, `limit` and `offset` only, each swap's own
columns without relations, as Medusa v1's list answers) and `GET /admin/swaps/{id}` with its
relations, its cart and the cart's totals."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.shapes.swaps import swap_answer
from app.web.query import QuerySpec, parse_query
from app.web.responses import json
from app.web.serialize import COLUMNS, dump
from models import Swap
from services.swaps.view import list_swaps

__all__ = ["bp"]

bp = Blueprint("admin_swaps", url_prefix="/swaps")

LIST = QuerySpec(columns=COLUMNS[Swap], selectable=False, default_limit=50)


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    page, count = await list_swaps(q.limit, q.offset)
    return json({"swaps": [dump(swap) for swap in page], "count": count, "offset": q.offset, "limit": q.limit})


@bp.get("/<swap_id:str>")
async def get(request: Request, swap_id: str):
    return json({"swap": await swap_answer(swap_id)})

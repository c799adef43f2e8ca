"""Store return reasons: `GET /store/return-reasons`, `GET /store/return-reasons/{id}`: the reasons a
shopper picks from when asking for a return, shaped as the admin routes show them."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.shapes.return_reasons import dump_reasons
from app.web.responses import json
from services.orders.return_reasons import get_return_reason, list_return_reasons

bp = Blueprint("store_return_reasons", url_prefix="/return-reasons")


@bp.get("")
async def list_(request: Request):
    return json({"return_reasons": dump_reasons(await list_return_reasons())})


@bp.get("/<reason_id:str>")
async def get(request: Request, reason_id: str):
    return json({"return_reason": dump_reasons([await get_return_reason(reason_id)])[0]})

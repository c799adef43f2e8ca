"""The plugin's routes: `GET /store/loyalty` (the signed-in customer's points), and for the shop's
admins `GET /admin/loyalty/:customer_id` and `POST /admin/loyalty/:customer_id/adjust`. The core's
gate authenticates /admin paths and answers errors in Medusa's shape (app/plugin_routes.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError
from sanic import Blueprint, Request

from app.web.auth import require_customer
from app.web.responses import json
from app.web.validation import Body, NonEmptyStr, max_length, parse_body

from loyalty.points import Account, account, adjust

__all__ = ["store", "admin"]

store = Blueprint("loyalty_store", url_prefix="/store/loyalty")
admin = Blueprint("loyalty_admin", url_prefix="/admin/loyalty")


MAX_ADJUSTMENT = 10**12  # points in one adjustment: far beyond any real one, far within the column


def _non_zero(value: int) -> int:
    if value == 0:
        raise PydanticCustomError("invalid", "must not be zero")
    if abs(value) > MAX_ADJUSTMENT:
        raise PydanticCustomError("invalid", f"must not be larger than {MAX_ADJUSTMENT} either way")
    return value


class Adjustment(Body):
    points: Annotated[int, AfterValidator(_non_zero)]
    reason: Annotated[NonEmptyStr, max_length(255)]


def _loyalty(found: Account) -> dict:
    return {"loyalty": {
        "customer_id": found.customer_id,
        "balance": found.balance,
        "entries": [{
            "id": e.id, "points": e.points, "reason": e.reason, "order_id": e.order_id, "refund_id": e.refund_id,
            "created_at": e.created_at, "expires_at": e.expires_at, "expired": e.expired,
        } for e in found.entries],
    }}


@store.get("")
async def mine(request: Request):
    return json(_loyalty(await account(await require_customer(request))))


@admin.get("/<customer_id:str>")
async def show(request: Request, customer_id: str):
    return json(_loyalty(await account(customer_id, known=False)))


@admin.post("/<customer_id:str>/adjust")
async def adjust_balance(request: Request, customer_id: str):
    body = parse_body(request, Adjustment)
    return json(_loyalty(await adjust(customer_id, body.points, body.reason)))

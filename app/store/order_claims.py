"""Claiming guest orders into an account: the signed-in customer
asks (`POST /store/orders/batch/customer/token`), the reader of the orders' email confirms
(`POST /store/orders/customer/confirm`, no sign-in needed except for the orders offered at
sign-up). Both answer Medusa v1's plain-text `OK`; errors are JSON."""

from __future__ import annotations

from typing import Annotated

from sanic import Blueprint, Request

from app.web.auth import customer_id, require_customer
from app.web.rate_limits import message_request_guard
from app.web.responses import text
from app.web.validation import Body, NonEmptyStr, parse_body, max_items
from services.orders.claims import MAX_ORDERS, confirm_order_claim, request_order_claim

__all__ = ["bp"]

bp = Blueprint("store_order_claims", url_prefix="/orders")


class ClaimRequest(Body):
    order_ids: Annotated[list[NonEmptyStr], max_items(MAX_ORDERS)]


class ClaimConfirmation(Body):
    token: NonEmptyStr


@bp.post("/batch/customer/token")
async def ask_to_claim(request: Request):
    claimer = await require_customer(request)
    body = parse_body(request, ClaimRequest)
    async with message_request_guard(request, claimer):
        await request_order_claim(claimer, body.order_ids)
    return text("OK")


@bp.post("/customer/confirm")
async def confirm_claim(request: Request):
    body = parse_body(request, ClaimConfirmation)
    await confirm_order_claim(body.token, await customer_id(request))
    return text("OK")

"""Store carts' payment sessions: create, select, update, delete and refresh. Every route answers
`{cart}` (app/shapes/carts.py).

Create Payment Sessions answers `{cart}` alone: Medusa v1 also sends the same cart again as
`data` (a QUIRK no client reads; medusa-js reads `cart`)."""

from __future__ import annotations

from typing import Any

from sanic import Blueprint, Request

from app.store.carts import cart_answer, cart_query
from app.web.validation import Body, NonEmptyStr, parse_body
from services.carts.payment_sessions import (
    delete_session, refresh_session, select_session, set_payment_sessions, update_session,
)

bp = Blueprint("store_cart_payments", url_prefix="/carts")


class ProviderChoice(Body):
    provider_id: NonEmptyStr


class SessionData(Body):
    data: dict[str, Any]


@bp.post("/<cart_id:str>/payment-sessions")
async def create_sessions(request: Request, cart_id: str):
    cart_query(request)
    return cart_answer(await set_payment_sessions(cart_id))


@bp.post("/<cart_id:str>/payment-session")
async def select(request: Request, cart_id: str):
    cart_query(request)
    body = parse_body(request, ProviderChoice)
    return cart_answer(await select_session(cart_id, body.provider_id))


@bp.post("/<cart_id:str>/payment-sessions/<provider_id:str>")
async def update(request: Request, cart_id: str, provider_id: str):
    cart_query(request)
    body = parse_body(request, SessionData)
    return cart_answer(await update_session(cart_id, provider_id, body.data))


@bp.delete("/<cart_id:str>/payment-sessions/<provider_id:str>")
async def delete(request: Request, cart_id: str, provider_id: str):
    cart_query(request)
    return cart_answer(await delete_session(cart_id, provider_id))


@bp.post("/<cart_id:str>/payment-sessions/<provider_id:str>/refresh")
async def refresh(request: Request, cart_id: str, provider_id: str):
    cart_query(request)
    return cart_answer(await refresh_session(cart_id, provider_id))

"""`POST /store/carts/{id}/complete` (alias `/complete-cart`): place the order under the
idempotency contract of docs/architecture.md (Checkout). The key (adopted, or generated) is echoed in
`Idempotency-Key`; a replayed answer carries `Idempotent-Replayed: true`. A refusal is raised
with its key and answered by the error handler (app/web/errors.py)."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.shapes.completion import ApiAnswers
from app.web.client_address import client_address
from app.web.errors import key_headers
from app.web.responses import json
from services.checkout.completion import complete_cart

bp = Blueprint("store_cart_completion", url_prefix="/carts")


@bp.post("/<cart_id>/complete")
@bp.post("/<cart_id>/complete-cart", name="complete_cart_alias")
async def complete(request: Request, cart_id: str):
    context = {"ip": client_address(request), "user_agent": request.headers.get("user-agent")}
    done = await complete_cart(
        cart_id, request.headers.get("idempotency-key"), path=f"/store/carts/{cart_id}/complete",
        body=request.json or None, answers=ApiAnswers(), context=context,
    )
    headers = key_headers(done.key)
    if done.replayed:
        headers["Idempotent-Replayed"] = "true"
    return json(done.body, done.status, headers)

"""`POST /store/carts/{id}/complete` (alias `/complete-cart`): place the order (reference store
§3.5) under the idempotency contract of DESIGN.md. The key (adopted, or generated) is echoed in
`Idempotency-Key`; a replayed answer carries `Idempotent-Replayed: true`."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.shapes.completion import ApiAnswers
from app.web.errors import STATUS_BY_KIND, error_body
from app.web.responses import json
from services.checkout.completion import TransientFailure, complete_cart
from services.core.errors import DomainError

bp = Blueprint("store_cart_completion", url_prefix="/carts")

RETRY_SECONDS = "2"
EXPOSE = {"Access-Control-Expose-Headers": "Idempotency-Key, Retry-After"}  # Medusa sends it always


@bp.post("/<cart_id>/complete")
@bp.post("/<cart_id>/complete-cart", name="complete_cart_alias")
async def complete(request: Request, cart_id: str):
    key = request.headers.get("idempotency-key")
    context = {"ip": request.remote_addr or request.ip, "user_agent": request.headers.get("user-agent")}
    try:
        done = await complete_cart(
            cart_id, key, path=f"/store/carts/{cart_id}/complete", body=request.json or None,
            answers=ApiAnswers(), context=context,
        )
    except TransientFailure as stopped:
        return json(error_body(
            "unexpected_state",
            "The order is not placed yet: completion is being retried. Retry with the same Idempotency-Key "
            "or poll the cart.", "completion_retrying",
        ), 503, {"Idempotency-Key": stopped.key, "Retry-After": RETRY_SECONDS, **EXPOSE})
    except DomainError as refused:
        # The key is let go unfinished: the same key works once the cart is put right.
        headers = {"Idempotency-Key": getattr(refused, "idempotency_key", None) or key or "", **EXPOSE}
        return json(error_body(refused.kind, refused.message, refused.code), STATUS_BY_KIND.get(refused.kind, 400),
                    headers)
    headers = {"Idempotency-Key": done.key, **EXPOSE, **done.headers}
    if done.replayed:
        headers["Idempotent-Replayed"] = "true"
    return json(done.body, done.status, headers)

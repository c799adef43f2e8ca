"""`POST /stripe/hooks`, the webhook URL to give Stripe (Medusa's medusa-payment-stripe path).
The raw body is verified and recorded (services/payments/stripe/webhooks.py); a job handles it.
A bad signature or body is a 400 that changes nothing; a repeated event is a 200 as the first."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.web.responses import json
from services.payments.stripe.webhooks import receive_event

bp = Blueprint("stripe_hooks", url_prefix="/stripe")


@bp.post("/hooks")
async def stripe_hook(request: Request):
    new = await receive_event(request.body or b"", request.headers.get("stripe-signature"))
    return json({"received": True, "duplicate": not new})

"""What a recorded Stripe event does (the job of `POST /stripe/hooks`). Each step is safe to run
twice: the event is marked handled last, and every step checks the state it acts on.

- payment_intent.succeeded / amount_capturable_updated: for a cart of ours whose payment session
  is that intent, an internal event (`gateway.payment_ready`, in the same transaction that hands
  the recorded event over) that checkout hears (services/checkout/paid.py): a cart not yet
  completed (the shopper closed the tab after 3-D Secure) is completed through the very completion
  path the storefront uses, under a key of its own, so a webhook racing the shopper makes one
  order; an intent that succeeded (captured at authorization) marks the order's payment captured.
  As Medusa's plugin does.
- payment_intent.payment_failed: logged (a warning for a cart of ours; information for an intent
  that pays nothing here, which is no fault of ours), and recorded on the event.
- charge.refunded (beyond Medusa): money refunded in Stripe's dashboard shows as one refund, recorded
  by orders on hearing `gateway.refund_made` (services/orders/gateway_refunds.py).
- charge.dispute.created (beyond Medusa): a note on the order's timeline.

An event handed over is finished by the area that acts on it (services/payments/gateway_events.py),
with the outcome of what it did.

Every handler acts on the object as Stripe's API answers it now, retrieved by the id the event
names: a signed body is a notice that something changed, not a statement of what it is.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from models import Cart, GatewayEvent, Note, Payment, PaymentSession
from services.core.db import atomic
from services.events import names as ev
from services.events.bus import emit
from services.payments import get_provider, is_registered
from services.payments.gateway_events import finish_gateway_event
from services.payments.stripe.provider import PROVIDER_ID, PROVIDER_IDS

__all__ = ["handle_event", "paid_cart", "HOOK_PATH"]

log = logging.getLogger("commerce.stripe")

HOOK_PATH = "/stripe/hooks"
_READY = ("payment_intent.succeeded", "payment_intent.amount_capturable_updated")
# The events handled, and the kind of Stripe object each is about.
_OBJECT_OF = {
    "payment_intent.succeeded": "payment_intent", "payment_intent.amount_capturable_updated": "payment_intent",
    "payment_intent.payment_failed": "payment_intent", "charge.refunded": "charge",
    "charge.dispute.created": "dispute",
}
_STRIPE_ID = re.compile(r"[A-Za-z0-9_]{1,255}")


# What handling an event answers: its outcome, and the internal event (name and data) that hands
# it over to the area that acts on it (None: handled here, the outcome is final).
Handled = tuple[str, tuple[str, dict] | None]


async def handle_event(event_id: str) -> str:
    """Handle the recorded event once; answers (and records) what it did, or to whom it went."""
    event = await GatewayEvent.get_or_none(id=event_id)
    if event is None:
        return "gone"
    if event.handled_at is not None or event.outcome is not None:  # handled, or handed over
        return event.outcome or "handled"
    outcome, handover = await _handle(event)
    if handover is None:
        await finish_gateway_event(event.id, outcome)
        return outcome
    name, data = handover
    async with atomic():
        await emit(name, gateway_event_id=event.id, **data)
        await GatewayEvent.filter(id=event.id, handled_at=None).update(outcome=outcome)
    log.info("stripe event %s (%s): %s", event.id, event.type, outcome)
    return outcome


async def _handle(event: GatewayEvent) -> Handled:
    kind = _OBJECT_OF.get(event.type)
    if kind is None:
        return "ignored", None
    if not is_registered(PROVIDER_ID):
        return "ignored: Stripe is not configured", None
    # The signed body only names the object: what it says of money (a status, an amount
    # refunded) is read from Stripe's API now, as the sweep does, never taken from the body.
    object_id = event.data["data"]["object"].get("id")
    if not isinstance(object_id, str) or not _STRIPE_ID.fullmatch(object_id):
        return "ignored: the event names no Stripe object", None
    obj = await _api().find(kind, object_id)
    if obj is None:
        return f"ignored: Stripe has no {kind} {object_id}", None
    if event.type in _READY:
        return await paid_cart(obj, f"stripe:{event.id}")
    if event.type == "payment_intent.payment_failed":
        return await _payment_failed(obj), None
    if event.type == "charge.refunded":
        return await _refunded(obj)
    return await _disputed(obj), None


async def paid_cart(intent: dict, key: str) -> Handled:
    """An authorized (or succeeded) intent of a cart of ours, handed to checkout to complete the
    cart if it is not (under the idempotency key `key`) and mark its order's payment captured
    when the intent was captured at Stripe."""
    cart_id = _cart_id(intent)
    cart = await Cart.get_or_none(id=cart_id) if cart_id else None
    if cart is None:
        return "ignored: the intent pays no cart of this store", None
    if cart.completed_at is None:
        sessions = await PaymentSession.filter(cart_id=cart.id, provider_id__in=PROVIDER_IDS)
        if not any((s.data or {}).get("id") == intent.get("id") for s in sessions):
            return "ignored: not the intent of the cart's payment session", None
    data = {"cart_id": cart.id, "intent_id": intent.get("id"), "intent_status": intent.get("status"),
            "key": key, "path": HOOK_PATH}
    return f"handed to checkout: cart {cart.id}", (ev.GATEWAY_PAYMENT_READY, data)


async def _payment_failed(intent: dict) -> str:
    """A shopper's payment refused at Stripe: a warning for a cart of ours, information only for
    an intent that pays nothing here (another integration on the same Stripe account)."""
    message = (intent.get("last_payment_error") or {}).get("message") or "no reason given"
    cart_id = _cart_id(intent)
    if not cart_id or not await Cart.filter(id=cart_id).exists():
        log.info("payment intent %s, which pays no cart of this store, failed: %s", intent.get("id"), message)
        return f"ignored: the intent pays no cart of this store (payment failed: {message})"
    log.warning("the payment of payment intent %s for cart %s failed: %s", intent.get("id"), cart_id, message)
    return f"payment failed: {message}"


async def _refunded(charge: dict) -> Handled:
    payment = await _payment_of(charge.get("payment_intent"))
    if payment is None:
        return "ignored: the charge pays no order of this store", None
    data = {"payment_id": payment.id, "amount_refunded": int(charge.get("amount_refunded") or 0),
            "note": f"Refunded in Stripe (charge {charge.get('id')})"}
    return f"handed to orders: payment {payment.id}", (ev.GATEWAY_REFUND_MADE, data)


async def _disputed(dispute: dict) -> str:
    intent_id = dispute.get("payment_intent")
    if not intent_id and dispute.get("charge"):
        intent_id = (await _api().retrieve_charge(dispute["charge"])).get("payment_intent")
    payment = await _payment_of(intent_id)
    if payment is None:
        return "ignored: the dispute concerns no order of this store"
    value = (f"Stripe dispute {dispute.get('id')} opened for {dispute.get('amount')} "
             f"{str(dispute.get('currency') or '').upper()}: {dispute.get('reason') or 'no reason given'}")
    if not await Note.filter(resource_type="order", resource_id=payment.order_id, value=value).exists():
        await Note.create(resource_type="order", resource_id=payment.order_id, value=value)
    return f"noted on order {payment.order_id}"


async def _payment_of(intent_id: Any) -> Payment | None:
    """The order's payment that is this intent (its cart read from the intent at Stripe)."""
    if not isinstance(intent_id, str) or not intent_id:
        return None
    cart_id = _cart_id(await _api().retrieve_intent(intent_id))
    if not cart_id:
        return None
    payments = await Payment.filter(cart_id=cart_id, provider_id__in=PROVIDER_IDS, order_id__not_isnull=True)
    return next((p for p in payments if (p.data or {}).get("id") == intent_id), None)


def _cart_id(intent: dict) -> str | None:
    metadata = intent.get("metadata") or {}
    return metadata.get("cart_id") or metadata.get("resource_id")  # cart_id: plugins before 6.x


def _api():
    return get_provider(PROVIDER_ID).api

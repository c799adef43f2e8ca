"""What a recorded Stripe event does (the job of `POST /stripe/hooks`). Each step is safe to run
twice: the event is marked handled last, and every step checks the state it acts on.

- payment_intent.succeeded / amount_capturable_updated: a cart not yet completed (the shopper
  closed the tab after 3-D Secure) is completed through the very completion path the storefront
  uses (services/checkout/completion.py), under a key of its own, so a webhook racing the shopper
  makes one order; an intent that succeeded (captured at authorization) marks the order's
  payment captured. As Medusa's plugin does.
- payment_intent.payment_failed: logged (a warning for a cart of ours; information for an intent
  that pays nothing here, which is no fault of ours), and recorded on the event.
- charge.refunded (beyond Medusa): money refunded in Stripe's dashboard shows as one refund.
- charge.dispute.created (beyond Medusa): a note on the order's timeline.

Every handler acts on the object as Stripe's API answers it now, retrieved by the id the event
names: a signed body is a notice that something changed, not a statement of what it is.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from models import Cart, GatewayEvent, Note, Order, Payment, PaymentSession
from services.checkout.completion import Answers, TransientFailure, complete_cart
from services.core.idempotency import KeyInUse
from services.core import clock
from services.core.errors import DomainError
from services.orders.capture import capture_order
from services.orders.refunds import record_gateway_refund
from services.payments import get_provider, is_registered
from services.payments.stripe.provider import PROVIDER_ID, PROVIDER_IDS

__all__ = ["handle_event", "complete_paid_cart", "HOOK_PATH"]

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


async def handle_event(event_id: str, answers: Answers) -> str:
    """Handle the recorded event once; answers (and records) what it did."""
    event = await GatewayEvent.get_or_none(id=event_id)
    if event is None:
        return "gone"
    if event.handled_at is not None:
        return event.outcome or "handled"
    outcome = await _handle(event, answers)
    await GatewayEvent.filter(id=event.id, handled_at=None).update(handled_at=clock.now(), outcome=outcome[:2000])
    log.info("stripe event %s (%s): %s", event.id, event.type, outcome)
    return outcome


async def _handle(event: GatewayEvent, answers: Answers) -> str:
    kind = _OBJECT_OF.get(event.type)
    if kind is None:
        return "ignored"
    if not is_registered(PROVIDER_ID):
        return "ignored: Stripe is not configured"
    # The signed body only names the object: what it says of money (a status, an amount
    # refunded) is read from Stripe's API now, as the sweep does, never taken from the body.
    object_id = event.data["data"]["object"].get("id")
    if not isinstance(object_id, str) or not _STRIPE_ID.fullmatch(object_id):
        return "ignored: the event names no Stripe object"
    obj = await _api().find(kind, object_id)
    if obj is None:
        return f"ignored: Stripe has no {kind} {object_id}"
    if event.type in _READY:
        return await complete_paid_cart(obj, f"stripe:{event.id}", answers)
    if event.type == "payment_intent.payment_failed":
        return await _payment_failed(obj)
    if event.type == "charge.refunded":
        return await _refunded(obj)
    return await _disputed(obj)


async def complete_paid_cart(intent: dict, key: str, answers: Answers) -> str:
    """The cart an authorized (or succeeded) intent pays for, completed if it is not, and its
    order's payment marked captured when the intent was captured at Stripe."""
    cart_id = _cart_id(intent)
    cart = await Cart.get_or_none(id=cart_id) if cart_id else None
    if cart is None:
        return "ignored: the intent pays no cart of this store"
    if cart.completed_at is None:
        sessions = await PaymentSession.filter(cart_id=cart.id, provider_id__in=PROVIDER_IDS)
        if not any((s.data or {}).get("id") == intent.get("id") for s in sessions):
            return "ignored: not the intent of the cart's payment session"
        try:
            done = await complete_cart(cart.id, key, path=HOOK_PATH, body={"payment_intent": intent.get("id")},
                                       answers=answers)
        except TransientFailure:
            return "completion stopped; its retry finishes it"
        except KeyInUse:
            raise  # another run of this event holds the key: the job's retry finds it done
        except DomainError as refusal:
            # Money taken without an order is the worst outcome: an operator must refund it.
            report = log.error if intent.get("status") == "succeeded" else log.warning
            report("cart %s paid at Stripe (%s, %s) was not completed: %s", cart.id, intent.get("id"),
                   intent.get("status"), refusal.message)
            return f"cart not completed: {refusal.message}"
        if (done.body or {}).get("type") != "order":
            return f"cart not completed: {(done.body or {}).get('payment_status') or done.status}"
    order_id = (await Order.filter(cart_id=cart.id).values_list("id", flat=True) or [None])[0]
    if order_id is None:
        return "cart completed without an order"
    if intent.get("status") == "succeeded":
        await capture_order(order_id)
        return f"order {order_id}; payment captured"
    return f"order {order_id}"


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


async def _refunded(charge: dict) -> str:
    payment = await _payment_of(charge.get("payment_intent"))
    if payment is None:
        return "ignored: the charge pays no order of this store"
    refund = await record_gateway_refund(payment.id, int(charge.get("amount_refunded") or 0),
                                         f"Refunded in Stripe (charge {charge.get('id')})")
    return f"refund {refund.id} of {refund.amount} recorded" if refund else "no refund beyond ours"


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

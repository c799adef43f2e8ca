"""Reconciling Stripe with our carts (a scheduled maintenance sweep, beyond Medusa's plugin).

A stripe session of a cart that has no order, untouched for STRIPE_ABANDONED_MINUTES, is read
back from Stripe:
- its intent succeeded (the money was taken: captured at authorization) but the webhook never
  came: the cart is handed to checkout to complete, through the same path as the webhook's
  (handling.py: the `gateway.payment_ready` event);
- its intent holds the shopper's money (`requires_capture`) for a cart that never became an
  order: the hold is released (the intent canceled, with the cart's payment if one was
  authorized), unless a completion of the cart is still running or waiting for its retry;
- otherwise nothing is held: the session only takes the intent's current state, which also puts
  it out of the sweep's sight for another period.
Cart payments authorized without an order are canceled by services/payments/authorizations.py
(STALE_AUTHORIZATION_SECONDS) whatever their provider; this sweep also reaches holds no
completion ever saw.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from models import Cart, Payment, PaymentSession
from services.core import clock
from services.core.db import atomic
from services.payments import get_provider, is_registered
from services.payments.authorizations import cancel_authorization, completion_in_flight
from services.events.bus import emit
from services.payments.stripe.handling import paid_cart
from services.payments.stripe.provider import PROVIDER_ID, PROVIDER_IDS, session_status

__all__ = ["reconcile_intents", "SWEEP_LIMIT"]

log = logging.getLogger("commerce.stripe")

SWEEP_LIMIT = 100  # sessions looked at per run; the next run takes the rest


async def reconcile_intents(abandoned_minutes: float) -> dict[str, list]:
    """One run of the sweep: what it handed to checkout to complete, released and failed on."""
    done: dict[str, list] = {"completed": [], "released": [], "failed": []}
    if not is_registered(PROVIDER_ID):
        return done
    cutoff = clock.now() - timedelta(minutes=abandoned_minutes)
    sessions = await PaymentSession.filter(
        provider_id__in=PROVIDER_IDS, is_initiated=True, updated_at__lt=cutoff, cart__completed_at__isnull=True,
    ).exclude(status="canceled").order_by("updated_at").limit(SWEEP_LIMIT)
    for session in sessions:
        try:
            kind, what = await _reconcile(session)
        except Exception as e:  # one intent's failure does not hold up the others
            log.warning("stripe session %s not reconciled: %s", session.id, e)
            done["failed"].append({"session_id": session.id, "error": f"{type(e).__name__}: {e}"[:500]})
            continue
        if kind:
            done[kind].append(what)
    return done


async def _reconcile(session: PaymentSession) -> tuple[str | None, dict]:
    intent_id = (session.data or {}).get("id")
    if not intent_id:
        return None, {}
    intent = await get_provider(PROVIDER_ID).api.retrieve_intent(intent_id)
    what = {"cart_id": session.cart_id, "payment_intent": intent_id, "amount": intent.get("amount")}
    if intent.get("status") == "succeeded":
        outcome, handover = await paid_cart(intent, f"stripe-sweep:{intent_id}")
        if handover is not None:
            name, data = handover
            await emit(name, gateway_event_id=None, **data)
        log.info("cart %s paid at Stripe without a webhook: %s", session.cart_id, outcome)
        return "completed", {**what, "outcome": outcome}
    if intent.get("status") == "requires_capture":
        if await _release(session, intent):
            log.info("released Stripe hold %s of abandoned cart %s (%s %s)", intent_id, session.cart_id,
                     intent.get("amount"), intent.get("currency"))
            return "released", what
        return None, {}
    await PaymentSession.filter(id=session.id).update(data=intent, status=session_status(intent),
                                                      updated_at=clock.now())
    return None, {}


async def _release(session: PaymentSession, intent: dict) -> bool:
    async with atomic():
        # The cart's row lock first, as every checkout stage takes it: no completion moves meanwhile.
        cart = await Cart.filter(id=session.cart_id).select_for_update().first()
        if cart is None or cart.completed_at is not None or await completion_in_flight(cart.id):
            return False
        payments = await Payment.filter(cart_id=cart.id, provider_id__in=PROVIDER_IDS, canceled_at=None, order_id=None)
        payment = next((p for p in payments if (p.data or {}).get("id") == intent["id"]), None)
        if payment is not None:
            await cancel_authorization(cart.id, payment)
            data = {**intent, "status": "canceled"}
        else:
            data = await get_provider(PROVIDER_ID).cancel(intent)
        await PaymentSession.filter(id=session.id).update(data=data, status="canceled", updated_at=clock.now())
    return True

"""Carts paid at a gateway without the shopper completing them (they closed the tab after 3-D
Secure, or the webhook came first): payments records what the gateway said as the internal event
`gateway.payment_ready` (services/payments/stripe/handling.py, its sweep.py), and checkout
completes the cart.

The subscriber only asks for the `complete_paid_cart` job, in the event's dispatch transaction:
a completion commits stage by stage and calls the gateway between its stages, so it runs outside
any transaction, in that job. The job completes the cart through the very path the storefront
uses (completion.py) under the event's own key, so a webhook racing the shopper makes one order,
then marks the order's payment captured when the intent was captured at authorization (as
Medusa's plugin does), and finishes the gateway's event with what it did."""

from __future__ import annotations

import logging

from models import Cart, Event, Order
from services.checkout.answers import Answers
from services.checkout.completion import TransientFailure, complete_cart
from services.core import outbox
from services.core.errors import DomainError
from services.core.idempotency import KeyInUse
from services.events import names as ev
from services.orders.capture import capture_order
from services.payments.gateway_events import finish_gateway_event

__all__ = ["subscribe_checkout", "complete_paid_cart", "PAID_ACTOR"]

log = logging.getLogger("commerce.stripe")

PAID_ACTOR = "complete_paid_cart"


async def _ask_for_completion(event: Event) -> None:
    await outbox.enqueue(PAID_ACTOR, event.id)


def subscribe_checkout(subscribe) -> None:
    subscribe("checkout", [ev.GATEWAY_PAYMENT_READY], _ask_for_completion)


async def complete_paid_cart(event_id: str, answers: Answers) -> str:
    """The job: the cart of the `gateway.payment_ready` event completed if it is not, its order's
    payment captured when the gateway took the money; answers (and records on the gateway's
    event, when one sent it) what it did. KeyInUse and failures other than the completion's are
    raised for the job's retry."""
    event = await Event.get_or_none(id=event_id)
    if event is None:
        return "gone"
    paid = event.data
    outcome = await _complete(paid, answers)
    if paid.get("gateway_event_id"):
        await finish_gateway_event(paid["gateway_event_id"], outcome)
    return outcome


async def _complete(paid: dict, answers: Answers) -> str:
    cart_id, intent_id, status = paid["cart_id"], paid["intent_id"], paid["intent_status"]
    cart = await Cart.get_or_none(id=cart_id)
    if cart is None:  # deleted since payments heard of it
        return "ignored: the intent pays no cart of this store"
    if cart.completed_at is None:
        try:
            done = await complete_cart(cart_id, paid["key"], path=paid["path"], body={"payment_intent": intent_id},
                                       answers=answers)
        except TransientFailure:
            return "completion stopped; its retry finishes it"
        except KeyInUse:
            raise  # another run of this event holds the key: the job's retry finds it done
        except DomainError as refusal:
            # Money taken without an order is the worst outcome: an operator must refund it.
            report = log.error if status == "succeeded" else log.warning
            report("cart %s paid at Stripe (%s, %s) was not completed: %s", cart_id, intent_id, status,
                   refusal.message)
            return f"cart not completed: {refusal.message}"
        if (done.body or {}).get("type") != "order":
            return f"cart not completed: {(done.body or {}).get('payment_status') or done.status}"
    order_id = (await Order.filter(cart_id=cart_id).values_list("id", flat=True) or [None])[0]
    if order_id is None:
        return "cart completed without an order"
    if status == "succeeded":
        await capture_order(order_id)
        return f"order {order_id}; payment captured"
    return f"order {order_id}"

"""Money refunded at a payment gateway itself (Stripe's dashboard), beyond Medusa: payments records
what the gateway says it refunded of a payment as the internal event `gateway.refund_made`
(services/payments/stripe/handling.py), and orders records it as one refund of the order
(refunds.py: `record_gateway_refund`), in the event's dispatch transaction, then finishes the
gateway's event with what it did."""

from __future__ import annotations

from models import Event
from services.events import names as ev
from services.orders.refunds import record_gateway_refund
from services.payments.gateway_events import finish_gateway_event

__all__ = ["subscribe_orders"]


async def _record_refund(event: Event) -> None:
    made = event.data
    refund = await record_gateway_refund(made["payment_id"], made["amount_refunded"], made["note"])
    outcome = f"refund {refund.id} of {refund.amount} recorded" if refund else "no refund beyond ours"
    await finish_gateway_event(made["gateway_event_id"], outcome)


def subscribe_orders(subscribe) -> None:
    subscribe("orders", [ev.GATEWAY_REFUND_MADE], _record_refund)

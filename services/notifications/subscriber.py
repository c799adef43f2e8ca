"""The notifications' subscriber: an event a person should hear about becomes a notification row
and its sending job, in the transaction that records the event as handled. `no_notification` on
the event (the order's, the fulfillment's, the swap's or claim's, or the request's) is honoured,
as Medusa v1's notification service does. The row's `resource_id` is the order, so the order
page's timeline lists every message about it (Medusa files swap and claim messages under their
own ids, where the dashboard never looks).

The events that exist to ask for a message (ASKED: a password reset, an invitation, an order
claim, an order edit to confirm) are emitted by their areas below this one; their data is the
message's, without its token, which is made when the message leaves (delivery.py): events reach
webhooks too, so no secret is ever put in one."""

from __future__ import annotations

from models import Event, Order
from services.notifications.delivery import queue_message
from services.notifications.messages import (
    INVITE_CREATED, ORDER_CLAIM, ORDER_EDIT_REQUESTED, PASSWORD_RESET, USER_PASSWORD_RESET,
)
from services.notifications.order_messages import ORDER_KINDS, snapshot

__all__ = ["subscribe_notifications", "notify", "ASKED"]

ASKED = frozenset({INVITE_CREATED, USER_PASSWORD_RESET, PASSWORD_RESET, ORDER_CLAIM, ORDER_EDIT_REQUESTED})


async def notify(event: Event) -> None:
    if event.name in ASKED:
        await _asked(event)
        return
    if event.data.get("no_notification") is True:
        return
    data = await snapshot(event.name, event.data)
    if data is None or not data.get("email"):
        return
    await queue_message(event.name, to=data["email"], data=data, customer_id=data.get("customer_id"),
                        resource_id=data["order_id"])


async def _asked(event: Event) -> None:
    """The message the event asks for, to whom its data names (an order edit's: the order's email)."""
    data, customer_id, resource_id = event.data, None, None
    if event.name == INVITE_CREATED:
        to, resource_id = data["user_email"], data["id"]
    elif event.name == USER_PASSWORD_RESET:
        to, resource_id = data["email"], data["id"]
    elif event.name == PASSWORD_RESET:
        to, customer_id, resource_id = data["email"], data["id"], data["id"]
    elif event.name == ORDER_CLAIM:
        to = data["old_email"]
    else:
        found = await Order.filter(id=data["order_id"]).values_list("email", "customer_id")
        if not found:
            return
        (to, customer_id), resource_id = found[0], data["id"]
    await queue_message(event.name, to=to, data=data, customer_id=customer_id, resource_id=resource_id)


def subscribe_notifications(subscribe) -> None:
    subscribe("notifications", sorted(ORDER_KINDS | ASKED), notify, rows_only=True)  # the message leaves by its job

"""The notifications' subscriber: an event a shopper should hear about (order_messages.py)
becomes a notification row and its sending job, in the transaction that records the event as
handled. `no_notification` on the event (the order's, the fulfillment's, the swap's or claim's,
or the request's) is honoured, as Medusa v1's notification service does. The row's `resource_id`
is the order, so the order page's timeline lists every message about it (Medusa files swap and
claim messages under their own ids, where the dashboard never looks).

Password resets and invitations are sent by their own requests (services/notifications/
delivery.py); their events are not mailed a second time here."""

from __future__ import annotations

from models import Event
from services.notifications.delivery import queue_message
from services.notifications.order_messages import ORDER_KINDS, snapshot

__all__ = ["subscribe_notifications", "notify"]


async def notify(event: Event) -> None:
    if event.data.get("no_notification") is True:
        return
    data = await snapshot(event.name, event.data)
    if data is None or not data.get("email"):
        return
    await queue_message(event.name, to=data["email"], data=data, customer_id=data.get("customer_id"),
                        resource_id=data["order_id"])


def subscribe_notifications(subscribe) -> None:
    subscribe("notifications", sorted(ORDER_KINDS), notify)

"""The plugin's subscriber, `loyalty.points`: points earned when an order is placed, taken back
when a refund is made. It runs in a transaction with its receipt (services/events/dispatch.py)
and may run again after a failure: loyalty/points.py writes each change once, by its key."""

from __future__ import annotations

from typing import Callable

from services.events.names import ORDER_PLACED, ORDER_REFUND_CREATED

__all__ = ["subscribe_loyalty"]


async def _handle(event) -> None:
    from loyalty import points

    if event.name == ORDER_PLACED:
        await points.earn_for_order(event.data["id"])
    elif event.data.get("refund_id"):
        await points.take_back_for_refund(event.data["refund_id"])


def subscribe_loyalty(subscribe: Callable) -> None:
    subscribe("loyalty.points", [ORDER_PLACED, ORDER_REFUND_CREATED], _handle)

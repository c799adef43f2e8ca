"""Taking an order for a change: every operation on an order starts by locking its row, so two
requests on one order run one after the other and each sees what the other did."""

from __future__ import annotations

from models import Order
from services.core import clock
from services.core.errors import NotFound
from services.core.ids import fits

__all__ = ["lock_order", "stamped", "NOT_FOUND"]

NOT_FOUND = "Order with id {id} was not found"  # Medusa's plain retrieve


async def lock_order(order_id: str) -> Order:
    """The order, its row locked until the caller's transaction ends (call it inside `atomic()`)."""
    order = await Order.filter(id=order_id).select_for_update().first() if fits(Order, order_id) else None
    if order is None:
        raise NotFound(NOT_FOUND.format(id=order_id))
    return order


def stamped(**changes) -> dict:
    """`changes` to an order with its `updated_at`: a queryset UPDATE does not set it, and the
    dashboard's timeline dates a cancel by it."""
    return {**changes, "updated_at": clock.now()}

"""Who may ask for a return from the store: Medusa v1 lets anyone who knows an order's id ask for
its return. Here an order of a customer with an account can be returned only by that customer,
signed in; a guest's order (its customer has no account) by its id, as in Medusa. Anyone else is
told the order does not exist."""

from __future__ import annotations

from models import Customer, Order
from services.core.errors import NotFound
from services.core.ids import fits
from services.orders.locks import NOT_FOUND

__all__ = ["check_shopper_may_return"]


async def check_shopper_may_return(order_id: str, customer_id: str | None) -> None:
    order = await Order.get_or_none(id=order_id) if fits(Order, order_id) else None
    owner = await Customer.get_or_none(id=order.customer_id) if order is not None else None
    if owner is None or (owner.has_account and owner.id != customer_id):
        raise NotFound(NOT_FOUND.format(id=order_id))

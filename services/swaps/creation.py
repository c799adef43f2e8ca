"""Making a swap (`POST /store/swaps`): the items coming back as a
return (with its shipping, and no refund of its own: the swap's difference settles the money),
the new items priced for the order's region and customer, and the swap's cart, whose total is
the difference the shopper pays or is given back.

One transaction holding the order's row lock: a swap exists with its return and its cart, or not
at all (Medusa commits them in stages and may leave a swap without a cart). Unlike Medusa v1: a
swap needs at least one item to return and one new item (an exchange of nothing is refused), an
order with a partial refund may still swap, units already asked back by a live return cannot be
swapped again, and the new items' stock is taken when the shopper confirms the swap
(confirmation.py).
"""

from __future__ import annotations

from models import Return, Swap
from services.orders.after_sale_lines import priced_line
from services.core.db import atomic
from services.core.errors import InvalidData
from services.orders.locks import lock_order
from services.orders.statuses import plan
from services.orders.view import load_order_view
from services.returns.requests import request_return
from services.swaps.carts import open_swap_cart
from services.events import names as ev
from services.events.bus import emit

__all__ = ["create_swap", "create_shopper_swap"]


def _check_input(data: dict) -> None:
    if not data.get("return_items"):
        raise InvalidData("A swap must return at least one item")
    if not data.get("additional_items"):
        raise InvalidData("A swap must have at least one new item")
    for item in data["return_items"]:
        if item["quantity"] < 1:
            raise InvalidData("quantity must not be less than 1")
    for extra in data["additional_items"]:
        if extra["quantity"] < 1:
            raise InvalidData("quantity must not be less than 1")
    for offer in data.get("custom_shipping_options") or []:
        if offer["price"] < 0:
            raise InvalidData("price must not be less than 0")


async def create_swap(order_id: str, data: dict, *, idempotency_key: str | None = None) -> Swap:
    """`data`: return_items [{item_id, quantity, reason_id?, note?}], additional_items
    [{variant_id, quantity}], return_shipping {option_id, price?}, custom_shipping_options
    [{option_id, price}], no_notification, allow_backorder, sales_channel_id, return_location_id."""
    _check_input(data)
    async with atomic():
        order = await lock_order(order_id)
        plan(order, "swap")
        no_notification = order.no_notification if data.get("no_notification") is None else data["no_notification"]
        swap = await Swap.create(
            order_id=order.id, idempotency_key=idempotency_key, no_notification=no_notification,
            allow_backorder=bool(data.get("allow_backorder")), metadata={},
        )
        for extra in data["additional_items"]:
            await priced_line(order, extra["variant_id"], extra["quantity"], swap_id=swap.id)
        ret = await request_return(
            order.id, data["return_items"], return_shipping=data.get("return_shipping"), refund=0,
            no_notification=no_notification, location_id=data.get("return_location_id"), announce=False,
        )
        await Return.filter(id=ret.id).update(swap_id=swap.id)
        cart = await open_swap_cart(
            await load_order_view(order.id), swap, ret, data.get("custom_shipping_options") or [],
            data.get("sales_channel_id"),
        )
        await Swap.filter(id=swap.id).update(cart_id=cart.id)
        swap.cart_id = cart.id
        await emit(ev.SWAP_CREATED, id=swap.id, no_notification=no_notification)
    return swap


async def create_shopper_swap(
    order_id: str, return_items: list[dict], additional_items: list[dict], return_option_id: str | None, *,
    idempotency_key: str | None = None,
) -> Swap:
    """The storefront's swap (`POST /store/swaps`): it never allows backorders and offers no
    shipping prices of its own, which are the merchant's to set (Medusa's store route sets neither)."""
    return await create_swap(order_id, {
        "return_items": return_items, "additional_items": additional_items,
        "return_shipping": {"option_id": return_option_id} if return_option_id else None,
        "no_notification": None, "allow_backorder": False,
    }, idempotency_key=idempotency_key)

"""The shopper confirming a swap: completing its cart. Runs inside cart completion's placing stage
(services/checkout/
completion.py), which holds the cart's row lock, has stored the cart's tax lines and authorized
what there is to pay, under the completion's idempotency key.

The swap is confirmed once (a conditional UPDATE on `confirmed_at`): the new items' stock is
taken, the payment (when the difference is above zero) joins the order's payments as the swap's,
the cart's shipping methods become the swap's, `difference_due` is the cart's total.

Unlike Medusa v1: only the new lines take stock (Medusa also takes the returned lines' stock),
a swap that allows backorders takes it without the floor (stock may go below zero) instead of
skipping the check only, and new items that ship need a shipping method.
"""

from __future__ import annotations

from models import Cart, Payment, ShippingMethod, Swap
from services.carts.view import CartView
from services.orders.placement import InsufficientInventory, reserve_inventory, restock, variant_quantities
from services.core import clock
from services.core.errors import InvalidData, NotAllowed
from services.inventory.order_stock import reserve_lines
from services.orders.locks import lock_order, stamped
from services.swaps.statuses import check_swap, confirmed_status
from services.events import names as ev
from services.events.bus import emit

__all__ = ["confirm_swap"]


async def confirm_swap(view: CartView, payment: Payment | None) -> Swap:
    cart = view.cart
    swap = await Swap.get(cart_id=cart.id)
    await lock_order(swap.order_id)
    swap = await Swap.get(id=swap.id)
    if swap.confirmed_at is not None:
        return swap
    check_swap(swap, "complete_cart")
    total = view.totals.total
    if total > 0 and payment is None:
        raise InvalidData("Cart payment not authorized")
    new_lines = [i for i in view.items if not i.is_return]
    if any(i.variant is not None for i in new_lines) and not view.shipping_methods:
        raise NotAllowed("The swap's new items need a shipping method")
    if swap.allow_backorder:
        await restock(variant_quantities((i.variant_id, i.quantity) for i in new_lines), sign=-1)
    else:
        if short := await reserve_lines(new_lines, cart.sales_channel_id):
            raise InsufficientInventory(short)
        await reserve_inventory(new_lines)
    if payment is not None:
        await Payment.filter(id=payment.id).update(swap_id=swap.id, order_id=swap.order_id)
    await ShippingMethod.filter(cart_id=cart.id).update(swap_id=swap.id)
    now = clock.now()
    await Swap.filter(id=swap.id, confirmed_at=None).update(**stamped(
        confirmed_at=now, difference_due=total, shipping_address_id=cart.shipping_address_id,
        payment_status=confirmed_status(total),
    ))
    await Cart.filter(id=cart.id).update(completed_at=now)
    await emit(ev.SWAP_PAYMENT_COMPLETED, id=swap.id, no_notification=swap.no_notification)
    return await Swap.get(id=swap.id)

"""A swap after it is made: its new items fulfilled and shipped with
the order operations' mechanics (services/orders/fulfilments.py, shipments.py), a swap
fulfillment called back, the difference settled, and the swap canceled. Each runs in one
transaction holding the order's row lock.

Unlike Medusa v1: each route checks that the swap is the order's and the fulfillment the swap's;
a swap cannot be fulfilled before the shopper confirmed it; canceling a confirmed swap gives its
new items' stock back (once: the cancel is a conditional UPDATE); a swap fulfilled or shipped
again is refused rather than fulfilled twice.
"""

from __future__ import annotations

from models import Fulfillment, Payment, Return, Swap
from services.core import clock
from services.core.db import atomic
from services.core.errors import NotAllowed
from services.orders.after_sale_lines import fulfil_new_lines, restock_new_lines
from services.orders.fulfilments import call_back, owned_fulfillment
from services.orders.locks import lock_order, stamped
from services.orders.shipments import send_off
from services.payments.authorizations import cancel_authorization
from services.swaps.statuses import REFUNDED, check_swap, order_swap, settle_swap_status
from services.events import names as ev
from services.events.bus import emit

__all__ = ["fulfil_swap", "ship_swap", "cancel_swap_fulfillment", "cancel_swap"]


async def fulfil_swap(order_id: str, swap_id: str, *, no_notification: bool | None = None,
                      location_id: str | None = None, metadata: dict | None = None) -> None:
    """Fulfil every new item not yet fulfilled."""
    async with atomic():
        await lock_order(order_id)
        swap = await order_swap(order_id, swap_id)
        check_swap(swap, "fulfil")
        if swap.fulfillment_status not in ("not_fulfilled", "canceled", "partially_fulfilled"):
            raise NotAllowed("The swap was already fulfilled")
        if swap.confirmed_at is None:
            raise NotAllowed("Cannot fulfill a swap that hasn't been confirmed by the customer")
        await fulfil_new_lines(
            "swap_id", swap, settle_swap_status, ev.SWAP_FULFILLMENT_CREATED,
            done="The swap was already fulfilled",
            no_method="Cannot fulfill an swap that doesn't have shipping methods",
            no_notification=no_notification, location_id=location_id, metadata=metadata,
        )


async def ship_swap(order_id: str, swap_id: str, fulfillment_id: str, tracking_numbers: list[str] | None = None,
                    no_notification: bool | None = None) -> None:
    async with atomic():
        await lock_order(order_id)
        swap = await order_swap(order_id, swap_id)
        check_swap(swap, "ship")
        fulfillment = await owned_fulfillment("swap_id", swap.id, fulfillment_id, "swap")
        await send_off(fulfillment, tracking_numbers, no_notification)
        await settle_swap_status(swap)
        await emit(ev.SWAP_SHIPMENT_CREATED, id=swap.id, fulfillment_id=fulfillment.id,
                   no_notification=swap.no_notification if no_notification is None else no_notification)


async def cancel_swap_fulfillment(order_id: str, swap_id: str, fulfillment_id: str) -> None:
    async with atomic():
        await lock_order(order_id)
        swap = await order_swap(order_id, swap_id)
        fulfillment = await owned_fulfillment("swap_id", swap.id, fulfillment_id, "swap")
        if fulfillment.canceled_at is None and await call_back(fulfillment):
            await settle_swap_status(swap)


async def cancel_swap(order_id: str, swap_id: str) -> None:
    """Cancel a swap with no refund, no live fulfillment and no live return; its payment is
    released and its cart can no longer be completed. A canceled one stays as it is."""
    async with atomic():
        await lock_order(order_id)
        swap = await order_swap(order_id, swap_id)
        if swap.canceled_at is not None:
            return
        if swap.payment_status in REFUNDED:
            raise NotAllowed("Swap with a refund cannot be canceled")
        if await Fulfillment.filter(swap_id=swap.id, canceled_at=None).exists():
            raise NotAllowed("All fulfillments must be canceled before the swap can be canceled")
        if await Return.filter(swap_id=swap.id).exclude(status="canceled").exists():
            raise NotAllowed("Return must be canceled before the swap can be canceled")
        payment = await Payment.filter(swap_id=swap.id, canceled_at=None).first()
        if payment is not None and payment.captured_at is not None:
            raise NotAllowed("A swap whose difference was captured cannot be canceled: refund it first")
        canceled = await Swap.filter(id=swap.id, canceled_at=None).update(
            **stamped(canceled_at=clock.now(), payment_status="canceled", fulfillment_status="canceled"))
        if not canceled:
            return
        if payment is not None:
            await cancel_authorization(swap.cart_id, payment)
        if swap.confirmed_at is not None:
            await restock_new_lines(swap_id=swap.id, is_return=False)

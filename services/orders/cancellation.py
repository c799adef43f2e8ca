"""Canceling an order: before anything was fulfilled, paid back or
captured; its stock goes back once, and its payments are canceled through their providers.

Order of work, so that a provider failing midway never leaves the order half-changed and a retry
finishes: first, in one transaction holding the order's row lock, the order is canceled (`status`
and `fulfillment_status`, `canceled_at`) and its stock given back, by a conditional UPDATE of the
status, so stock moves once however often the request comes; then each payment is canceled at
its provider and recorded in a transaction of its own; `payment_status` becomes canceled only when
every payment is. A transient failure leaves the order canceled with its old `payment_status`
(the recovery point: payments still to cancel); canceling it again finishes the work.

Unlike Medusa v1: a canceled order is not canceled again (no second restock), and captured money
is never "canceled" without being given back (refuse; refund it first).
"""

from __future__ import annotations

from models import LineItem, Order, Payment, Return
from services.orders.placement import restock, variant_quantities
from services.core import clock
from services.core.db import atomic
from services.core.errors import DomainError, NotAllowed
from services.inventory.order_stock import release_lines
from services.orders.keyed import ProviderUnavailable
from services.orders.locks import lock_order, stamped
from services.orders.statuses import LIVE_RETURN, MOVES, PAYMENT, STATUS, plan
from services.payments import get_provider
from services.events.bus import emit
from services.events import names as ev

__all__ = ["cancel_order"]


async def cancel_order(order_id: str) -> None:
    async with atomic():
        order = await lock_order(order_id)
        changes = plan(order, "cancel")
        if changes is None:
            return
        if STATUS in changes:
            await _refuse_unless_untouched(order)
            canceled = await Order.filter(id=order.id).exclude(status="canceled").update(
                **stamped(status="canceled", fulfillment_status="canceled", canceled_at=clock.now()),
            )
            if canceled:
                await _release_inventory(order.id)
                await emit(ev.ORDER_CANCELED, id=order.id, no_notification=order.no_notification)
    live = await Payment.filter(order_id=order_id, canceled_at=None).order_by("created_at", "id").values_list(
        "id", flat=True
    )
    for payment_id in live:
        await _cancel_payment(order_id, payment_id)
    async with atomic():
        order = await lock_order(order_id)
        changes = plan(order, "cancel", (PAYMENT,))
        if changes and not await Payment.filter(order_id=order.id, canceled_at=None).exists():
            await Order.filter(id=order.id).update(**stamped(**changes))


async def _refuse_unless_untouched(order: Order) -> None:
    """The lines and payments must agree with the statuses the table checked."""
    lines = LineItem.filter(order_id=order.id)
    if await lines.filter(fulfilled_quantity__gt=0).exists():
        raise NotAllowed(MOVES["cancel"]["fulfillment_status"].refusal)
    if await lines.filter(returned_quantity__gt=0).exists() or await Return.filter(
        order_id=order.id, status__in=LIVE_RETURN,
    ).exists():
        raise NotAllowed("All returns must be canceled before canceling an order")
    payments = Payment.filter(order_id=order.id)
    if await payments.filter(amount_refunded__gt=0).exists():
        raise NotAllowed(MOVES["cancel"][PAYMENT].refusals["refunded"])
    if await payments.filter(captured_at__not_isnull=True, canceled_at=None).exists():
        raise NotAllowed(MOVES["cancel"][PAYMENT].refusals["captured"])


async def _release_inventory(order_id: str) -> None:
    """Give each line's quantity back to its variant, where the order took it (see `stocked`),
    and release the lines' reservations at their locations first (INVENTORY_LOCATIONS)."""
    rows = await LineItem.filter(order_id=order_id).values_list("id", "variant_id", "quantity")
    await release_lines([line_id for line_id, _, _ in rows])
    await restock(variant_quantities((variant_id, quantity) for _, variant_id, quantity in rows))


async def _cancel_payment(order_id: str, payment_id: str) -> None:
    async with atomic():
        await lock_order(order_id)
        payment = await Payment.filter(id=payment_id, canceled_at=None).first()
        if payment is None:  # canceled meanwhile
            return
        try:
            data = await get_provider(payment.provider_id).cancel(dict(payment.data or {}))
        except DomainError:
            raise
        except Exception as e:
            raise ProviderUnavailable() from e
        await Payment.filter(id=payment.id).update(data=data, canceled_at=clock.now())

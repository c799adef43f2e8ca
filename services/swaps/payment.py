"""Settling a swap's difference: above zero the shopper's payment for
the swap is captured, below zero the order's captured money gives the difference back, at zero
there is nothing to move.

Money moves once: the work runs in one transaction holding the order's row lock and the swap's
payment status is the recovery point (a captured or refunded swap answers at once); a refund
goes through the order's refund rules (services/orders/refunds.py) under a key of the swap's, so
a retry after a lost answer never refunds twice. A provider's refusal is no error of the request:
as in Medusa v1 the swap is left `requires_action` for the merchant to look at (and may be
processed again); a provider that does not answer rolls everything back (503, retry).
"""

from __future__ import annotations

import logging

from models import Payment, Swap
from services.core import clock
from services.core.db import atomic
from services.core.errors import DomainError
from services.orders.keyed import ProviderUnavailable
from services.orders.locks import lock_order, stamped
from services.orders.refunds import refund_order
from services.payments import get_provider
from services.swaps.statuses import PROCESSED, check_swap, order_swap
from services.events import names as ev
from services.events.bus import emit

__all__ = ["process_swap_payment"]

log = logging.getLogger("commerce.swaps")


class _Refused(Exception):
    """The provider refused: the transaction rolls back, then the swap is marked."""


async def process_swap_payment(order_id: str, swap_id: str) -> None:
    try:
        await _settle(order_id, swap_id)
    except _Refused as refusal:
        log.warning("swap %s difference not settled: %s", swap_id, refusal)
        async with atomic():
            await lock_order(order_id)
            marked = await Swap.filter(
                id=swap_id, payment_status__in=("awaiting", "confirmed", "requires_action"),
            ).update(**stamped(payment_status="requires_action"))
            swap = await Swap.get(id=swap_id)
            if marked:
                refunding = (swap.difference_due or 0) < 0
                failed = ev.SWAP_PROCESS_REFUND_FAILED if refunding else ev.SWAP_PAYMENT_CAPTURE_FAILED
                await emit(failed, id=swap.id, no_notification=swap.no_notification)


async def _settle(order_id: str, swap_id: str) -> None:
    async with atomic():
        await lock_order(order_id)
        swap = await order_swap(order_id, swap_id)
        check_swap(swap, "process_payment")
        difference = swap.difference_due or 0
        sign = "positive" if difference > 0 else "negative" if difference < 0 else "zero"
        if swap.payment_status == PROCESSED[sign]:
            return
        if sign == "negative":
            try:
                await refund_order(order_id, -difference, "swap", no_notification=swap.no_notification,
                                   idempotency_key=f"swap:{swap.id}")
            except ProviderUnavailable:
                raise
            except DomainError as refusal:
                raise _Refused(refusal.message) from refusal
        elif sign == "positive":
            await _capture(swap)
        await Swap.filter(id=swap.id).update(**stamped(payment_status=PROCESSED[sign]))
        done = ev.SWAP_PAYMENT_CAPTURED if sign == "positive" else ev.SWAP_REFUND_PROCESSED
        await emit(done, id=swap.id, no_notification=swap.no_notification)


async def _capture(swap: Swap) -> None:
    payment = await Payment.filter(swap_id=swap.id, canceled_at=None).first()
    if payment is None:
        raise _Refused("the swap has no live payment")
    if payment.captured_at is not None:  # captured with the order's payments meanwhile
        return
    try:
        data = await get_provider(payment.provider_id).capture(dict(payment.data or {}))
    except DomainError as refusal:
        raise _Refused(refusal.message) from refusal
    except Exception as e:
        raise ProviderUnavailable() from e
    await Payment.filter(id=payment.id, captured_at=None).update(data=data, captured_at=clock.now())

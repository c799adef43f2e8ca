"""Giving money back for an order (reference orders §3.8): a Refund row, the amount taken off the
order's captured payments through their providers, and the payment status moved (§2.2).

Money changes once: each payment's `amount_refunded` rises by a conditional UPDATE that cannot
pass what the payment captured, inside one transaction that also holds the order's row lock. Two
refunds racing are taken one after the other; the second sees what the first refunded, and the
sum of refunds can never exceed what was captured.

Order of work: the provider is called first for each payment, then its refund is recorded, all in
that transaction. A provider that refuses (a domain error) changes nothing; one that fails
otherwise rolls everything back (no row, no amount), and the request may be retried: the
provider is given the same key each time (from the request's Idempotency-Key) so a gateway that
did refund before failing to answer does not refund twice.

Unlike Medusa v1: the reason must be one of Medusa's five (Medusa writes the refund at the
gateway and then fails on the database enum with a 500), the amount must be positive, money is
only taken from captured payments, and a refund made by a return moves the payment status too.
"""

from __future__ import annotations

from tortoise.expressions import F

from models import Order, Payment, Refund
from models.returns import REFUND_REASONS
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed
from services.orders.locks import lock_order, stamped
from services.orders.statuses import plan, refunded_payment_status
from services.payments import get_provider

__all__ = ["refund_order", "check_refund"]

TOO_MUCH = "Refund amount is greater that the refundable amount"  # sic, Medusa's text
MORE_THAN_PAID = "Cannot refund more than the original order amount"


def check_refund(amount: object, reason: object) -> None:
    """The amount and reason a refund may have (Medusa's messages where it has them)."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidData("amount must be an integer number")
    if amount <= 0:
        raise InvalidData("amount must be a positive number")
    if reason not in REFUND_REASONS:
        raise InvalidData(f"reason must be one of the following values: {', '.join(REFUND_REASONS)}")


async def refund_order(
    order_id: str, amount: int, reason: str, note: str | None = None, *, no_notification: bool | None = None,
    metadata: dict | None = None, idempotency_key: str | None = None,
) -> Refund:
    """Refund `amount` (minor units) of the order's captured money; joins an open transaction."""
    check_refund(amount, reason)
    async with atomic():
        order = await lock_order(order_id)
        plan(order, "refund")
        payments = await Payment.filter(order_id=order.id, canceled_at=None).order_by("created_at", "id")
        paid = sum(p.amount for p in payments)
        if amount > paid - sum(p.amount_refunded for p in payments):
            raise NotAllowed(MORE_THAN_PAID)
        captured = [p for p in payments if p.captured_at is not None and p.amount > p.amount_refunded]
        if amount > sum(p.amount - p.amount_refunded for p in captured):
            raise NotAllowed(TOO_MUCH)
        refund = Refund(order_id=order.id, amount=amount, reason=reason, note=note, metadata=metadata,
                        idempotency_key=idempotency_key)
        key = idempotency_key or refund.id
        left = amount
        for payment in captured:
            if not left:
                break
            take = min(left, payment.amount - payment.amount_refunded)
            await _take(payment, take, f"{key}:{payment.id}")
            left -= take
        await refund.save()
        await _move_status(order)
    return refund


async def _take(payment: Payment, amount: int, provider_key: str) -> None:
    """`amount` off one captured payment, at its provider and then in its row, never past what it
    captured (the conditional UPDATE is the last word, whatever was read before)."""
    data = await get_provider(payment.provider_id).refund(dict(payment.data or {}), amount, provider_key)
    taken = await Payment.filter(
        id=payment.id, captured_at__not_isnull=True, canceled_at=None,
        amount_refunded__lte=payment.amount - amount,
    ).update(amount_refunded=F("amount_refunded") + amount, data=data)
    if not taken:
        raise NotAllowed(TOO_MUCH)


async def _move_status(order: Order) -> None:
    rows = await Payment.filter(order_id=order.id, canceled_at=None).values_list("amount", "amount_refunded")
    status = refunded_payment_status(sum(a for a, _ in rows), sum(r for _, r in rows))
    if status and status != order.payment_status:
        await Order.filter(id=order.id).update(**stamped(payment_status=status))

"""Giving money back for an order: a Refund row, the amount taken off the
order's captured payments through their providers, and the payment status moved.

Money changes once: each payment's `amount_refunded` rises by a conditional UPDATE that cannot
pass what the payment captured, inside one transaction that also holds the order's row lock. Two
refunds racing are taken one after the other; the second sees what the first refunded, and the
sum of refunds can never exceed what was captured.

Order of work: everything happens in one transaction. For each payment the conditional UPDATE
comes first (it reserves the amount: the provider is never asked for money the database would
not record), then the provider's refund, then its data. A provider that refuses (a domain error)
and one that fails otherwise (reported as ProviderUnavailable, a 503) both roll everything back:
no Refund row, no amount, no status. The retry finishes the work, and the provider is given the
same key on the retry, so a gateway that did refund before failing to answer refunds once: the
request's Idempotency-Key with the payment's id when there is one; otherwise the payment's id,
the amount it had refunded before and the amount taken, which a committed refund moves on (so
two real refunds never share a key) and a rolled-back one leaves as it was.

Unlike Medusa v1: the reason must be one of Medusa's five (Medusa writes the refund at the
gateway and then fails on the database enum with a 500), the amount must be positive, money is
only taken from captured payments, and a refund made by a return moves the payment status too.
"""

from __future__ import annotations

from tortoise.expressions import F

from models import Order, Payment, Refund
from models.returns import REFUND_REASONS
from services.core.db import atomic
from services.core.errors import DomainError, InvalidData, NotAllowed, NotFound
from services.orders.keyed import ProviderUnavailable
from services.orders.locks import lock_order, stamped
from services.orders.statuses import plan, refunded_payment_status
from services.orders.view import ADMIN_NOT_FOUND
from services.payments import get_provider
from services.events import names as ev
from services.events.bus import emit

__all__ = ["refund_order", "check_refund", "record_gateway_refund"]

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
        order = await _lock(order_id)
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
        left = amount
        for payment in captured:
            if not left:
                break
            take = min(left, payment.amount - payment.amount_refunded)
            await _take(payment, take, idempotency_key)
            left -= take
        await refund.save()
        await _move_status(order)
        await emit(ev.ORDER_REFUND_CREATED, id=order.id, refund_id=refund.id,
                   no_notification=order.no_notification if no_notification is None else no_notification)
    return refund


async def record_gateway_refund(payment_id: str, refunded_at_gateway: int, note: str) -> Refund | None:
    """A refund made at the gateway itself (Stripe's dashboard): what the gateway says it refunded
    of the payment (minor units, in all) beyond what the payment records becomes one Refund
    (reason `other`). Under the order's row lock, so a refund of ours still in its transaction is
    counted before the difference is taken; a repeat finds no difference and records nothing."""
    order_id = (await Payment.filter(id=payment_id).values_list("order_id", flat=True) or [None])[0]
    if order_id is None:
        return None
    async with atomic():
        order = await _lock(order_id)
        payment = await Payment.get(id=payment_id)
        extra = min(refunded_at_gateway, payment.amount) - payment.amount_refunded
        if extra <= 0:
            return None
        await Payment.filter(id=payment.id, amount_refunded=payment.amount_refunded).update(
            amount_refunded=F("amount_refunded") + extra)
        refund = await Refund.create(order_id=order.id, payment_id=payment.id, amount=extra, reason="other", note=note)
        await _move_status(order)
        await emit(ev.ORDER_REFUND_CREATED, id=order.id, refund_id=refund.id, no_notification=order.no_notification)
    return refund


async def _lock(order_id: str) -> Order:
    try:
        return await lock_order(order_id)
    except NotFound:
        raise NotFound(ADMIN_NOT_FOUND.format(id=order_id)) from None  # the refund's wording


async def _take(payment: Payment, amount: int, idempotency_key: str | None) -> None:
    """`amount` off one captured payment: in its row, never past what it captured (the
    conditional UPDATE is the last word, whatever was read before), then at its provider."""
    taken = await Payment.filter(
        id=payment.id, captured_at__not_isnull=True, canceled_at=None,
        amount_refunded__lte=payment.amount - amount,
    ).update(amount_refunded=F("amount_refunded") + amount)
    if not taken:
        raise NotAllowed(TOO_MUCH)
    key = f"{idempotency_key}:{payment.id}" if idempotency_key else f"{payment.id}:{payment.amount_refunded}+{amount}"
    try:
        data = await get_provider(payment.provider_id).refund(dict(payment.data or {}), amount, key)
    except DomainError:
        raise
    except Exception as e:
        raise ProviderUnavailable() from e
    await Payment.filter(id=payment.id).update(data=data)


async def _move_status(order: Order) -> None:
    rows = await Payment.filter(order_id=order.id, canceled_at=None).values_list("amount", "amount_refunded")
    status = refunded_payment_status(sum(a for a, _ in rows), sum(r for _, r in rows))
    if status and status != order.payment_status:
        await Order.filter(id=order.id).update(**stamped(payment_status=status))

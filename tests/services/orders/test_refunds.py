"""refund_order as other services call it (a return received with a refund does): which payments
give the money, the caller's transaction, and the key a gateway sees on a retry."""

from __future__ import annotations

from datetime import timedelta

import pytest

from models import Order, Payment, Refund
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed
from services.orders.capture import capture_order
from services.orders.keyed import ProviderUnavailable
from services.orders.refunds import refund_order
from services.orders.view import load_order_view
from tests.app.admin.test_order_operations import placed
from tests.app.admin.test_order_refunds import RefundingProvider, registered


@pytest.fixture
def gateway():
    yield from registered(RefundingProvider())


async def two_payments(client, gateway=None, first: int = 300, second: int = 700) -> tuple[Order, Payment, Payment]:
    """A captured order paid by two payments, `first` a day older than `second`."""
    order = await placed(client, gateway)
    await capture_order(order.id)
    older = await Payment.get(order_id=order.id)
    older.amount, older.created_at = first, clock.now() - timedelta(days=1)
    await older.save()
    newer = await Payment.create(order_id=order.id, amount=second, currency_code=older.currency_code,
                                 provider_id=older.provider_id, data={}, captured_at=clock.now())
    return order, older, newer


async def refunded(*payments: Payment) -> list[int]:
    return [(await Payment.get(id=p.id)).amount_refunded for p in payments]


async def test_the_oldest_payment_gives_first_and_the_last_unit_makes_the_order_refunded(client, seeded):
    order, older, newer = await two_payments(client)
    refund = await refund_order(order.id, 500, "other", "first half", metadata={"ticket": "T-1"})
    assert await refunded(older, newer) == [300, 200]
    assert (await Order.get(id=order.id)).payment_status == "partially_refunded"
    row = await Refund.get(id=refund.id)
    assert (row.amount, row.reason, row.note, row.metadata, row.order_id) == (
        500, "other", "first half", {"ticket": "T-1"}, order.id)
    await refund_order(order.id, 500, "discount")
    assert await refunded(older, newer) == [300, 700]
    totals = (await load_order_view(order.id)).totals
    assert (totals.paid_total, totals.refunded_total, totals.refundable_amount) == (1000, 1000, 0)
    assert (await Order.get(id=order.id)).payment_status == "refunded"


async def test_uncaptured_and_canceled_payments_give_nothing(client, seeded):
    order, older, newer = await two_payments(client)
    await Payment.filter(id=newer.id).update(captured_at=None)  # paid (authorized), not captured
    with pytest.raises(NotAllowed, match="Refund amount is greater that the refundable amount"):
        await refund_order(order.id, 301, "other")
    await Payment.filter(id=newer.id).update(canceled_at=clock.now())  # not even paid any more
    with pytest.raises(NotAllowed, match="Cannot refund more than the original order amount"):
        await refund_order(order.id, 301, "other")
    await refund_order(order.id, 300, "other")
    assert await refunded(older, newer) == [300, 0]
    assert (await Order.get(id=order.id)).payment_status == "refunded"


async def test_inside_a_callers_transaction_it_stands_or_falls_with_it(client, seeded):
    order, older, newer = await two_payments(client)
    with pytest.raises(RuntimeError):
        async with atomic():
            await refund_order(order.id, 400, "return")
            raise RuntimeError("the caller's later step failed")
    assert await refunded(older, newer) == [0, 0] and not await Refund.exists()
    assert (await Order.get(id=order.id)).payment_status == "captured"
    async with atomic():
        await refund_order(order.id, 400, "return")
        await refund_order(order.id, 100, "return")  # sees the first one, though not yet committed
    assert await refunded(older, newer) == [300, 200] and await Refund.filter(order_id=order.id).count() == 2


@pytest.mark.parametrize("amount,reason", [(0, "other"), (-1, "other"), (True, "other"), (1.0, "other"),
                                           ("5", "other"), (5, "refund"), (5, None)])
async def test_a_bad_amount_or_reason_is_refused_before_anything(client, seeded, amount, reason):
    order, older, newer = await two_payments(client)
    with pytest.raises(InvalidData):
        await refund_order(order.id, amount, reason)
    assert await refunded(older, newer) == [0, 0] and not await Refund.exists()


async def test_without_a_key_a_retry_shows_the_gateway_the_same_key_and_the_next_refund_another(
    client, seeded, gateway,
):
    order, older, newer = await two_payments(client, gateway, first=1000, second=0)
    gateway.fail.append(ConnectionError("timeout"))
    with pytest.raises(ProviderUnavailable):
        await refund_order(order.id, 100, "other")
    assert await refunded(older) == [0] and not await Refund.exists()
    await refund_order(order.id, 100, "other")  # the retry
    await refund_order(order.id, 100, "other")  # a second refund
    first, retry, second = gateway.keys
    assert first == retry != second
    assert await refunded(older) == [200]

"""The order's status table (services/orders/statuses.py): what each operation may start from,
where it leaves the order, and when a repeat changes nothing."""

from __future__ import annotations

import pytest

from models import Order
from services.core.errors import NotAllowed
from services.orders.statuses import plan


def order(status="pending", payment_status="awaiting", fulfillment_status="not_fulfilled") -> Order:
    return Order(status=status, payment_status=payment_status, fulfillment_status=fulfillment_status)


@pytest.mark.parametrize("given, operation, expected", [
    (order(), "capture", {"payment_status": "captured"}),
    (order(payment_status="requires_action"), "capture", {"payment_status": "captured"}),
    (order(payment_status="partially_refunded"), "capture", None),  # a refund is never undone
    (order(), "capture_refused", {"payment_status": "requires_action"}),
    (order(), "cancel", {"status": "canceled", "payment_status": "canceled", "fulfillment_status": "canceled"}),
    (order("canceled", "awaiting", "canceled"), "cancel", {"payment_status": "canceled"}),  # payments still to cancel
    (order("canceled", "canceled", "canceled"), "cancel", None),
    (order(), "complete", {"status": "completed"}),
    (order("archived"), "complete", {"status": "completed"}),
    (order("completed"), "complete", None),
    (order("completed"), "archive", {"status": "archived"}),
    (order("canceled", "canceled", "canceled"), "archive", {"status": "archived"}),
    (order(), "update", {}),
])
def test_each_operation_moves_the_statuses_the_table_says(given, operation, expected):
    assert plan(given, operation) == expected


@pytest.mark.parametrize("given, operation, message", [
    (order("canceled"), "capture", "A canceled order cannot capture payment"),
    (order("canceled"), "complete", "A canceled order cannot be completed"),
    (order("canceled"), "update", "A canceled order cannot be updated"),
    (order(), "archive", "Can't archive an unprocessed order"),
    (order(fulfillment_status="partially_fulfilled"), "cancel",
     "All fulfillments must be canceled before canceling an order"),
    (order(payment_status="refunded"), "cancel", "Order with refund(s) cannot be canceled"),
    (order(payment_status="captured"), "cancel",
     "An order with captured payment cannot be canceled: refund the payment first"),
])
def test_other_starting_points_are_refused_with_medusas_text(given, operation, message):
    with pytest.raises(NotAllowed) as refused:
        plan(given, operation)
    assert refused.value.message == message

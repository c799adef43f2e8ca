"""The order's three statuses as tables: for each operation, which
`status`, `payment_status` and `fulfillment_status` it may start from, where it leaves each,
and the refusal (Medusa v1's 400 not_allowed text) from any other value.

Where Medusa v1 lets an operation run from a state it should not (capture after a refund,
cancel of a canceled order or of captured money, archive of a pending order), the table says
what happens here instead; `done` names the values where the operation already happened, so a
repeat changes nothing and calls no provider.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from models import Order
from services.core.errors import NotAllowed

__all__ = [
    "Move", "MOVES", "plan", "STATUS", "PAYMENT", "FULFILLMENT", "refunded_payment_status", "LineCounts",
    "fulfillment_status_of", "LIVE_RETURN",
]

STATUS, PAYMENT, FULFILLMENT = "status", "payment_status", "fulfillment_status"
_LIVE = ("pending", "completed", "archived", "requires_action")  # every order status but canceled
_UNPAID = ("not_paid", "awaiting", "requires_action")
_PAID = ("captured", "partially_refunded", "refunded")
# A return in these statuses is still open (it can be received or canceled): it holds the units it
# asks for, so they cannot be asked for again, and the order cannot be canceled while it is open.
LIVE_RETURN = ("requested", "requires_action")
_FULFILLED = (
    "partially_fulfilled", "fulfilled", "partially_shipped", "shipped", "partially_returned", "returned",
    "requires_action",
)


@dataclass(frozen=True)
class Move:
    """One status column's part in one operation."""

    allowed: tuple[str, ...]  # values it may start from
    to: str | None = None  # the value it leaves (None: unchanged)
    refusal: str = ""  # the message from any value neither allowed nor done
    done: tuple[str, ...] = ()  # values where it already happened: a repeat changes nothing
    refusals: dict[str, str] = field(default_factory=dict)  # a message of its own for some values


_CANCELED_ORDER = "A canceled order cannot {}"

MOVES: dict[str, dict[str, Move]] = {
    "update": {STATUS: Move(_LIVE, refusal=_CANCELED_ORDER.format("be updated"))},
    "complete": {
        # Medusa completes from archived too (back to completed) and whatever was paid or shipped.
        STATUS: Move(("pending", "archived", "requires_action"), "completed",
                     _CANCELED_ORDER.format("be completed"), done=("completed",)),
    },
    "archive": {
        # Medusa archives completed orders only; a canceled one may be filed away too.
        STATUS: Move(("completed", "canceled"), "archived", "Can't archive an unprocessed order", done=("archived",)),
    },
    "capture": {
        STATUS: Move(_LIVE, refusal=_CANCELED_ORDER.format("capture payment")),
        # Captured money stays captured: a repeat neither calls the provider nor undoes a refund.
        PAYMENT: Move(_UNPAID, "captured", _CANCELED_ORDER.format("capture payment"), done=_PAID),
    },
    # The lines' counters decide the fulfillment status these leave (fulfillment_status_of).
    "fulfil": {STATUS: Move(_LIVE, refusal=_CANCELED_ORDER.format("be fulfilled"))},
    "cancel_fulfillment": {STATUS: Move(_LIVE, refusal=_CANCELED_ORDER.format("cancel a fulfillment"))},
    "ship": {STATUS: Move(_LIVE, refusal=_CANCELED_ORDER.format("be fulfilled as shipped"))},
    "add_shipping_method": {STATUS: Move(_LIVE, refusal="A shipping method cannot be added to a canceled order")},
    # An exchange takes items that were paid for and sent; unlike Medusa v1,
    # an order with a partial refund (one item returned, say) may still exchange another.
    "swap": {
        STATUS: Move(_LIVE, refusal="Cannot create a swap on a canceled item."),
        PAYMENT: Move(("captured", "partially_refunded"), refusal="Cannot swap an order that has not been captured"),
        FULFILLMENT: Move(_FULFILLED, refusal="Cannot swap an order that has not been fulfilled"),
    },
    "request_return": {STATUS: Move(_LIVE, refusal="Cannot create a return for a canceled item.")},
    "receive_return": {STATUS: Move(_LIVE, refusal=_CANCELED_ORDER.format("be registered as received"))},
    # The amounts decide the payment status a refund leaves (refunded_payment_status).
    "refund": {STATUS: Move(_LIVE, refusal=_CANCELED_ORDER.format("be refunded"))},
    # A payment the provider refused to capture: the merchant must look at it.
    "capture_refused": {PAYMENT: Move(_UNPAID, "requires_action")},
    "cancel": {
        STATUS: Move(_LIVE, "canceled", done=("canceled",)),
        FULFILLMENT: Move(
            ("not_fulfilled", "canceled"), "canceled", "All fulfillments must be canceled before canceling an order",
            done=("canceled",),
        ),
        # Medusa "cancels" captured money without giving it back; here it must be refunded first.
        PAYMENT: Move(
            _UNPAID, "canceled", done=("canceled",), refusals={
                "captured": "An order with captured payment cannot be canceled: refund the payment first",
                "partially_refunded": "Order with refund(s) cannot be canceled",
                "refunded": "Order with refund(s) cannot be canceled",
            },
        ),
    },
}


def plan(order: Order, operation: str, columns: tuple[str, ...] | None = None) -> dict[str, str] | None:
    """The status changes `operation` makes to `order` ({} when none), None when it already
    happened on every column it moves; NotAllowed with Medusa's text otherwise. `columns` limits
    the check to some of the operation's columns (in the table's order)."""
    changes: dict[str, str] = {}
    done = True
    for column, move in MOVES[operation].items():
        if columns is not None and column not in columns:
            continue
        value = getattr(order, column)
        if value in move.done:
            continue
        if value not in move.allowed:
            raise NotAllowed(move.refusals.get(value) or move.refusal)
        if move.to is not None:  # a move without `to` only guards
            done = False
            if move.to != value:
                changes[column] = move.to
    moving = [m for c, m in MOVES[operation].items() if m.to is not None and (columns is None or c in columns)]
    return None if done and moving else changes


def refunded_payment_status(paid: int, refunded: int) -> str | None:
    """The payment status once `refunded` of the `paid` money went back: refunded when
    all of it did, partially_refunded when some did; None when nothing was refunded."""
    if paid > 0 and refunded >= paid:
        return "refunded"
    return "partially_refunded" if refunded > 0 else None


class LineCounts(NamedTuple):
    quantity: int
    fulfilled: int | None
    shipped: int | None
    returned: int | None


# From the furthest stage back: (the counter, the status when every line reached its quantity,
# the status when only some did). The first stage any line reached names the status.
_STAGES = (
    ("returned", "returned", "partially_returned"),
    ("shipped", "shipped", "partially_shipped"),
    ("fulfilled", "fulfilled", "partially_fulfilled"),
)


def fulfillment_status_of(lines: list[LineCounts]) -> str:
    """The order's fulfillment status from its lines' counters: the furthest stage any unit
    reached, whole when every line reached it. Unlike Medusa v1, which writes the status of the
    last operation (fulfilling the rest of a partly shipped order says "fulfilled", canceling one
    of two fulfillments says "canceled"), it always describes the lines as they are."""
    for counter, whole, partial in _STAGES:
        if any(getattr(line, counter) for line in lines):
            return whole if all((getattr(line, counter) or 0) >= line.quantity for line in lines) else partial
    return "not_fulfilled"

"""A swap's states as tables: what each operation refuses, and where
its payment status goes. Its fulfillment status is derived from its new lines' counters, as the
order's is (services/orders/statuses.py)."""

from __future__ import annotations

from models import Swap
from services.core.errors import NotAllowed, NotFound
from services.core.ids import fits
from services.orders.line_counts import settle_fulfillment_status

__all__ = [
    "SWAP_REFUSALS", "REFUNDED", "check_swap", "order_swap", "find_swap", "settle_swap_status", "confirmed_status",
    "PROCESSED",
]

# Per operation, the refusal of a canceled swap and of one the shopper has not confirmed yet
# (None: allowed). Medusa v1's texts.
SWAP_REFUSALS: dict[str, tuple[str, str | None]] = {
    "fulfil": ("Canceled swap cannot be fulfilled", None),
    "ship": ("Canceled swap cannot be fulfilled as shipped", None),
    "process_payment": (
        "Canceled swap cannot be processed", "Cannot process a swap that hasn't been confirmed by the customer",
    ),
    "complete_cart": ("Cart related to canceled swap cannot be completed", None),
    "cancel_fulfillment": ("Canceled swap cannot be fulfilled", None),
}
# Payment statuses after which money went back: such a swap cannot be canceled.
REFUNDED = ("difference_refunded", "partially_refunded", "refunded")

# Processing the difference: the status it leaves, by the sign of the difference.
PROCESSED = {"negative": "difference_refunded", "zero": "difference_refunded", "positive": "captured"}


def confirmed_status(difference: int) -> str:
    """The payment status once the shopper completed the swap cart: nothing to settle
    when the difference is zero, else the merchant's capture or refund awaits."""
    return "confirmed" if difference == 0 else "awaiting"


def check_swap(swap: Swap, operation: str) -> None:
    canceled, unconfirmed = SWAP_REFUSALS[operation]
    if swap.canceled_at is not None:
        raise NotAllowed(canceled)
    if unconfirmed is not None and swap.confirmed_at is None:
        raise NotAllowed(unconfirmed)


async def find_swap(swap_id: str) -> Swap:
    swap = await Swap.get_or_none(id=swap_id, deleted_at=None) if fits(Swap, swap_id) else None
    if swap is None:
        raise NotFound("Swap was not found")
    return swap


async def order_swap(order_id: str, swap_id: str) -> Swap:
    """The order's live swap with that id: Medusa's 404s for an unknown one and another's."""
    swap = await find_swap(swap_id)
    if swap.order_id != order_id:
        raise NotFound(f"no swap was found with the id: {swap_id} related to order: {order_id}")
    return swap


async def settle_swap_status(swap: Swap) -> str:
    return await settle_fulfillment_status(swap, "swap_id")

"""Registering the payment of a draft order: the shop has been paid
outside the system (by phone, bank transfer, at the counter), so the `system` provider
authorizes and captures the draft's total at once, and the order is placed, paid.

All of it happens in one transaction on the draft's locked cart, after the draft is read again
under that lock: of any number of concurrent calls one places the order and the others find
the draft completed and are refused with a 400 (Medusa v1 answers a second call with a 422 from
the unique order-per-cart constraint, or a 500). The unique `cart_id` of orders backs this up.
"""

from __future__ import annotations

from datetime import datetime, timezone

from models import Cart, DraftOrder, Payment, PaymentSession
from services.carts.view import load_cart_view
from services.core.db import atomic
from services.orders.display_ids import next_display_id
from services.draft_orders.drafts import find_draft, lock_draft
from services.core.errors import NotAllowed, PaymentError
from services.orders.placement import place_order, store_tax_lines
from services.orders.view import OrderView, load_order_view
from services.payments import get_provider

__all__ = ["pay_draft_order", "PROVIDER_ID"]

PROVIDER_ID = "system"


async def pay_draft_order(draft_id: str) -> OrderView:
    """Place the order of an open draft with its whole total captured. The order has
    `draft_order_id`, `payment_status: captured` and the draft's `no_notification_order`; the
    draft becomes `completed`. A draft with nothing to pay is placed without a payment."""
    _check_payable(await find_draft(draft_id))  # before a number is spent on a draft already paid
    display_id = await next_display_id()  # outside the transaction: see services/orders/display_ids.py
    async with atomic():
        draft, cart = await lock_draft(draft_id)
        _check_payable(draft)
        if cart is None or cart.completed_at is not None:
            raise NotAllowed(f"Draft order {draft_id} has no open cart to place an order from")
        view = await load_cart_view(cart.id, force_taxes=True)
        await store_tax_lines(view)
        total = view.totals.total
        payment = await _capture(cart, total) if total > 0 else None
        order = await place_order(view, display_id, payment=payment, payment_status="captured", draft_order=draft)
    return await load_order_view(order.id)


def _check_payable(draft: DraftOrder) -> None:
    if draft.status != "open":
        raise NotAllowed(f"Draft order {draft.id} is already paid: it became order {draft.order_id}")


async def _capture(cart: Cart, total: int) -> Payment:
    """The system provider's payment of `total` (minor units), authorized and captured now."""
    provider = get_provider(PROVIDER_ID)
    status, data = await provider.authorize(PaymentSession(cart_id=cart.id, provider_id=PROVIDER_ID, amount=total))
    if status != "authorized":
        raise PaymentError("The payment could not be registered")
    data = await provider.capture(data)
    now = datetime.now(timezone.utc)
    payment = await Payment.create(
        cart_id=cart.id, amount=total, currency_code=cart.region.currency_code, provider_id=PROVIDER_ID,
        data=data, captured_at=now,
    )
    await Cart.filter(id=cart.id).update(payment_id=payment.id, payment_authorized_at=now)
    return payment

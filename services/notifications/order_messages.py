"""The messages a shopper gets about their order: placed, shipped, refunded, return received,
exchange and claim made, gift card
bought. Each is written from a snapshot taken when the event is handled (what was ordered, the
amounts, the tracking numbers), so a later change to the order does not change a message already
asked for; the subject and the plain text and HTML bodies are rendered from templates
(services/notifications/rendering.py) with the shop's name and links from STOREFRONT_URL."""

from __future__ import annotations

from types import SimpleNamespace

from models import ClaimOrder, Fulfillment, GiftCard, Order, Refund, Swap
from services.core.errors import NotFound
from services.core.ids import fits
from services.orders.order_reads import read_orders
from services.orders.view import load_views
from services.notifications.rendering import context, money, render

__all__ = ["ORDER_KINDS", "snapshot", "compose_order", "with_secrets"]

ORDER_PLACED = "order.placed"
SHIPMENT_CREATED = "order.shipment_created"
REFUND_CREATED = "order.refund_created"
ITEMS_RETURNED = "order.items_returned"
SWAP_CREATED = "swap.created"
CLAIM_CREATED = "claim.created"
GIFT_CARD_CREATED = "gift_card.created"
ORDER_KINDS = frozenset({ORDER_PLACED, SHIPMENT_CREATED, REFUND_CREATED, ITEMS_RETURNED, SWAP_CREATED, CLAIM_CREATED,
                         GIFT_CARD_CREATED})


async def _order_part(order_id: str) -> dict:
    # The lines' titles and the totals, nothing more: no variant, product or after-sale rows
    # (the totals need none of them), which the worker used to read for every message.
    orders = await read_orders([order_id]) if fits(Order, order_id) else []
    if not orders:
        raise NotFound(f"Order with id {order_id} was not found")
    view = (await load_views(orders, line_detail=False, after_sale=False))[0]
    order = view.order
    currency = order.currency_code
    return {
        "order_id": order.id, "display_id": order.display_id, "email": order.email, "currency_code": currency,
        "customer_id": order.customer_id,
        "items": [{"title": i.title, "variant": i.description, "quantity": i.quantity,
                   "total": money(view.totals.items[i.id].total, currency)} for i in view.items],
        "total": money(view.totals.total, currency), "shipping_total": money(view.totals.shipping_total, currency),
        "tax_total": money(view.totals.tax_total or 0, currency),
    }


async def snapshot(name: str, data: dict) -> dict | None:
    """What the message says, read now; None when there is nobody to write to."""
    if name == GIFT_CARD_CREATED:
        card = await GiftCard.get_or_none(id=data.get("id"))
        if card is None or not card.order_id:
            return None  # made in the back office: it has no recipient of its own
        part = await _order_part(card.order_id)
        # Not the code: it spends the card, so the row keeps none (the sending worker reads it).
        return {**part, "gift_card_id": card.id, "value": money(card.value, part["currency_code"])}
    if name in (SWAP_CREATED, CLAIM_CREATED):
        owner = await (Swap if name == SWAP_CREATED else ClaimOrder).get_or_none(id=data.get("id"))
        if owner is None:
            return None
        part = await _order_part(owner.order_id)
        extra = {"swap_id": owner.id, "cart_id": getattr(owner, "cart_id", None)} if name == SWAP_CREATED else {
            "claim_id": owner.id, "claim_type": owner.type}
        return {**part, **extra}
    part = await _order_part(data["id"])
    if name == SHIPMENT_CREATED:
        fulfillment = await Fulfillment.get_or_none(id=data.get("fulfillment_id"))
        part["tracking_numbers"] = list(fulfillment.tracking_numbers or []) if fulfillment else []
    elif name == REFUND_CREATED:
        refund = await Refund.get_or_none(id=data.get("refund_id"))
        part["refund"] = money(refund.amount, part["currency_code"]) if refund else None
    return part


# The snapshot's keys that are the order's (the templates' `order`); the rest is the event's own.
_ORDER_KEYS = ("order_id", "display_id", "email", "currency_code", "customer_id", "items", "total", "shipping_total",
               "tax_total")


def _link(name: str, data: dict, storefront: str, swap_link: str | None) -> str | None:
    if name == ORDER_PLACED:
        return f"{storefront.rstrip('/')}/account/orders"
    if name == SWAP_CREATED and swap_link and data.get("cart_id"):
        return swap_link.replace("{cart_id}", data["cart_id"])
    return None


def compose_order(
    name: str, data: dict, storefront: str, shop: str, swap_link: str | None = None, *, admin_url: str = "",
    customer: dict | None = None,
) -> tuple[str, str, str]:
    """The subject, the plain text and the HTML of the message, from its templates
    (services/notifications/rendering.py); `shop`: the store's name."""
    if name not in ORDER_KINDS:
        raise KeyError(f"no message of kind {name}")
    # Attributes, not a dict's keys: `order.items` is the lines, not dict.items.
    order = SimpleNamespace(**{("id" if k == "order_id" else k): data.get(k) for k in _ORDER_KEYS})
    values = context(data, store_name=shop, storefront_url=storefront, admin_url=admin_url,
                     link=_link(name, data, storefront, swap_link), customer=customer, order=order)
    rendered = render(name, values)
    return rendered.subject, rendered.text, rendered.html


async def with_secrets(name: str, data: dict) -> tuple[dict, tuple[str, ...]]:
    """The snapshot with what it leaves out (a gift card's code), read when the message leaves,
    and those values, to be masked wherever the message is kept."""
    if name != GIFT_CARD_CREATED:
        return data, ()
    card = await GiftCard.get(id=data["gift_card_id"])
    return {**data, "code": card.code}, (card.code,)


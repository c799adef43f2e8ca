"""The messages a shopper gets about their order: placed, shipped, refunded, return received,
exchange and claim made, gift card
bought. Each is written from a snapshot taken when the event is handled (what was ordered, the
amounts, the tracking numbers), so a later change to the order does not change a message already
asked for; the subject and the plain text and HTML bodies carry the shop's name and links from
STOREFRONT_URL."""

from __future__ import annotations

from html import escape

from models import ClaimOrder, Fulfillment, GiftCard, Order, Refund, Swap
from services.core.errors import NotFound
from services.core.ids import fits
from services.orders.order_reads import read_orders
from services.orders.view import load_views

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


def _money(amount: int, currency: str) -> str:
    return f"{amount / 100:.2f} {currency.upper()}"


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
                   "total": _money(view.totals.items[i.id].total, currency)} for i in view.items],
        "total": _money(view.totals.total, currency), "shipping_total": _money(view.totals.shipping_total, currency),
        "tax_total": _money(view.totals.tax_total or 0, currency),
    }


async def snapshot(name: str, data: dict) -> dict | None:
    """What the message says, read now; None when there is nobody to write to."""
    if name == GIFT_CARD_CREATED:
        card = await GiftCard.get_or_none(id=data.get("id"))
        if card is None or not card.order_id:
            return None  # made in the back office: it has no recipient of its own
        part = await _order_part(card.order_id)
        # Not the code: it spends the card, so the row keeps none (the sending worker reads it).
        return {**part, "gift_card_id": card.id, "value": _money(card.value, part["currency_code"])}
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
        part["refund"] = _money(refund.amount, part["currency_code"]) if refund else None
    return part


def _lines(items: list[dict]) -> list[str]:
    return [f"{i['quantity']} × {i['title']}{' (' + i['variant'] + ')' if i.get('variant') else ''}: {i['total']}"
            for i in items]


def _text(name: str, d: dict, storefront: str, swap_link: str | None) -> tuple[str, list[str]]:
    n = d.get("display_id")
    if name == ORDER_PLACED:
        return f"Order #{n} confirmed", [
            f"Thank you for your order #{n}. Here is what you ordered:", "", *_lines(d["items"]), "",
            f"Shipping: {d['shipping_total']}", f"Tax: {d['tax_total']}", f"Total: {d['total']}", "",
            f"Your orders: {storefront}/account/orders",
        ]
    if name == SHIPMENT_CREATED:
        numbers = ", ".join(d.get("tracking_numbers") or []) or "none given"
        return f"Order #{n} is on its way", [f"Items of your order #{n} have shipped.", f"Tracking: {numbers}"]
    if name == REFUND_CREATED:
        return f"A refund for order #{n}", [f"We refunded {d.get('refund')} for your order #{n}."]
    if name == ITEMS_RETURNED:
        return f"We received your return for order #{n}", [f"The items you sent back from order #{n} arrived."]
    if name == SWAP_CREATED:
        lines = [f"We registered an exchange on your order #{n}."]
        if swap_link and d.get("cart_id"):
            lines += ["To confirm it, and pay any difference, open:", swap_link.replace("{cart_id}", d["cart_id"])]
        return f"Your exchange for order #{n}", lines
    if name == CLAIM_CREATED:
        how = "send replacements" if d.get("claim_type") == "replace" else "refund you"
        return f"Your claim on order #{n}", [f"We registered your claim on order #{n} and will {how}."]
    if name == GIFT_CARD_CREATED:
        return "Your gift card", [f"Your gift card of {d['value']} from order #{n} is ready.", f"Code: {d['code']}"]
    raise KeyError(f"no message of kind {name}")


def compose_order(name: str, data: dict, storefront: str, shop: str, swap_link: str | None = None) -> tuple[str, str, str]:
    """The subject, the plain text and the HTML of the message."""
    subject, lines = _text(name, data, storefront.rstrip("/"), swap_link)
    text = "\n".join(["Hello,", "", *lines, "", f"— {shop}", ""])
    html = (f"<html><body><p>Hello,</p>{''.join(f'<p>{escape(line)}</p>' for line in lines if line)}"
            f"<p>— {escape(shop)}</p></body></html>")
    return f"{shop}: {subject}", text, html


async def with_secrets(name: str, data: dict) -> tuple[dict, tuple[str, ...]]:
    """The snapshot with what it leaves out (a gift card's code), read when the message leaves,
    and those values, to be masked wherever the message is kept."""
    if name != GIFT_CARD_CREATED:
        return data, ()
    card = await GiftCard.get(id=data["gift_card_id"])
    return {**data, "code": card.code}, (card.code,)


"""Factories for order tests: an order placed from a real cart made through the API, written the
way completion writes it without going through completion: tax lines
stored, an Order row with the next display id, the cart's lines and methods pointed at it, gift
card transactions, an authorized payment of the cart's total, and the cart completed."""

from __future__ import annotations

from datetime import datetime, timezone

from models import (
    Cart, GiftCard, GiftCardTransaction, LineItem, LineItemTaxLine, Order, Payment, ShippingMethod,
    ShippingMethodTaxLine,
)
from services.carts.view import load_cart_view
from services.orders.display_ids import next_display_id
from services.regions.taxes import TaxLine
from tests.cart_factories import region_id, ship

__all__ = ["place_order", "order_from_cart", "ADDRESS", "STORE_TOTALS", "STORE_RELATIONS"]

ADDRESS = {
    "first_name": "Jane", "last_name": "Doe", "address_1": "1 Main St", "city": "Springfield",
    "country_code": "us", "postal_code": "SW1A 1AA", "phone": "+1 555 0100",
}
STORE_TOTALS = {
    "shipping_total", "discount_total", "tax_total", "refunded_total", "total", "subtotal", "paid_total",
    "refundable_amount", "gift_card_total", "gift_card_tax_total", "item_tax_total", "shipping_tax_total",
}
STORE_RELATIONS = {
    "shipping_address", "fulfillments", "items", "shipping_methods", "discounts", "customer", "payments", "region",
}


async def place_order(
    client, region: str = "NA", items: dict[str, int] | None = None, *, headers: dict | None = None,
    email: str | None = "shopper@example.com", address: dict | None = None, shipping: str | None = "default",
    discount_code: str | None = None, gift_card_codes: tuple[str, ...] = (), **columns,
) -> Order:
    """An order of `{variant_id: quantity}` in a demo region. With `headers` (a shopper's) the
    order is theirs; otherwise a guest's with `email`. `columns` are set on the order."""
    body = {"region_id": await region_id(region),
            "items": [{"variant_id": v, "quantity": q} for v, q in (items or {"variant_t_shirt_s": 1}).items()]}
    r = await client.post("/store/carts", json=body, headers=headers or {})
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    country = "us" if region == "NA" else "de"
    changes: dict = {"shipping_address": address or {**ADDRESS, "country_code": country}}
    if headers is None and email is not None:
        changes["email"] = email
    if discount_code:
        changes["discounts"] = [{"code": discount_code}]
    if gift_card_codes:
        changes["gift_cards"] = [{"code": c} for c in gift_card_codes]
    r = await client.post(f"/store/carts/{cart['id']}", json=changes, headers=headers or {})
    assert r.status_code == 200, r.text
    if shipping:
        await ship(client, cart, f"{region} Flat Rate" if shipping == "default" else shipping)
    return await order_from_cart(cart["id"], **columns)


async def order_from_cart(cart_id: str, **columns) -> Order:
    view = await load_cart_view(cart_id, force_taxes=True)
    cart, totals = view.cart, view.totals
    for item in view.items:
        for line in view.item_tax_lines[item.id]:
            if isinstance(line, TaxLine):
                await LineItemTaxLine.create(item_id=item.id, rate=line.rate, name=line.name, code=line.code)
    for method in view.shipping_methods:
        for line in view.method_tax_lines[method.id]:
            if isinstance(line, TaxLine):
                await ShippingMethodTaxLine.create(
                    shipping_method_id=method.id, rate=line.rate, name=line.name, code=line.code,
                )
    display_id = await next_display_id()  # outside any transaction, as completion does
    order = await Order.create(**{
        "display_id": display_id, "cart_id": cart.id, "customer_id": cart.customer_id, "email": cart.email,
        "billing_address_id": cart.billing_address_id, "shipping_address_id": cart.shipping_address_id,
        "region_id": cart.region_id, "currency_code": cart.region.currency_code,
        "sales_channel_id": cart.sales_channel_id, "payment_status": "awaiting", "metadata": {}, **columns,
    })
    if view.discounts:
        await order.discounts.add(*view.discounts)
    if view.gift_cards:
        await order.gift_cards.add(*view.gift_cards)
    await LineItem.filter(cart_id=cart.id).update(order_id=order.id)
    await ShippingMethod.filter(cart_id=cart.id).update(order_id=order.id)
    remaining = totals.gift_card_total
    for card in view.gift_cards:
        taken = min(card.balance, remaining)
        if taken > 0:
            await GiftCardTransaction.create(
                gift_card_id=card.id, order_id=order.id, amount=taken,
                is_taxable=cart.region.gift_cards_taxable, tax_rate=card.tax_rate,
            )
            await GiftCard.filter(id=card.id).update(balance=card.balance - taken)
            remaining -= taken
    payment = await Payment.create(
        cart_id=cart.id, order_id=order.id, amount=totals.total, currency_code=cart.region.currency_code,
        provider_id="manual", data={"status": "authorized"},
    )
    await Cart.filter(id=cart.id).update(completed_at=datetime.now(timezone.utc), payment_id=payment.id)
    return order

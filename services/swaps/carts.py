"""A swap's cart: what the shopper pays for the exchange. It holds
the new lines at the region's price (with the order's percentage or per-item discount, if any; a
fixed discount over the total was spent on the order), a "Return shipping" line when the items
come back with a paid method, and one negative line per returned line crediting what was paid
for those units (its price, its share of the discount, its taxes). Its total is the difference:
above zero the shopper pays it, below zero it is given back.

Unlike Medusa v1: the new lines do not get the order's fixed total discount again, the cart gets
its own copies of the order's addresses (editing the cart's address never rewrites the order's),
a returned line credits its own share of the line's discount (Medusa credits the whole line's
discount whatever the quantity), and the lines are set by the exchange: the storefront cannot
add, change or drop them, nor change the cart's region, customer, sales channel or discounts
(services/carts/locks.py `check_lines_open`).
"""

from __future__ import annotations

from fractions import Fraction

from models import (
    Address, Cart, CustomShippingOption, LineItem, LineItemAdjustment, LineItemTaxLine, Order, Return, ReturnItem,
    ShippingMethod, ShippingMethodTaxLine, ShippingOption, Swap,
)
from services.carts.discounts import refresh_adjustments
from services.carts.totals import round_half_up
from services.customers.addresses import ADDRESS_FIELDS
from services.core.errors import InvalidData, NotFound
from services.core.ids import fits
from services.orders.view import OrderView

__all__ = ["open_swap_cart"]


async def open_swap_cart(
    view: OrderView, swap: Swap, ret: Return, custom_shipping: list[dict], sales_channel_id: str | None,
) -> Cart:
    order = view.order
    cart = await Cart.create(
        type="swap", email=order.email, region_id=order.region_id, customer_id=order.customer_id,
        billing_address_id=await _copy(order.billing_address_id),
        shipping_address_id=await _copy(order.shipping_address_id),
        sales_channel_id=sales_channel_id or order.sales_channel_id,
        metadata={"swap_id": swap.id, "parent_order_id": order.id},
    )
    await _offer_shipping(cart, order, custom_shipping)
    # A fixed discount over the order's total was spent on the order: the new lines do not get it
    # again (Medusa gives them the whole of it once more: an exchange of the US Poster for a Cap
    # in an order with 500 off takes 500 off the Cap; docs/medusaref.md).
    # The cart holds it all the same, so that its credit lines' shares of it count.
    amount_discounts = [d for d in view.discounts if d.rule.type != "free_shipping" and d.deleted_at is None]
    if amount_discounts:
        await cart.discounts.add(*amount_discounts)
    await LineItem.filter(swap_id=swap.id).update(cart_id=cart.id)
    # the new lines' share; credits keep theirs
    await refresh_adjustments(cart, [d for d in amount_discounts
                                     if d.rule.type != "fixed" or d.rule.allocation == "item"])
    await _return_shipping_line(cart, ret)
    await _credit_lines(cart, view, ret)
    return cart


async def _copy(address_id: str | None) -> str | None:
    if address_id is None:
        return None
    address = await Address.get(id=address_id)
    # Not the customer: a copy of a saved address must not join their address book.
    copy = await Address.create(**{f: getattr(address, f) for f in ADDRESS_FIELDS}, metadata=address.metadata)
    return copy.id


async def _offer_shipping(cart: Cart, order: Order, custom_shipping: list[dict]) -> None:
    """The shipping the merchant offers on this cart at a price of their own: outbound options
    of the order's region."""
    for offer in custom_shipping:
        option_id = offer["option_id"]
        option = await ShippingOption.get_or_none(id=option_id, deleted_at=None) if fits(
            ShippingOption, option_id) else None
        if option is None:
            raise NotFound(f"Shipping Option with {option_id} was not found")
        if option.is_return or option.region_id != order.region_id:
            raise InvalidData("A custom shipping option must be an outbound option of the order's region")
        await CustomShippingOption.create(cart_id=cart.id, shipping_option_id=option.id, price=offer["price"])


async def _return_shipping_line(cart: Cart, ret: Return) -> None:
    """What shipping the items back costs, as a line of the cart (with its tax)."""
    method = await ShippingMethod.get_or_none(return_id=ret.id)
    if method is None or not method.price:
        return
    line = await LineItem.create(
        cart_id=cart.id, title="Return shipping", quantity=1, has_shipping=True, allow_discounts=False,
        unit_price=method.price, includes_tax=method.includes_tax, is_return=True, should_merge=False, metadata={},
    )
    await LineItemTaxLine.bulk_create([
        LineItemTaxLine(item_id=line.id, rate=t.rate, name=t.name, code=t.code)
        for t in await ShippingMethodTaxLine.filter(shipping_method_id=method.id)
    ])


async def _credit_lines(cart: Cart, view: OrderView, ret: Return) -> None:
    lines = {i.id: i for i in view.items}
    for returned in await ReturnItem.filter(return_id=ret.id).order_by("id"):
        line = lines[returned.item_id]
        credit = await LineItem.create(
            cart_id=cart.id, title=line.title, description=line.description, thumbnail=line.thumbnail,
            variant_id=line.variant_id, is_return=True, should_merge=False, allow_discounts=line.allow_discounts,
            has_shipping=True, unit_price=-line.unit_price, includes_tax=line.includes_tax, quantity=returned.quantity,
            metadata=line.metadata or {},
        )
        await LineItemTaxLine.bulk_create([
            LineItemTaxLine(item_id=credit.id, rate=t.rate, name=t.name, code=t.code)
            for t in view.item_tax_lines[line.id]
        ])
        discount = sum(a.amount for a in view.adjustments[line.id]) if line.allow_discounts else 0
        if discount:
            # Its share of the line's discount, as the refund of those units counts it
            # (services/returns/amounts.py); counted whatever discount the cart has.
            share = round_half_up(Fraction(discount, line.quantity)) * returned.quantity
            await LineItemAdjustment.create(item_id=credit.id, description="discount", amount=-share)

"""A cart's shipping: the options a shopper may choose for the cart, and the shipping method the
cart gets from one.

The options themselves, their prices and their rules are the shipping area's
(services/shipping/options.py); what is the cart's is here: its lines against the options'
requirements, the offers the merchant set for it (a swap's), and its methods. Prices are minor
units. A new shipping method re-syncs the cart's payment sessions.
"""

from __future__ import annotations

from models import Cart, CustomShippingOption, LineItem, Region, ShippingMethod, ShippingOption
from services.carts.locks import lock_cart_rows
from services.carts.payment_sessions import resync_view
from services.carts.reads import has_free_shipping, read_cart_lines
from services.carts.totals import ItemInput, item_totals
from services.carts.view import CartView, check_amounts, stored_tax_lines, view_of
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed, NotFound
from services.core.ids import fits
from services.core.sql import db_value, insert, question_marks, write
from services.regions.parts import region_parts
from services.regions.taxes import system_lines
from services.shipping.options import (
    PricedOption, meets_requirements, option_price, price_in_region, price_offers, priceable,
)
from services.shipping.reads import live_option, outbound_options

__all__ = ["cart_shipping_options", "add_shipping_method", "requirement_base"]


async def requirement_base(region: Region, items: list[LineItem]) -> tuple[int, int]:
    """(subtotal, item tax) of the lines (with variant and product) that requirements compare:
    each line's subtotal as services.carts.totals computes it, and its tax at the region's rates
    when the region computes taxes by itself; no statement while the region's parts are remembered."""
    if not region.automatic_taxes:
        return sum(i.unit_price * i.quantity for i in items), 0
    rates, _ = system_lines(region, (await region_parts(region)).overrides, items, [])
    totals = [item_totals(ItemInput(i.id, i.unit_price, i.quantity, tuple(t.rate for t in rates[i.id]),
                                    includes_tax=i.includes_tax)) for i in items]
    return sum(t.subtotal for t in totals), sum(t.tax_total for t in totals)


async def cart_shipping_options(cart_id: str) -> list[PricedOption]:
    """The options a cart can be shipped with: outbound, in its region, for the shipping profile
    of one of its products, whose requirements its subtotal meets and whose price is known. The
    cart and its lines are one statement, the region's tax rates come from its remembered parts."""
    found = await read_cart_lines(cart_id) if fits(Cart, cart_id) else None
    if found is None:
        raise NotFound(f"Cart with {cart_id} was not found")
    cart, items, has_custom = found
    custom = await _custom_options(cart.id) if has_custom else []
    if custom:
        return await price_offers(custom)
    profiles = {i.variant.product.profile_id for i in items if i.variant is not None and i.variant.product.profile_id}
    if not profiles:
        return []
    base = await requirement_base(cart.region, items)
    options = await outbound_options(cart.region_id, sorted(profiles))
    fitting = [o for o in options if priceable(o) and meets_requirements(o, *base)]
    return await price_in_region(fitting, cart.region)


async def add_shipping_method(cart_id: str, option_id: str, data: dict) -> CartView:
    """Ship the cart with this option: at most one method per shipping profile, so a method of
    the same profile is replaced. Free shipping on the cart stores a price of 0.

    The option is read before the cart is locked (it is not the cart's to change); under the
    lock the cart is read once (its own offers too, only when it has some: a swap's), and the
    answer is built from that read and what was written: a constant number of statements
    whatever the number of lines."""
    option = await live_option(option_id) if fits(ShippingOption, option_id) else None
    async with atomic():
        rows = await lock_cart_rows(cart_id, stored_tax_lines=stored_tax_lines())
        if option is None:  # refused after the cart's own refusals (none, completed), as before
            raise NotFound(f"Shipping Option with {option_id} was not found")
        cart, items = rows.cart, rows.items
        custom = await _custom_options(cart.id) if rows.has_custom_options else []
        if custom:
            # The merchant set this cart's shipping and its prices (a swap's): only those.
            offered = next((c for c in custom if c.shipping_option_id == option.id), None)
            if offered is None:
                raise InvalidData("Wrong shipping option")
            price = offered.price
        else:
            _check_available(option, cart.region_id)
            if not meets_requirements(option, *await requirement_base(cart.region, items)):
                raise NotAllowed("The Cart does not satisfy the shipping option's requirements")
            price = option_price(option)
        if has_free_shipping(rows.discounts):
            price = 0
        same_profile = [m.id for m in rows.shipping_methods if m.shipping_option.profile_id == option.profile_id]
        if same_profile:
            await ShippingMethod.filter(id__in=same_profile).delete()
        method = ShippingMethod(
            cart_id=cart.id, shipping_option_id=option.id, price=price, data=data or {},
            includes_tax=option.includes_tax)
        await insert(method, at_end=True)  # with the lines' marks, at the unit's end (services/core/db.py)
        object.__setattr__(method, "_shipping_option", option)
        rows.shipping_methods = [m for m in rows.shipping_methods if m.id not in same_profile] + [method]
        rows.method_tax_lines = {m.id: rows.method_tax_lines.get(m.id, []) for m in rows.shipping_methods}
        shipped = {m.shipping_option.profile_id for m in rows.shipping_methods}
        await _mark_shipping(items, shipped)
        return check_amounts(await resync_view(await view_of(rows)))


async def _mark_shipping(items: list[LineItem], shipped: set[str]) -> None:
    """Each line's `has_shipping`: whether a method ships its product's profile; at most one
    UPDATE for each value that changes, whatever the number of lines."""
    flips: dict[bool, list[LineItem]] = {True: [], False: []}
    for item in items:
        has_shipping = item.variant is not None and item.variant.product.profile_id in shipped
        if item.has_shipping != has_shipping:
            flips[has_shipping].append(item)
    now = clock.now()
    for value, changed in flips.items():
        if changed:
            await write(LineItem, 'UPDATE "line_item" SET "has_shipping" = ?, "updated_at" = ? '
                        f'WHERE "id" IN ({question_marks(len(changed))})',
                        [db_value(LineItem, "has_shipping", value), db_value(LineItem, "updated_at", now),
                         *(i.id for i in changed)], at_end=True)
            for item in changed:
                item.has_shipping, item.updated_at = value, now


async def _custom_options(cart_id: str) -> list[CustomShippingOption]:
    return list(await CustomShippingOption.filter(cart_id=cart_id, deleted_at=None).order_by("created_at", "id"))


def _check_available(option: ShippingOption, region_id: str) -> None:
    if option.region_id != region_id:
        raise InvalidData("The shipping option is not available in the cart's region")
    # Medusa v1 lets a storefront pick these; they are the back office's and the returns'.
    if option.admin_only or option.is_return:
        raise NotAllowed("The shipping option is not available for this cart")

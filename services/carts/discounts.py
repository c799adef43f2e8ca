"""Discounts on a cart: applying codes, removing one, and the line-item
adjustments that hold each line's share of the amount discount.

The amounts come from services.discounts.engine (`allocate`: whole units, largest remainder) and
are stored as adjustment rows (description "discount"), rewritten whenever the lines or the
discounts change. Stored rather than computed on every read: a cart read then needs neither the
discount's conditions nor the products' tags, and an order placed from the cart keeps exactly
the amounts the shopper was shown. Invariant: adjustment rows exist only for the cart's amount
discount, so a cart without one has none (services/carts/view.py relies on it).
"""

from __future__ import annotations

from dataclasses import replace

from models import Cart, CustomerGroup, Discount, LineItem, LineItemAdjustment, Product, Region, ShippingMethod
from services.carts.payment_sessions import resync_payment_sessions
from services.carts.totals import ItemInput, item_totals
from services.carts.locks import check_lines_open, lock_cart
from services.carts.view import CartView, amount_discount, has_free_shipping, load_checked_view
from services.core.db import atomic
from services.discounts.engine import Line, Offer, Shopper, allocate, check_offer, load_offers
from services.regions.parts import region_parts
from services.regions.taxes import system_lines
from services.shipping.options import option_price

__all__ = [
    "apply_discounts", "remove_discount_code", "keep_discounts_of_region", "refresh_adjustments", "cart_discounts",
    "engine_lines", "spread_discount",
]


async def cart_discounts(cart: Cart) -> list[Discount]:
    return list(await cart.discounts.filter(deleted_at=None).select_related("rule").order_by("created_at", "id"))


async def apply_discounts(cart: Cart, codes: list[str]) -> None:
    """Replace the cart's discounts by these codes (any case). Every code must exist and be valid
    for this shopper (the first refusal wins, in the order given). All free-shipping codes are
    kept but only one amount discount: the first one given (Medusa keeps the first in database
    order, which a client cannot predict)."""
    before = await cart_discounts(cart)
    chosen: list[str] = []
    if codes:
        offers = await load_offers(codes)
        shopper = await _shopper(cart)
        for offer in offers:
            check_offer(offer, shopper)
        amount = next((o for o in offers if o.type != "free_shipping"), None)
        chosen = [o.id for o in offers if o.type == "free_shipping" or o is amount]
    await _replace(cart, chosen)
    after = await cart_discounts(cart)
    await _reprice_shipping(cart, has_free_shipping(before), has_free_shipping(after))
    await refresh_adjustments(cart, after)


async def remove_discount_code(cart_id: str, code: str) -> CartView:
    """Take one code off the cart (trimmed, any case; Medusa compares it exactly). An unknown code
    changes nothing."""
    async with atomic():
        cart = await lock_cart(cart_id)
        check_lines_open(cart)
        before = await cart_discounts(cart)
        wanted = code.strip().upper()
        after = [d for d in before if d.code != wanted]
        if len(after) != len(before):
            await _replace(cart, [d.id for d in after])
            await _reprice_shipping(cart, has_free_shipping(before), has_free_shipping(after))
            await refresh_adjustments(cart, after)
            await resync_payment_sessions(cart)
        return await load_checked_view(cart_id)


async def keep_discounts_of_region(cart: Cart) -> None:
    """After a region change: drop the discounts not available in the new region (a dynamic code
    is available where its parent is). The caller rewrites the adjustments once it is done."""
    before = await cart_discounts(cart)
    if not before:
        return
    sources = [d.parent_discount_id or d.id for d in before]
    available = set(await Discount.filter(id__in=sources, regions__id=cart.region_id).values_list("id", flat=True))
    if len(available) < len(set(sources)):
        await _replace(cart, [d.id for d, source in zip(before, sources) if source in available])


async def _replace(cart: Cart, discount_ids: list[str]) -> None:
    await cart.discounts.clear()
    if discount_ids:
        await cart.discounts.add(*await Discount.filter(id__in=discount_ids))


async def _shopper(cart: Cart) -> Shopper:
    groups: frozenset[str] = frozenset()
    if cart.customer_id:
        groups = frozenset(
            await CustomerGroup.filter(customers__id=cart.customer_id, deleted_at=None).values_list("id", flat=True)
        )
    return Shopper(region_id=cart.region_id, customer_id=cart.customer_id, group_ids=groups)


async def _reprice_shipping(cart: Cart, had_free_shipping: bool, has_free: bool) -> None:
    """Free shipping is stored as a price of 0 on the cart's methods; without it again, each method
    goes back to its option's price."""
    if has_free and not had_free_shipping:
        await ShippingMethod.filter(cart_id=cart.id).update(price=0)
    elif had_free_shipping and not has_free:
        for method in await ShippingMethod.filter(cart_id=cart.id).select_related("shipping_option"):
            method.price = option_price(method.shipping_option)
            await method.save(update_fields=["price", "updated_at"])


async def refresh_adjustments(cart: Cart, discounts: list[Discount] | None = None) -> None:
    """Rewrite every line's adjustment for the cart's amount discount (none without one). A swap
    cart's credit lines (`is_return`) keep theirs: what the shopper was given off on the order."""
    discounts = await cart_discounts(cart) if discounts is None else discounts
    items = await LineItem.filter(cart_id=cart.id, is_return=False).select_related("variant__product").order_by(
        "created_at", "id")
    if not items:
        return
    await LineItemAdjustment.filter(item_id__in=[i.id for i in items]).delete()
    discount = amount_discount(discounts)
    if discount is None:
        return
    await spread_discount(discount, (await load_offers([discount.code]))[0], items, cart.region_id)


async def spread_discount(discount: Discount, offer: Offer, items: list[LineItem], region_id: str) -> None:
    """Write each line's share of the amount discount as its adjustment row (lines with their
    variant and product; the caller has removed the old rows). Carts and order edits alike. A
    tax-inclusive line is discounted on its price without the tax it holds at the region's rates
    for it (Medusa's calculateDiscountForLineItem)."""
    needs_tags = any(c.type == "product_tags" for c in offer.conditions)
    lines = await engine_lines(items, needs_tags)
    if any(i.includes_tax for i in items):
        held = await _held_taxes(items, region_id)
        lines = [replace(line, held_tax=held.get(line.id, 0)) for line in lines]
    if offer.type == "fixed" and offer.allocation != "item":
        rates = await _tax_rates(items, region_id)
        lines = [replace(line, tax_rates=rates.get(line.id, ())) for line in lines]
    amounts = allocate(offer, lines)
    await LineItemAdjustment.bulk_create([
        LineItemAdjustment(item_id=item_id, description="discount", discount_id=discount.id, amount=amount)
        for item_id, amount in amounts.items()
    ])


async def _tax_rates(items: list[LineItem], region_id: str) -> dict[str, tuple[float, ...]]:
    """Each line's tax rates at the system provider's rates: a fixed discount's whole shares keep
    the tax Medusa takes on its fractional ones (engine.whole_shares)."""
    region = await Region.get(id=region_id)
    rates, _ = system_lines(region, (await region_parts(region)).overrides, items, [])
    return {i.id: tuple(t.rate for t in rates.get(i.id, ())) for i in items}


async def _held_taxes(items: list[LineItem], region_id: str) -> dict[str, int]:
    """The tax each tax-inclusive line's price holds over its units, at the system provider's rates."""
    region = await Region.get(id=region_id)
    rates, _ = system_lines(region, (await region_parts(region)).overrides, items, [])
    return {
        i.id: item_totals(ItemInput(i.id, i.unit_price, i.quantity, tuple(t.rate for t in rates[i.id]),
                                    includes_tax=True)).original_tax_total
        for i in items if i.includes_tax
    }


async def engine_lines(items: list[LineItem], with_tags: bool) -> list[Line]:
    products = {i.variant.product.id: i.variant.product for i in items if i.variant is not None}
    tags: dict[str, set[str]] = {}
    if with_tags and products:
        for product_id, tag_id in await Product.filter(id__in=list(products)).values_list("id", "tags__id"):
            if tag_id:
                tags.setdefault(product_id, set()).add(tag_id)
    out = []
    for item in items:
        product = item.variant.product if item.variant is not None else None
        out.append(Line(
            id=item.id, unit_price=item.unit_price, quantity=item.quantity, allow_discounts=item.allow_discounts,
            product_id=product.id if product else None, product_type_id=product.type_id if product else None,
            collection_id=product.collection_id if product else None,
            tag_ids=frozenset(tags.get(product.id, ())) if product else frozenset(), is_return=item.is_return,
        ))
    return out

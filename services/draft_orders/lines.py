"""The lines and shipping of a draft order's cart, inside the
caller's transaction with the cart locked.

A draft is built by staff, so its rules differ from a shopper's cart (services/carts/items.py,
services/carts/shipping.py), which is why they live here:
- any live variant can be sold, published or not, whatever the sales channel;
- a line may carry the price staff typed (`unit_price`, minor units, never negative): such a
  line keeps that price when its quantity or the region changes and is never merged with
  another line; a line at the list price follows the price list as the storefront's do;
- a custom line (no variant) has a title (`Custom item` by default), its typed price or 0, needs
  no shipping and takes no discount, as in Medusa v1;
- shipping options meant for the back office only (`admin_only`) can be used, and a method may
  carry a price of its own;
- changing the lines keeps the shipping methods whose requirements the new subtotal still meets
  (Medusa v1 drops every method, so a forgotten item added by phone would silently leave the
  order without shipping).
"""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.query_utils import Prefetch

from models import (
    Cart, LineItem, MoneyAmount, ProductVariant, ShippingMethod, ShippingOption, ShippingOptionRequirement,
)
from services.carts.discounts import refresh_adjustments
from services.carts.items import MAX_QUANTITY
from services.core.errors import InvalidData, NotAllowed, NotFound
from services.carts.line_limits import check_room
from services.core.ids import fits, fitting
from services.core.metadata import merge_metadata
from services.catalog.pricing import Price, PriceContext, price_context, variant_price
from services.shipping.options import meets_requirements, option_price

__all__ = [
    "CUSTOM_ITEM_TITLE", "DraftLine", "LineChanges", "NewMethod", "add_lines", "change_line", "remove_line",
    "add_methods", "reprice_for_region", "reship", "INSUFFICIENT_INVENTORY",
]

CUSTOM_ITEM_TITLE = "Custom item"
INSUFFICIENT_INVENTORY = "insufficient_inventory"


@dataclass(frozen=True)
class DraftLine:
    """A line to add: a variant's, or a custom one when `variant_id` is None. `unit_price` in
    minor units; None means the list price (a custom line then costs 0)."""

    quantity: int
    variant_id: str | None = None
    unit_price: int | None = None
    title: str | None = None
    metadata: dict | None = None


@dataclass(frozen=True)
class LineChanges:
    """What may change on a line; None leaves that part as it is. Quantity 0 removes the line."""

    quantity: int | None = None
    unit_price: int | None = None
    title: str | None = None
    metadata: dict | None = None


@dataclass(frozen=True)
class NewMethod:
    option_id: str
    data: dict | None = None
    price: int | None = None  # minor units; None: the option's own price


# ---------------------------------------------------------------- lines

async def add_lines(cart: Cart, lines: list[DraftLine]) -> None:
    """Add the lines to the locked cart. A list-priced line of a variant already in the cart at
    its list price, with the same metadata, adds to that line's quantity instead. A draft holds
    at most MAX_LINES_PER_ORDER lines, and a request may name no more than that."""
    if not lines:
        return
    check_room(len(lines), "draft order")
    variants = await _variants([line.variant_id for line in lines if line.variant_id is not None])
    ctx = await _context(cart, list(variants.values()))
    existing = list(await LineItem.filter(cart_id=cart.id).order_by("created_at", "id"))
    for line in lines:
        if line.variant_id is None:
            check_room(len(existing) + 1, "draft order")
            existing.append(await LineItem.create(
                cart_id=cart.id, title=line.title or CUSTOM_ITEM_TITLE, unit_price=line.unit_price or 0,
                quantity=line.quantity, allow_discounts=False, has_shipping=True, should_merge=False,
                metadata=line.metadata or {},
            ))
            continue
        variant = variants.get(line.variant_id)
        if variant is None:
            raise NotFound(f"Variant with id: {line.variant_id} was not found")
        metadata = line.metadata or {}
        same = None
        if line.unit_price is None:
            same = next((i for i in existing if i.variant_id == variant.id and i.should_merge
                         and (i.metadata or {}) == metadata), None)
        quantity = line.quantity + (same.quantity if same else 0)
        if quantity > MAX_QUANTITY:
            raise InvalidData(f"quantity must not be greater than {MAX_QUANTITY}")
        _check_stock(variant, quantity)
        # A typed price is taken as tax-exclusive, as Medusa's generateLineItem takes it.
        price, includes_tax = (line.unit_price, False) if line.unit_price is not None else _list_price(
            ctx, variant, quantity)
        if same is not None:
            same.quantity, same.unit_price, same.includes_tax = quantity, price, includes_tax
            await same.save(update_fields=["quantity", "unit_price", "includes_tax", "updated_at"])
            continue
        check_room(len(existing) + 1, "draft order")
        existing.append(await LineItem.create(
            cart_id=cart.id, variant_id=variant.id, title=line.title or variant.product.title,
            description=variant.title, thumbnail=variant.product.thumbnail, is_giftcard=variant.product.is_giftcard,
            allow_discounts=variant.product.discountable, should_merge=line.unit_price is None, has_shipping=False,
            unit_price=price, includes_tax=includes_tax, quantity=quantity, metadata=metadata,
        ))
    await reship(cart)


async def change_line(cart: Cart, item_id: str, changes: LineChanges) -> None:
    """Change a line of the locked cart; quantity 0 removes it (a line not in the cart is then
    not an error, as in Medusa v1). A typed `unit_price` makes the line keep that price."""
    if changes.quantity == 0:
        await remove_line(cart, item_id)
        return
    item = await LineItem.get_or_none(id=item_id, cart_id=cart.id) if fits(LineItem, item_id) else None
    if item is None:
        raise InvalidData("Could not find the line item")
    if changes.quantity is not None:
        item.quantity = changes.quantity
    if changes.unit_price is not None:
        item.unit_price, item.includes_tax, item.should_merge = changes.unit_price, False, False
    if changes.title is not None:
        item.title = changes.title
    item.metadata = merge_metadata(item.metadata, changes.metadata)
    if item.variant_id is not None and changes.quantity is not None:
        variant = (await _variants([item.variant_id], live=False))[item.variant_id]
        _check_stock(variant, item.quantity)
        if item.should_merge:  # at the list price: the price follows the quantity's tier
            item.unit_price, item.includes_tax = _list_price(await _context(cart, [variant]), variant, item.quantity)
    await item.save()
    await reship(cart)


async def remove_line(cart: Cart, item_id: str) -> None:
    """Remove a line of the locked cart; a line that is not in it is not an error."""
    if fits(LineItem, item_id) and await LineItem.filter(id=item_id, cart_id=cart.id).delete():
        await reship(cart)


async def reprice_for_region(cart: Cart) -> None:
    """After a region change: list-priced lines take the new region's price; a typed price is
    kept. A variant without a price in the new region refuses the change (Medusa v1 silently
    drops its line, which staff would only notice on the invoice)."""
    items = [i for i in await LineItem.filter(cart_id=cart.id) if i.variant_id is not None and i.should_merge]
    variants = await _variants([i.variant_id for i in items], live=False)
    ctx = await _context(cart, list(variants.values()))
    unpriced = []
    for item in items:
        variant = variants.get(item.variant_id)
        price = variant_price(variant, item.quantity, ctx) if variant is not None else None
        if price is None:
            unpriced.append(item.title if variant is None else f"{variant.product.title} ({variant.title})")
            continue
        item.unit_price, item.includes_tax = price
        await item.save(update_fields=["unit_price", "includes_tax", "updated_at"])
    if unpriced:
        raise InvalidData(f"These items have no price in the region {cart.region.name}: {', '.join(unpriced)}")


# ---------------------------------------------------------------- shipping

async def add_methods(cart: Cart, methods: list[NewMethod]) -> None:
    """Ship the locked cart with these options, one method per shipping profile (a later method
    of a profile replaces the earlier one). Free shipping on the cart makes a method cost 0."""
    if not methods:
        return
    options = await _options([m.option_id for m in methods])
    subtotal = await _subtotal(cart)
    free = await cart.discounts.filter(deleted_at=None, rule__type="free_shipping").exists()
    current = list(await ShippingMethod.filter(cart_id=cart.id).select_related("shipping_option"))
    for method in methods:
        option = options.get(method.option_id)
        if option is None:
            raise NotFound(f"Shipping Option with {method.option_id} was not found")
        if option.region_id != cart.region_id:
            raise InvalidData("The shipping option is not available in the cart's region")
        if option.is_return:
            raise NotAllowed("A return shipping option cannot ship an order")
        if not meets_requirements(option, subtotal):
            raise NotAllowed("The Cart does not satisfy the shipping option's requirements")
        price = method.price if method.price is not None else option_price(option)
        same_profile = [m.id for m in current if m.shipping_option.profile_id == option.profile_id]
        if same_profile:
            await ShippingMethod.filter(id__in=same_profile).delete()
        created = await ShippingMethod.create(
            cart_id=cart.id, shipping_option_id=option.id, price=0 if free else price, data=method.data or {},
            includes_tax=option.includes_tax,
        )
        created.shipping_option = option
        current = [m for m in current if m.id not in same_profile] + [created]
    await reship(cart)


async def reship(cart: Cart) -> None:
    """After the lines or methods changed: drop the methods whose requirements the subtotal no
    longer meets, mark which lines are shipped, and rewrite the discount adjustments."""
    items = list(await LineItem.filter(cart_id=cart.id).select_related("variant__product"))
    methods = list(await ShippingMethod.filter(cart_id=cart.id))
    options = await _options(list({m.shipping_option_id for m in methods}), live=False)
    subtotal = sum(i.unit_price * i.quantity for i in items)
    failing = [m.id for m in methods if not meets_requirements(options[m.shipping_option_id], subtotal)]
    if failing:
        await ShippingMethod.filter(id__in=failing).delete()
    shipped = {options[m.shipping_option_id].profile_id for m in methods if m.id not in failing}
    for item in items:
        has_shipping = item.variant is None or item.variant.product.profile_id in shipped
        if item.has_shipping != has_shipping:
            item.has_shipping = has_shipping
            await item.save(update_fields=["has_shipping", "updated_at"])
    await refresh_adjustments(cart)


# ---------------------------------------------------------------- reading

async def _variants(ids: list[str], *, live: bool = True) -> dict[str, ProductVariant]:
    """The variants with their product and live prices. `live`: not deleted, nor their product
    (a line already in the cart keeps its variant even if that was deleted since)."""
    wanted = fitting(ProductVariant, ids)
    if not wanted:
        return {}
    qs = ProductVariant.filter(id__in=wanted)
    if live:
        qs = qs.filter(deleted_at=None, product__deleted_at=None)
    qs = qs.select_related("product").prefetch_related(
        Prefetch("prices", queryset=MoneyAmount.filter(deleted_at=None))
    )
    return {v.id: v for v in await qs}


async def _options(ids: list[str], *, live: bool = True) -> dict[str, ShippingOption]:
    wanted = fitting(ShippingOption, ids)
    if not wanted:
        return {}
    qs = ShippingOption.filter(id__in=wanted)
    if live:
        qs = qs.filter(deleted_at=None)
    qs = qs.prefetch_related(
        Prefetch("requirements", queryset=ShippingOptionRequirement.filter(deleted_at=None).order_by("id"))
    )
    return {o.id: o for o in await qs}


async def _subtotal(cart: Cart) -> int:
    return sum(price * quantity for price, quantity in await LineItem.filter(cart_id=cart.id).values_list(
        "unit_price", "quantity"
    ))


async def _context(cart: Cart, variants: list[ProductVariant]) -> PriceContext:
    """Pricing for the draft's region: like Medusa v1, a draft order's lines take only the price
    lists open to everyone (no customer groups)."""
    return await price_context(variants, region=cart.region)


def _list_price(ctx: PriceContext, variant: ProductVariant, quantity: int) -> Price:
    price = variant_price(variant, quantity, ctx)
    if price is None:
        raise InvalidData(f'Cannot generate line item for variant "{variant.title}" without a price')
    return price


def _check_stock(variant: ProductVariant, quantity: int) -> None:
    if variant.allow_backorder or not variant.manage_inventory or variant.inventory_quantity >= quantity:
        return
    raise NotAllowed(f"Variant with id: {variant.id} does not have the required inventory", code=INSUFFICIENT_INVENTORY)

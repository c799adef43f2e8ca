"""The lines of a cart (reference store §1.2 line items, §2.0 prices, §2.1 inventory).

A line's `unit_price` (minor units) follows services.catalog.pricing for the cart's region, its
customer's price lists and the line's quantity, so quantity tiers apply as the quantity changes. A variant that tracks its inventory
and takes no back orders must have the whole quantity in stock. Every change of lines removes
the cart's shipping methods (their options may no longer fit) and rewrites its discount
adjustments, as Medusa v1 does; its payment sessions follow the new total.
"""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.query_utils import Prefetch

from models import Cart, LineItem, MoneyAmount, Product, ProductVariant, ShippingMethod
from services.carts.discounts import refresh_adjustments
from services.carts.locks import check_lines_open, lock_cart
from services.carts.view import CartView, load_cart_view, load_checked_view
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed
from services.carts.line_limits import check_room
from services.core.ids import fits, fitting
from services.core.metadata import merge_metadata
from services.payments.sessions import resync_payment_sessions
from services.catalog.pricing import PriceContext, price_context, unit_price

__all__ = [
    "NewLine", "add_line_item", "update_line_item", "delete_line_item", "add_lines", "reprice_lines",
    "drop_lines_outside_channel", "INSUFFICIENT_INVENTORY", "MAX_QUANTITY",
]

INSUFFICIENT_INVENTORY = "insufficient_inventory"
MAX_QUANTITY = 2**31 - 1  # `quantity` is an INTEGER column
MISSING_ARGUMENTS = (
    "Unable to generate the line item because one or more required argument(s) are missing. Ensure quantity, "
    "regionId, and variantId are passed"
)


@dataclass(frozen=True)
class NewLine:
    variant_id: str
    quantity: int
    metadata: dict | None = None


# ---------------------------------------------------------------- use cases (each locks the cart)

async def add_line_item(cart_id: str, line: NewLine) -> CartView:
    async with atomic():
        cart = await lock_cart(cart_id)
        check_lines_open(cart)
        await add_lines(cart, [line])
        await resync_payment_sessions(cart)
        return await load_checked_view(cart_id)


async def update_line_item(cart_id: str, item_id: str, quantity: int, metadata: dict | None = None) -> CartView:
    """A new quantity (0 removes the line) and metadata merged into the line's (an empty string
    removes a key). The unit price follows the new quantity."""
    if quantity < 0:
        raise InvalidData("quantity must not be less than 0")
    async with atomic():
        cart = await lock_cart(cart_id)
        check_lines_open(cart)
        item = await LineItem.get_or_none(id=item_id, cart_id=cart.id) if fits(LineItem, item_id) else None
        if item is None:
            raise InvalidData("Could not find the line item")
        if quantity == 0:
            await item.delete()
        else:
            await _change_line(cart, item, quantity, metadata)
        await _lines_changed(cart)
        await resync_payment_sessions(cart)
        return await load_checked_view(cart_id)


async def _change_line(cart: Cart, item: LineItem, quantity: int, metadata: dict | None) -> None:
    if item.variant_id is not None:
        variant = (await _variants([item.variant_id], for_sale=False))[item.variant_id]
        if not _in_stock(variant, quantity):
            raise NotAllowed("Inventory doesn't cover the desired quantity", code=INSUFFICIENT_INVENTORY)
        item.unit_price = _price(await _context(cart, [variant]), variant, quantity)
    item.quantity = quantity
    item.metadata = merge_metadata(item.metadata, metadata)
    await item.save()


async def delete_line_item(cart_id: str, item_id: str) -> CartView:
    """Remove a line; a line that is not in the cart is not an error."""
    async with atomic():
        cart = await lock_cart(cart_id)
        check_lines_open(cart)
        if fits(LineItem, item_id) and await LineItem.filter(id=item_id, cart_id=cart.id).delete():
            await _lines_changed(cart)
            await resync_payment_sessions(cart)
    return await load_cart_view(cart_id)


# ---------------------------------------------------------------- parts, inside the caller's transaction

async def add_lines(cart: Cart, lines: list[NewLine]) -> None:
    """Add the lines to a locked cart: a line of a variant already in the cart with the same
    metadata adds to that line's quantity instead. The cart holds at most MAX_LINES_PER_ORDER
    lines, and a request may name no more than that."""
    if not lines:
        return
    check_room(len(lines), "cart")  # before any read: a body of 10,000 items costs nothing more
    if any(line.quantity == 0 for line in lines):
        raise InvalidData(MISSING_ARGUMENTS)
    if any(line.quantity < 0 for line in lines):
        raise InvalidData("quantity must not be less than 1")
    variants = await _variants([line.variant_id for line in lines])
    missing = [line.variant_id for line in lines if line.variant_id not in variants]
    if missing:
        raise InvalidData(f"Unable to generate the line items, some variant has not been found: {', '.join(missing)}")
    ctx = await _context(cart, list(variants.values()))
    for line in lines:
        _price(ctx, variants[line.variant_id], line.quantity)
    await _check_channel(cart, [variants[line.variant_id].product for line in lines])
    existing = list(await LineItem.filter(cart_id=cart.id).order_by("created_at", "id"))
    for line in lines:
        variant = variants[line.variant_id]
        metadata = line.metadata or {}
        same = next(
            (i for i in existing if i.variant_id == variant.id and i.should_merge and (i.metadata or {}) == metadata),
            None,
        )
        quantity = line.quantity + (same.quantity if same else 0)
        if quantity > MAX_QUANTITY:
            raise InvalidData(f"quantity must not be greater than {MAX_QUANTITY}")
        if not _in_stock(variant, quantity):
            raise NotAllowed(
                f"Variant with id: {variant.id} does not have the required inventory", code=INSUFFICIENT_INVENTORY
            )
        price = _price(ctx, variant, quantity)
        if same is not None:
            same.quantity, same.unit_price = quantity, price
            await same.save(update_fields=["quantity", "unit_price", "updated_at"])
        else:
            check_room(len(existing) + 1, "cart")
            existing.append(await LineItem.create(
                cart_id=cart.id, variant_id=variant.id, title=variant.product.title, description=variant.title,
                thumbnail=variant.product.thumbnail, is_giftcard=variant.product.is_giftcard,
                allow_discounts=variant.product.discountable, should_merge=True, has_shipping=False,
                unit_price=price, quantity=quantity, metadata=metadata,
            ))
    await _lines_changed(cart)


async def reprice_lines(cart: Cart) -> None:
    """Price every line again for the cart's (new) region and customer: a line whose variant has no
    price there is removed. Custom lines (no variant) keep their price."""
    items = [i for i in await LineItem.filter(cart_id=cart.id) if i.variant_id is not None]
    variants = await _variants([i.variant_id for i in items], for_sale=False)
    ctx = await _context(cart, list(variants.values()))
    for item in items:
        variant = variants.get(item.variant_id)
        price = unit_price(list(variant.prices.related_objects), ctx, item.quantity) if variant else None
        if price is None:
            await item.delete()
        else:
            item.unit_price, item.has_shipping = price, False
            await item.save(update_fields=["unit_price", "has_shipping", "updated_at"])


async def drop_lines_outside_channel(cart: Cart, channel_id: str) -> None:
    """Remove the lines whose product is not sold through the sales channel."""
    items = await LineItem.filter(cart_id=cart.id).select_related("variant")
    product_ids = {i.variant.product_id for i in items if i.variant is not None}
    sold = set(
        await Product.filter(id__in=product_ids, sales_channels__id=channel_id).values_list("id", flat=True)
    ) if product_ids else set()
    outside = [i.id for i in items if i.variant is not None and i.variant.product_id not in sold]
    if outside:
        await LineItem.filter(id__in=outside).delete()


async def _lines_changed(cart: Cart) -> None:
    await ShippingMethod.filter(cart_id=cart.id).delete()
    await LineItem.filter(cart_id=cart.id).update(has_shipping=False)
    await refresh_adjustments(cart)


async def _variants(ids: list[str], *, for_sale: bool = True) -> dict[str, ProductVariant]:
    """The variants with their product and live prices. `for_sale`: only live variants of live,
    published products (what a shopper may add; Medusa v1 also takes drafts)."""
    wanted = fitting(ProductVariant, ids)
    if not wanted:
        return {}
    qs = ProductVariant.filter(id__in=wanted)
    if for_sale:
        qs = qs.filter(deleted_at=None, product__deleted_at=None, product__status="published")
    qs = qs.select_related("product").prefetch_related(
        Prefetch("prices", queryset=MoneyAmount.filter(deleted_at=None))
    )
    return {v.id: v for v in await qs}


async def _context(cart: Cart, variants: list[ProductVariant]) -> PriceContext:
    """Pricing for the cart's region and its customer's groups (the lists their prices name)."""
    return await price_context(variants, region=cart.region, customer_id=cart.customer_id)


def _price(ctx: PriceContext, variant: ProductVariant, quantity: int) -> int:
    price = unit_price(list(variant.prices.related_objects), ctx, quantity)
    if price is None:
        raise InvalidData(f'Cannot generate line item for variant "{variant.title}" without a price')
    return price


def _in_stock(variant: ProductVariant, quantity: int) -> bool:
    return variant.allow_backorder or not variant.manage_inventory or variant.inventory_quantity >= quantity


async def _check_channel(cart: Cart, products: list[Product]) -> None:
    if cart.sales_channel_id is None:
        return
    ids = {p.id for p in products}
    sold = set(await Product.filter(id__in=ids, sales_channels__id=cart.sales_channel_id).values_list("id", flat=True))
    outside = list(dict.fromkeys(p.title for p in products if p.id not in sold))
    if outside:
        raise InvalidData(
            f"The products [{', '.join(outside)}] must belongs to the sales channel on which the cart has been created."
        )

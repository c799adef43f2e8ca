"""The lines of a cart.

A line's `unit_price` (minor units) follows services.catalog.pricing for the cart's region, its
customer's price lists and the line's quantity, so quantity tiers apply as the quantity changes. A variant that tracks its inventory
and takes no back orders must have the whole quantity in stock. Every change of lines removes
the cart's shipping methods (their options may no longer fit) and rewrites its discount
adjustments, as Medusa v1 does; its payment sessions follow the new total.
"""

from __future__ import annotations

from dataclasses import dataclass

from models import Cart, LineItem, Product, ProductVariant, ShippingMethod
from services.carts.discounts import refresh_adjustments
from services.carts.locks import check_lines_open, lock_cart, lock_cart_rows, lock_reading_variants
from services.carts.payment_sessions import resync_payment_sessions
from services.carts.reads import read_variants
from services.carts.view import CartView, check_amounts, load_cart_view, load_checked_view, stored_tax_lines, view_of
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed
from services.carts.line_limits import check_room
from services.core.ids import fits, fitting
from services.core.sql import insert
from services.core.metadata import check_shared, merge_metadata
from services.inventory.channel_stock import show_channel_stock
from services.catalog.pricing import Price, PriceContext, price_context, variant_price

__all__ = [
    "NewLine", "add_line_item", "update_line_item", "delete_line_item", "add_lines", "reprice_lines", "reprice_read",
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
    """A cart without discounts or payment sessions (a shopper filling it) answers from what
    was read under the lock and written: three statements (five when shipping methods go),
    whatever its number of lines. With either, its adjustments and sessions follow the lines
    and the cart is read back."""
    async with atomic():
        # The variant is read by the statement that locks the cart, checked against the channel
        # the cart had then: read again in the unlikely case the channel changed meanwhile.
        early = await lock_reading_variants(cart_id, fitting(ProductVariant, [line.variant_id]))
        rows = await lock_cart_rows(cart_id, stored_tax_lines=stored_tax_lines(), methods_wanted=_read_back,
                                    locked=True)
        cart = rows.cart
        check_lines_open(cart)
        found = early.found if early.channel_id == cart.sales_channel_id else None
        written = await add_lines(cart, [line], existing=rows.items, found=found)
        if _read_back(rows.payment_sessions, rows.discounts):
            await _lines_changed(cart)
            await resync_payment_sessions(cart)
            return await load_checked_view(cart_id)
        if rows.has_methods:
            await _drop_methods(cart)
            rows.shipping_methods, rows.method_tax_lines = [], {}
            for item in rows.items:
                item.has_shipping = False
        for item in written:
            rows.adjustments.setdefault(item.id, [])
            rows.item_tax_lines.setdefault(item.id, [])
        return check_amounts(await view_of(rows))


def _read_back(sessions: list, discounts: list) -> bool:
    """Whether a change of lines must read the cart back: its adjustments and sessions follow."""
    return bool(sessions or discounts)


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
        await show_channel_stock([variant], [c for c in [cart.sales_channel_id] if c])  # stock per location
        if not _in_stock(variant, quantity):
            raise NotAllowed("Inventory doesn't cover the desired quantity", code=INSUFFICIENT_INVENTORY)
        item.unit_price, item.includes_tax = _price(await _context(cart, [variant]), variant, quantity)
    item.quantity = quantity
    merged = merge_metadata(item.metadata, metadata)
    if metadata:
        others = await LineItem.filter(cart_id=cart.id).exclude(id=item.id).values_list("metadata", flat=True)
        check_shared(merged, item.metadata, others, "cart")
    item.metadata = merged
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

async def add_lines(
    cart: Cart, lines: list[NewLine], existing: list[LineItem] | None = None,
    found: dict[str, tuple[ProductVariant, bool]] | None = None,
) -> list[LineItem]:
    """Add the lines to a locked cart: a line of a variant already in the cart with the same
    metadata adds to that line's quantity instead. The cart holds at most MAX_LINES_PER_ORDER
    lines, and a request may name no more than that. `existing`: the cart's lines as read under
    the lock, which then take the new ones (read here otherwise). The lines written, each with
    its variant, product and profile. `found`: the lines' variants as `read_variants` answers for
    the cart's channel, when the caller has read them."""
    if not lines:
        return []
    check_room(len(lines), "cart")  # before any read: a body of 10,000 items costs nothing more
    if any(line.quantity == 0 for line in lines):
        raise InvalidData(MISSING_ARGUMENTS)
    if any(line.quantity < 0 for line in lines):
        raise InvalidData("quantity must not be less than 1")
    if found is None:
        found = await read_variants(
            fitting(ProductVariant, list(dict.fromkeys(line.variant_id for line in lines))), for_sale=True,
            channel_id=cart.sales_channel_id,
        )
    variants = {variant_id: variant for variant_id, (variant, _) in found.items()}
    await show_channel_stock(list(variants.values()), [c for c in [cart.sales_channel_id] if c])  # stock per location
    missing = [line.variant_id for line in lines if line.variant_id not in variants]
    if missing:
        raise InvalidData(f"Unable to generate the line items, some variant has not been found: {', '.join(missing)}")
    ctx = await _context(cart, list(variants.values()))
    for line in lines:
        _price(ctx, variants[line.variant_id], line.quantity)
    outside = list(dict.fromkeys(variants[line.variant_id].product.title for line in lines
                                 if not found[line.variant_id][1]))
    if outside:
        raise InvalidData(
            f"The products [{', '.join(outside)}] must belongs to the sales channel on which the cart has been created."
        )
    if existing is None:
        existing = list(await LineItem.filter(cart_id=cart.id).order_by("created_at", "id"))
    written: dict[str, LineItem] = {}
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
        price, includes_tax = _price(ctx, variant, quantity)
        if same is not None:
            same.quantity, same.unit_price, same.includes_tax = quantity, price, includes_tax
            await same.save(update_fields=["quantity", "unit_price", "includes_tax", "updated_at"])
        else:
            check_room(len(existing) + 1, "cart")
            check_shared(metadata, None, (i.metadata for i in existing), "cart")
            same = LineItem(
                cart_id=cart.id, variant_id=variant.id, title=variant.product.title, description=variant.title,
                thumbnail=variant.product.thumbnail, is_giftcard=variant.product.is_giftcard,
                allow_discounts=variant.product.discountable, should_merge=True, has_shipping=False,
                unit_price=price, includes_tax=includes_tax, quantity=quantity, metadata=metadata,
            )
            await insert(same)
            existing.append(same)
        object.__setattr__(same, "_variant", variant)
        written[same.id] = same
    return list(written.values())


async def reprice_lines(cart: Cart) -> None:
    """Price every line again for the cart's (new) region and customer: a line whose variant has no
    price there is removed. Custom lines (no variant) keep their price."""
    items = [i for i in await LineItem.filter(cart_id=cart.id) if i.variant_id is not None]
    variants = await _variants([i.variant_id for i in items], for_sale=False)
    ctx = await _context(cart, list(variants.values()))
    for item in items:
        variant = variants.get(item.variant_id)
        price = variant_price(variant, item.quantity, ctx) if variant else None
        if price is None:
            await item.delete()
        else:
            (item.unit_price, item.includes_tax), item.has_shipping = price, False
            await item.save(update_fields=["unit_price", "includes_tax", "has_shipping", "updated_at"])


async def reprice_read(cart: Cart, items: list[LineItem]) -> list[LineItem]:
    """`reprice_lines` for the lines of a locked cart as read under its lock (changed in memory as
    in the database): one statement for the variants' prices, then at most one DELETE (lines
    without a price there) and one UPDATE (lines whose price or `has_shipping` changes), whatever
    the number of lines. The lines kept."""
    priced = [i for i in items if i.variant_id is not None]
    if not priced:
        return items
    variants = await _variants([i.variant_id for i in priced], for_sale=False)
    ctx = await _context(cart, list(variants.values()))
    gone, changed, now = set(), [], clock.now()
    for item in priced:
        variant = variants.get(item.variant_id)
        price = variant_price(variant, item.quantity, ctx) if variant else None
        if price is None:
            gone.add(item.id)
        elif (item.unit_price, item.includes_tax) != price or item.has_shipping:
            (item.unit_price, item.includes_tax), item.has_shipping, item.updated_at = price, False, now
            changed.append(item)
    if gone:
        await LineItem.filter(id__in=sorted(gone)).delete()
    if changed:
        await LineItem.bulk_update(changed, fields=["unit_price", "includes_tax", "has_shipping", "updated_at"])
    return [i for i in items if i.id not in gone]


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
    await _drop_methods(cart)
    await refresh_adjustments(cart)


async def _drop_methods(cart: Cart) -> None:
    """Lines changed: the shipping methods go (their options may no longer fit)."""
    if await ShippingMethod.filter(cart_id=cart.id).delete():
        await LineItem.filter(cart_id=cart.id, has_shipping=True).update(has_shipping=False)


async def _variants(ids: list[str], *, for_sale: bool = True) -> dict[str, ProductVariant]:
    """The variants with their product and live prices. `for_sale`: only live variants of live,
    published products (what a shopper may add; Medusa v1 also takes drafts)."""
    found = await read_variants(fitting(ProductVariant, list(dict.fromkeys(ids))), for_sale=for_sale, channel_id=None)
    return {variant_id: variant for variant_id, (variant, _) in found.items()}


async def _context(cart: Cart, variants: list[ProductVariant]) -> PriceContext:
    """Pricing for the cart's region and its customer's groups (the lists their prices name)."""
    return await price_context(variants, region=cart.region, customer_id=cart.customer_id)


def _price(ctx: PriceContext, variant: ProductVariant, quantity: int) -> Price:
    price = variant_price(variant, quantity, ctx)
    if price is None:
        raise InvalidData(f'Cannot generate line item for variant "{variant.title}" without a price')
    return price


def _in_stock(variant: ProductVariant, quantity: int) -> bool:
    return variant.allow_backorder or not variant.manage_inventory or variant.inventory_quantity >= quantity



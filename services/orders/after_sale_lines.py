"""A new line for a placed order's after-sale (a claim's replacement, a swap's new item): the
variant priced for the order's region and customer as a cart prices it, and taxed at the
region's rates for its product.

It lives in orders, the area below both claims and swaps, so that neither imports the other for
it: the line is an order's line, owned by the after-sale's column (`claim_order_id`, `swap_id`)."""

from __future__ import annotations

from tortoise.query_utils import Prefetch

from models import LineItem, LineItemTaxLine, MoneyAmount, Order, ProductVariant, Region, TaxRate
from services.catalog.pricing import price_context, variant_price
from services.core.errors import InvalidData
from services.core.ids import fits
from services.regions.taxes import load_overrides, product_lines

__all__ = ["priced_line"]


async def priced_line(order: Order, variant_id: str, quantity: int, **owner) -> LineItem:
    """The line (with its tax lines) of `quantity` units of the variant, belonging to `owner`
    (e.g. `claim_order_id=...`)."""
    variant = await ProductVariant.filter(
        id=variant_id, deleted_at=None, product__deleted_at=None,
    ).select_related("product").prefetch_related(
        Prefetch("prices", queryset=MoneyAmount.filter(deleted_at=None))
    ).first() if fits(ProductVariant, variant_id) else None
    if variant is None:
        raise InvalidData(f"Unable to generate the line items, some variant has not been found: {variant_id}")
    product = variant.product
    region = await Region.get(id=order.region_id)
    ctx = await price_context([variant], region=region, customer_id=order.customer_id)
    price = variant_price(variant, quantity, ctx)
    if price is None:
        raise InvalidData(f'Cannot generate line item for variant "{variant.title}" without a price')
    line = await LineItem.create(
        variant_id=variant.id, title=product.title, description=variant.title, thumbnail=product.thumbnail,
        is_giftcard=product.is_giftcard, allow_discounts=product.discountable, should_merge=True, has_shipping=False,
        unit_price=price.amount, includes_tax=price.includes_tax, quantity=quantity, metadata={}, **owner,
    )
    line.variant = variant
    overrides = await load_overrides(
        list(await TaxRate.filter(region_id=region.id)), product_ids=[product.id], type_ids=[product.type_id],
    )
    await LineItemTaxLine.bulk_create([
        LineItemTaxLine(item_id=line.id, rate=t.rate, name=t.name, code=t.code)
        for t in product_lines(region, overrides, product.id, product.type_id)
    ])
    return line

"""The new lines of a placed order's after-sale (a claim's replacements, a swap's new items): each
the variant priced for the order's region and customer as a cart prices it, and taxed at the
region's rates for its product; fulfilled with the after-sale's own shipping methods; and their
stock given back when the after-sale is canceled.

They live in orders, the area below both claims and swaps, so that neither imports the other for
them: the lines are an order's lines, owned by the after-sale's column (`claim_order_id`,
`swap_id`), and the mechanics are the order's (services/orders/fulfilments.py, placement.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from tortoise.query_utils import Prefetch

from models import (
    ClaimOrder, LineItem, LineItemTaxLine, MoneyAmount, Order, ProductVariant, Region, Swap, TaxRate,
)
from services.catalog.pricing import price_context, variant_price
from services.core.errors import InvalidData, NotAllowed
from services.core.ids import fits
from services.events.bus import emit
from services.inventory.order_stock import release_lines
from services.orders.fulfilments import fulfil_lines, unfulfilled
from services.orders.placement import restock, variant_quantities
from services.regions.taxes import load_overrides, product_lines

__all__ = ["priced_line", "fulfil_new_lines", "restock_new_lines"]


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


async def fulfil_new_lines(
    owner: str, after_sale: ClaimOrder | Swap, settle: Callable[[Any], Awaitable[Any]], event: str, *,
    done: str, no_method: str, no_notification: bool | None, location_id: str | None, metadata: dict | None,
) -> None:
    """Fulfil every new line of `after_sale` (named by the column `owner`) not yet fulfilled,
    with the after-sale's shipping methods; then settle its fulfillment status
    (`settle(after_sale)`) and record `event` for each fulfillment made. NotAllowed with `done`
    when nothing is left to fulfil, with `no_method` when it has no shipping method. The
    after-sale's `no_notification` holds unless the request gives one. The caller holds the
    order's lock and checked that the after-sale may be fulfilled."""
    remaining = await unfulfilled(owner, after_sale.id)
    if not remaining:
        raise NotAllowed(done)
    silent = after_sale.no_notification if no_notification is None else no_notification
    made = await fulfil_lines(owner, after_sale.id, remaining, no_method, no_notification=silent,
                              location_id=location_id, metadata=metadata)
    await settle(after_sale)
    for fulfillment in made:
        await emit(event, id=after_sale.id, fulfillment_id=fulfillment.id, no_notification=silent)


async def restock_new_lines(**owner: Any) -> None:
    """Give back the stock of the lines matching `owner` (an after-sale's new lines, canceled
    with it): their reservations released at their locations, their units back on the variants."""
    rows = await LineItem.filter(**owner).values_list("id", "variant_id", "quantity")
    await release_lines([line_id for line_id, _, _ in rows])
    await restock(variant_quantities((variant_id, quantity) for _, variant_id, quantity in rows))

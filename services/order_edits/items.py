"""The lines of an order edit, as parts run inside the caller's
transaction with the order's row locked (services/order_edits/edits.py).

An edit starts with a clone of every line of the order; each change of a line is recorded as an
item change (`item_add`, `item_update`, `item_remove`), one per line, so the shopper sees what
changed. After every change the order's amount discount is spread again over the edit's lines
(Medusa's rule): a percentage takes its share of a
new line, a fixed amount stays the same amount spread over what remains.

Departures from Medusa v1, on purpose:
- undoing a change restores the line as the order has it (Medusa deletes an updated line
  outright and cannot bring back a removed one);
- removing a line the edit added undoes its `item_add` (Medusa refuses), and removing an
  updated line replaces its `item_update` by an `item_remove` (Medusa fails on a foreign key);
- a quantity set back to the order's own drops the `item_update`: nothing changed any more;
- stock: a line may not ask for more than the variant has (when it tracks stock and takes no
  back orders), and confirming takes the extra units from stock and puts the freed ones back
  (Medusa v1 without its inventory module leaves stock as the original order left it).
"""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.expressions import F
from tortoise.query_utils import Prefetch

from models import (
    LineItem, LineItemAdjustment, LineItemTaxLine, MoneyAmount, Order, OrderEdit, OrderItemChange, ProductVariant,
    Region, TaxRate,
)
from services.carts.reads import amount_discount
from services.carts.items import INSUFFICIENT_INVENTORY
# The cart's own step from lines to what the discount engine weighs: one rule for carts and edits.
from services.carts.discounts import spread_discount
from services.discounts.engine import load_offers
from services.core.errors import InvalidData, NotAllowed, NotFound
from services.core.ids import fits
from services.carts.line_limits import check_room
from services.orders.placement import InsufficientInventory, reserve_inventory
from services.inventory.edit_stock import carry_reservations
from services.catalog.pricing import price_context, variant_price
from services.regions.taxes import load_overrides, product_lines

__all__ = [
    "clone_order_items", "add_line", "change_quantity", "remove_line", "undo_change", "delete_edit_lines",
    "apply_stock", "refresh_adjustments",
]

# What a clone copies from the order's line besides its own ids.
_COPIED = (
    "variant_id", "title", "description", "thumbnail", "is_return", "is_giftcard", "should_merge",
    "allow_discounts", "has_shipping", "unit_price", "includes_tax", "quantity", "fulfilled_quantity",
    "returned_quantity", "shipped_quantity", "metadata",
)


# ---------------------------------------------------------------- the edit's lines

async def clone_order_items(order_id: str, edit_id: str) -> None:
    """Copy every current line of the order into the edit, with its tax lines and adjustments.
    One at a time, so the copies keep the order's order of lines."""
    for item in await LineItem.filter(order_id=order_id).order_by("created_at", "id"):
        await _clone(item, edit_id)


async def _clone(item: LineItem, edit_id: str) -> LineItem:
    values = item.__dict__
    # No cart: the copy belongs to the edit alone, never to the completed cart's lines.
    copy = await LineItem.create(
        **{c: values[c] for c in _COPIED}, order_edit_id=edit_id, original_item_id=item.id,
    )
    await LineItemTaxLine.bulk_create([
        LineItemTaxLine(item_id=copy.id, rate=t.rate, name=t.name, code=t.code, metadata=t.metadata)
        for t in await LineItemTaxLine.filter(item_id=item.id).order_by("created_at", "id")
    ])
    await LineItemAdjustment.bulk_create([
        LineItemAdjustment(item_id=copy.id, description=a.description, discount_id=a.discount_id, amount=a.amount,
                           metadata=a.metadata)
        for a in await LineItemAdjustment.filter(item_id=item.id).order_by("created_at", "id")
    ])
    return copy


async def add_line(edit: OrderEdit, order: Order, variant_id: str, quantity: int, metadata: dict | None) -> None:
    """A new line of the variant priced for the order's region (quantity tiers and price lists
    as a cart prices it), taxed at the region's rates for its product, recorded as `item_add`."""
    variant = await _variant(variant_id)
    if variant is None:
        raise InvalidData(f"Unable to generate the line items, some variant has not been found: {variant_id}")
    await _check_room(edit)
    product = variant.product
    if product.is_giftcard:
        # A gift card is issued when its order is placed; an edit would sell one never issued.
        raise InvalidData("A gift card cannot be added to an order edit")
    region = await Region.get(id=order.region_id)
    ctx = await price_context([variant], region=region, customer_id=order.customer_id)  # as Medusa v1
    price = variant_price(variant, quantity, ctx)
    if price is None:
        raise InvalidData(f'Cannot generate line item for variant "{variant.title}" without a price')
    item = await LineItem.create(
        order_edit_id=edit.id, variant_id=variant.id, title=product.title, description=variant.title,
        thumbnail=product.thumbnail, is_giftcard=False, allow_discounts=product.discountable, should_merge=True,
        has_shipping=False, unit_price=price.amount, includes_tax=price.includes_tax, quantity=quantity,
        metadata=metadata or {},
    )
    overrides = await load_overrides(
        list(await TaxRate.filter(region_id=region.id)), product_ids=[product.id], type_ids=[product.type_id],
    )
    await LineItemTaxLine.bulk_create([
        LineItemTaxLine(item_id=item.id, rate=line.rate, name=line.name, code=line.code)
        for line in product_lines(region, overrides, product.id, product.type_id)
    ])
    await OrderItemChange.create(type="item_add", order_edit_id=edit.id, line_item_id=item.id)
    await _check_stock(edit, order, variant)
    await refresh_adjustments(edit, order)


async def change_quantity(edit: OrderEdit, order: Order, item_id: str, quantity: int) -> None:
    """The edit's line gets `quantity` (its unit price stays what the order was charged)."""
    item = await _edit_line(edit, item_id)
    if item is None:
        raise NotFound(f"Line item with {item_id} was not found")
    change = await OrderItemChange.filter(order_edit_id=edit.id, line_item_id=item.id, deleted_at=None).first()
    item.quantity = quantity
    await item.save(update_fields=["quantity", "updated_at"])
    if item.original_item_id is not None:
        original = await LineItem.get_or_none(id=item.original_item_id)
        if original is not None and original.quantity == quantity:
            if change is not None:
                await change.delete()
        elif change is None:
            await OrderItemChange.create(
                type="item_update", order_edit_id=edit.id, original_line_item_id=item.original_item_id,
                line_item_id=item.id,
            )
    if item.variant_id is not None:
        await _check_stock(edit, order, await ProductVariant.get(id=item.variant_id))
    await refresh_adjustments(edit, order)


async def remove_line(edit: OrderEdit, order: Order, item_id: str) -> None:
    """Take the line out of the edit. A line that is not there (any more) is not an error, so
    the call may be repeated."""
    item = await _edit_line(edit, item_id)
    if item is None:
        return
    change = await OrderItemChange.filter(order_edit_id=edit.id, line_item_id=item.id, deleted_at=None).first()
    if change is not None:
        await change.delete()
    await _delete_lines([item.id])
    if item.original_item_id is not None:
        await OrderItemChange.create(
            type="item_remove", order_edit_id=edit.id, original_line_item_id=item.original_item_id,
        )
    await refresh_adjustments(edit, order)


async def undo_change(edit: OrderEdit, order: Order, change_id: str) -> None:
    """Take back one change: an added line goes, an updated line gets the order's quantity
    again, a removed line comes back as the order has it."""
    change = None
    if fits(OrderItemChange, change_id):
        change = await OrderItemChange.get_or_none(id=change_id, deleted_at=None)
    if change is None:
        raise NotFound(f"Order edit item change {change_id} was not found")
    if change.order_edit_id != edit.id:
        raise InvalidData(
            f"The item change you are trying to delete doesn't belong to the OrderEdit with id: {edit.id}."
        )
    await change.delete()
    original = await LineItem.get_or_none(id=change.original_line_item_id) if change.original_line_item_id else None
    if change.type == "item_add" and change.line_item_id:
        await _delete_lines([change.line_item_id])
    elif change.type == "item_update" and original is not None:
        await LineItem.filter(id=change.line_item_id, order_edit_id=edit.id).update(quantity=original.quantity)
    elif change.type == "item_remove" and original is not None:
        await _check_room(edit)
        await _clone(original, edit.id)
    await refresh_adjustments(edit, order)


async def delete_edit_lines(edit_id: str) -> None:
    await _delete_lines(list(await LineItem.filter(order_edit_id=edit_id).values_list("id", flat=True)))


async def _check_room(edit: OrderEdit) -> None:
    """Room for one more line in the edit (MAX_LINES_PER_ORDER)."""
    check_room(await LineItem.filter(order_edit_id=edit.id).count() + 1, "order edit")


async def _edit_line(edit: OrderEdit, item_id: str) -> LineItem | None:
    """The edit's line with that id; None when no line has it; InvalidData when another has."""
    item = await LineItem.get_or_none(id=item_id) if fits(LineItem, item_id) else None
    if item is not None and item.order_edit_id != edit.id:
        raise InvalidData(
            f"Invalid line item id {item_id} it does not belong to the same order edit {edit.order_id}."
        )
    return item


async def _delete_lines(item_ids: list[str]) -> None:
    if item_ids:
        await LineItemTaxLine.filter(item_id__in=item_ids).delete()
        await LineItemAdjustment.filter(item_id__in=item_ids).delete()
        await LineItem.filter(id__in=item_ids).delete()


async def _variant(variant_id: str) -> ProductVariant | None:
    if not fits(ProductVariant, variant_id):
        return None
    return await ProductVariant.filter(
        id=variant_id, deleted_at=None, product__deleted_at=None,
    ).select_related("product").prefetch_related(
        Prefetch("prices", queryset=MoneyAmount.filter(deleted_at=None))
    ).first()


# ---------------------------------------------------------------- stock

@dataclass(frozen=True)
class _Demand:
    """Extra units of a variant, shaped as the line reserve_inventory takes."""

    variant: ProductVariant
    quantity: int

    @property
    def variant_id(self) -> str:
        return self.variant.id


async def _deltas(order_id: str, edit_id: str, variant_ids: list[str] | None = None) -> dict[str, int]:
    """Per variant: the units the edit's lines ask for beyond what the order's lines hold."""
    narrowed = {"variant_id__in": variant_ids} if variant_ids is not None else {}
    edit_lines = LineItem.filter(order_edit_id=edit_id, variant_id__not_isnull=True, **narrowed)
    order_lines = LineItem.filter(order_id=order_id, variant_id__not_isnull=True, **narrowed)
    out: dict[str, int] = {}
    for variant_id, quantity in await edit_lines.values_list("variant_id", "quantity"):
        out[variant_id] = out.get(variant_id, 0) + quantity
    for variant_id, quantity in await order_lines.values_list("variant_id", "quantity"):
        out[variant_id] = out.get(variant_id, 0) - quantity
    return out


def _tracks_stock(variant: ProductVariant) -> bool:
    return variant.manage_inventory and not variant.allow_backorder


async def _check_stock(edit: OrderEdit, order: Order, variant: ProductVariant) -> None:
    extra = (await _deltas(order.id, edit.id, [variant.id])).get(variant.id, 0)
    if extra > 0 and _tracks_stock(variant) and variant.inventory_quantity < extra:
        raise NotAllowed(
            f"Variant with id: {variant.id} does not have the required inventory", code=INSUFFICIENT_INVENTORY,
        )


async def apply_stock(order_id: str, edit_id: str, sales_channel_id: str | None = None) -> None:
    """At confirmation: take the units the edit adds from stock (all or nothing, by conditional
    UPDATEs) and put back those it frees, for variants that track stock without back orders; with
    INVENTORY_LOCATIONS the lines' reservations follow them first (services/inventory/edit_stock.py)."""
    if short := await carry_reservations(order_id, edit_id, sales_channel_id):
        raise InsufficientInventory(short)
    deltas = {v: d for v, d in (await _deltas(order_id, edit_id)).items() if d != 0}
    if not deltas:
        return
    variants = {v.id: v for v in await ProductVariant.filter(id__in=list(deltas))}
    await reserve_inventory([_Demand(variants[v], d) for v, d in deltas.items() if d > 0 and v in variants])
    for variant_id, delta in deltas.items():
        if delta < 0 and variant_id in variants and _tracks_stock(variants[variant_id]):
            await ProductVariant.filter(id=variant_id).update(inventory_quantity=F("inventory_quantity") - delta)


# ---------------------------------------------------------------- discounts

async def refresh_adjustments(edit: OrderEdit, order: Order) -> None:
    """Spread the order's amount discount over the edit's lines again. Other adjustments (made by
    hand, without a discount) stay. A discount deleted since the order was placed can no longer
    be read: the lines then keep the shares they had."""
    discounts = list(await order.discounts.all().select_related("rule").order_by("created_at", "id"))
    discount = amount_discount(discounts)
    if discount is None:
        return
    try:
        offer = (await load_offers([discount.code]))[0]
    except NotFound:
        return
    if offer.id != discount.id:
        return  # the code now names another discount
    items = list(await LineItem.filter(order_edit_id=edit.id).select_related("variant__product").order_by(
        "created_at", "id"
    ))
    if not items:
        return
    await LineItemAdjustment.filter(item_id__in=[i.id for i in items], discount_id=discount.id).delete()
    await spread_discount(discount, offer, items, order.region_id)

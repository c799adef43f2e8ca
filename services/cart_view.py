"""A cart as every cart route answers it: the cart with its relations and its totals (reference
store §0.6, §3.1), read with a fixed number of statements whatever the number of lines
(DESIGN.md "Speed rules"): one per relation, none per line.

Taxes are computed live through the system provider when the region has automatic taxes, and
read from the stored tax lines otherwise. Discount amounts are the stored adjustment rows,
which exist only for the cart's amount discount (services/cart_discounts.py keeps it so).
"""

from __future__ import annotations

from dataclasses import dataclass

from models import (
    Cart, Country, Discount, FulfillmentProvider, GiftCard, LineItem, LineItemAdjustment, LineItemTaxLine,
    PaymentProvider, PaymentSession, ShippingMethod, ShippingMethodTaxLine, TaxRate,
)
from services.cart_locks import can_hold_id
from services.errors import NotFound
from services.taxes import TaxLine, load_overrides, option_lines, product_lines
from services.totals import CartTotals, GiftCardInput, ItemInput, ShippingInput, cart_totals

__all__ = ["CartView", "RegionParts", "load_cart_view", "amount_discount", "has_free_shipping", "compute_totals"]

CART_JOINS = ("region", "shipping_address", "billing_address", "sales_channel")


@dataclass
class RegionParts:
    countries: list[Country]
    payment_providers: list[PaymentProvider]
    fulfillment_providers: list[FulfillmentProvider]
    tax_rates: list[TaxRate]


@dataclass
class CartView:
    cart: Cart  # with region, shipping_address, billing_address and sales_channel
    items: list[LineItem]  # with variant, variant.product and product.profile
    adjustments: dict[str, list[LineItemAdjustment]]  # by item id
    item_tax_lines: dict[str, list[TaxLine | LineItemTaxLine]]  # computed, or stored when not automatic
    shipping_methods: list[ShippingMethod]  # with shipping_option
    method_tax_lines: dict[str, list[TaxLine | ShippingMethodTaxLine]]
    discounts: list[Discount]  # with rule
    gift_cards: list[GiftCard]
    region: RegionParts
    payment_sessions: list[PaymentSession]
    totals: CartTotals

    @property
    def payment_session(self) -> PaymentSession | None:
        return next((s for s in self.payment_sessions if s.is_selected), None)


def amount_discount(discounts: list[Discount]) -> Discount | None:
    """The cart's one discount that takes an amount off its lines (the others free shipping)."""
    return next((d for d in discounts if d.rule.type != "free_shipping"), None)


def has_free_shipping(discounts: list[Discount]) -> bool:
    return any(d.rule.type == "free_shipping" for d in discounts)


async def load_cart_view(cart_id: str, *, force_taxes: bool = False) -> CartView:
    """The live cart with every relation of the cart response and its totals. With
    `force_taxes` the provider's tax lines are computed even when the region's taxes are not
    automatic (calculate taxes, payment amounts and completion do so, reference §3.7)."""
    cart = None
    if can_hold_id(cart_id):
        cart = await Cart.filter(id=cart_id, deleted_at=None).select_related(*CART_JOINS).first()
    if cart is None:
        raise NotFound(f"Cart with {cart_id} was not found")
    region = cart.region
    items = await LineItem.filter(cart_id=cart.id).select_related("variant__product__profile").order_by(
        "created_at", "id"
    )
    methods = await ShippingMethod.filter(cart_id=cart.id).select_related("shipping_option").order_by(
        "created_at", "id"
    )
    discounts = await cart.discounts.filter(deleted_at=None).select_related("rule").order_by("created_at", "id")
    gift_cards = await cart.gift_cards.filter(deleted_at=None).order_by("created_at", "id")
    parts = RegionParts(
        countries=await Country.filter(region_id=region.id).order_by("id"),
        payment_providers=await PaymentProvider.filter(regions__id=region.id).order_by("id"),
        fulfillment_providers=await FulfillmentProvider.filter(regions__id=region.id).order_by("id"),
        tax_rates=await TaxRate.filter(region_id=region.id).order_by("created_at", "id"),
    )
    sessions = await PaymentSession.filter(cart_id=cart.id).order_by("created_at", "id")
    adjustments = await _adjustments(items, amount_discount(discounts))
    item_lines, method_lines = await _tax_lines(cart, items, methods, parts.tax_rates, force_taxes)
    totals = compute_totals(cart, items, adjustments, item_lines, methods, method_lines, discounts, gift_cards)
    return CartView(
        cart=cart, items=list(items), adjustments=adjustments, item_tax_lines=item_lines,
        shipping_methods=list(methods), method_tax_lines=method_lines, discounts=list(discounts),
        gift_cards=list(gift_cards), region=parts, payment_sessions=list(sessions), totals=totals,
    )


async def _adjustments(items: list[LineItem], discount: Discount | None) -> dict[str, list[LineItemAdjustment]]:
    # Without an amount discount the cart has no adjustment rows: no need to look.
    out: dict[str, list[LineItemAdjustment]] = {i.id: [] for i in items}
    if discount is None or not items:
        return out
    for adjustment in await LineItemAdjustment.filter(item_id__in=list(out)).order_by("created_at", "id"):
        out[adjustment.item_id].append(adjustment)
    return out


async def _tax_lines(
    cart: Cart, items: list[LineItem], methods: list[ShippingMethod], region_rates: list[TaxRate], force: bool,
):
    region = cart.region
    if not region.automatic_taxes and not force:
        return await _stored_tax_lines(items, methods)
    products = [i.variant.product for i in items if i.variant is not None and not i.is_return]
    overrides = await load_overrides(
        region_rates, [p.id for p in products], [p.type_id for p in products],
        [m.shipping_option_id for m in methods],
    )
    item_lines: dict[str, list] = {}
    for item in items:
        product = item.variant.product if item.variant is not None and not item.is_return else None
        item_lines[item.id] = product_lines(
            region, overrides, product.id if product else None, product.type_id if product else None
        )
    method_lines: dict[str, list] = {m.id: option_lines(region, overrides, m.shipping_option_id) for m in methods}
    return item_lines, method_lines


async def _stored_tax_lines(items: list[LineItem], methods: list[ShippingMethod]):
    item_lines: dict[str, list] = {i.id: [] for i in items}
    method_lines: dict[str, list] = {m.id: [] for m in methods}
    if item_lines:
        for line in await LineItemTaxLine.filter(item_id__in=list(item_lines)).order_by("created_at", "id"):
            item_lines[line.item_id].append(line)
    if method_lines:
        for line in await ShippingMethodTaxLine.filter(shipping_method_id__in=list(method_lines)).order_by(
            "created_at", "id"
        ):
            method_lines[line.shipping_method_id].append(line)
    return item_lines, method_lines


def compute_totals(
    cart: Cart, items: list[LineItem], adjustments: dict[str, list[LineItemAdjustment]], item_lines: dict,
    methods: list[ShippingMethod], method_lines: dict, discounts: list[Discount], gift_cards: list[GiftCard],
) -> CartTotals:
    """The totals of §3.1 through services.totals: a line's discount is its adjustments for the
    cart's amount discount (none when the line does not allow discounts)."""
    discount = amount_discount(discounts)

    def discount_of(item: LineItem) -> int:
        if not item.allow_discounts:
            return 0
        return sum(
            a.amount for a in adjustments.get(item.id, ())
            if a.discount_id is None or (discount is not None and a.discount_id == discount.id)
        )

    return cart_totals(
        [
            ItemInput(item.id, item.unit_price, item.quantity, tuple(t.rate for t in item_lines.get(item.id, ())),
                      discount_of(item))
            for item in items
        ],
        [ShippingInput(m.id, m.price, tuple(t.rate for t in method_lines.get(m.id, ()))) for m in methods],
        [GiftCardInput(g.id, g.balance, g.tax_rate) for g in gift_cards],
        free_shipping=has_free_shipping(discounts), gift_cards_taxable=cart.region.gift_cards_taxable,
    )

"""A cart as every cart route answers it: the cart with its relations and its totals, read in at
most four statements whatever the number of lines (services/carts/reads.py), the region's
countries, providers and tax rates coming
from services/regions/parts.py.

Taxes are computed live through the system provider when the region has automatic taxes or the
caller forces them, and read from the stored tax lines otherwise. Discount amounts are the stored
adjustment rows, which exist only for the cart's amount discount (services/carts/discounts.py
keeps it so).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models import (
    Cart, Discount, GiftCard, LineItem, LineItemAdjustment, LineItemTaxLine, PaymentSession, Region, ShippingMethod,
    ShippingMethodTaxLine,
)
from services.carts.reads import CartRows, amount_discount, has_free_shipping, read_cart
from services.core.errors import NotFound
from services.core.ids import fits
from services.regions.parts import RegionParts, region_parts
from services.regions.taxes import TaxLine, system_lines
from services.carts.totals import CartTotals, GiftCardInput, ItemInput, ShippingInput, cart_totals

__all__ = [
    "new_cart_view", "view_of", "stored_tax_lines",
    "CartView", "RegionParts", "load_cart_view", "amount_discount", "has_free_shipping", "compute_totals",
    "with_tax_lines", "with_forced_taxes", "check_amounts", "load_checked_view",
]


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


def _computes_taxes(region: Region, force: bool) -> bool:
    return force or region.automatic_taxes


async def load_cart_view(cart_id: str, *, force_taxes: bool = False) -> CartView:
    """The live cart with every relation of the cart response and its totals. With
    `force_taxes` the provider's tax lines are computed even when the region's taxes are not
    automatic (calculate taxes, payment amounts and completion do so)."""
    rows = None
    if fits(Cart, cart_id):
        rows = await read_cart(cart_id, stored_tax_lines=stored_tax_lines(force_taxes))
    if rows is None:
        raise NotFound(f"Cart with {cart_id} was not found")
    return await view_of(rows, force_taxes=force_taxes)


def stored_tax_lines(force_taxes: bool = False):
    """For `read_cart`: whether a cart's stored tax lines make its answer."""
    return lambda cart: not _computes_taxes(cart.region, force_taxes)


async def view_of(rows: CartRows, *, force_taxes: bool = False) -> CartView:
    """The view of rows read by `read_cart` (and changed in memory by a change that wrote the
    same): the region's parts and the totals; no statement while the region's parts are
    remembered."""
    cart = rows.cart
    parts = await region_parts(cart.region)
    if _computes_taxes(cart.region, force_taxes):
        item_lines, method_lines = system_lines(cart.region, parts.overrides, rows.items, rows.shipping_methods)
    else:
        item_lines, method_lines = rows.item_tax_lines, rows.method_tax_lines
    totals = compute_totals(cart, rows.items, rows.adjustments, item_lines, rows.shipping_methods, method_lines,
                            rows.discounts, rows.gift_cards)
    return CartView(
        cart=cart, items=rows.items, adjustments=rows.adjustments, item_tax_lines=item_lines,
        shipping_methods=rows.shipping_methods, method_tax_lines=method_lines, discounts=rows.discounts,
        gift_cards=rows.gift_cards, region=parts, payment_sessions=rows.payment_sessions, totals=totals,
    )


def new_cart_view(cart: Cart, parts: RegionParts) -> CartView:
    """The view of a cart just inserted without lines, built from what its creation holds (the
    cart with its region, addresses and channel set): nothing to read back."""
    totals = compute_totals(cart, [], {}, {}, [], {}, [], [])
    return CartView(
        cart=cart, items=[], adjustments={}, item_tax_lines={}, shipping_methods=[], method_tax_lines={},
        discounts=[], gift_cards=[], region=parts, payment_sessions=[], totals=totals,
    )


def with_tax_lines(view: CartView, item_lines: dict[str, list], method_lines: dict[str, list]) -> CartView:
    """The same cart with these tax lines (a tax provider's, say) and the totals they make."""
    item_lines = {i.id: list(item_lines.get(i.id, ())) for i in view.items}
    method_lines = {m.id: list(method_lines.get(m.id, ())) for m in view.shipping_methods}
    totals = compute_totals(view.cart, view.items, view.adjustments, item_lines, view.shipping_methods,
                            method_lines, view.discounts, view.gift_cards)
    return replace(view, item_tax_lines=item_lines, method_tax_lines=method_lines, totals=totals)


def with_forced_taxes(view: CartView) -> CartView:
    """The same cart with its taxes computed through the system provider whatever the region's
    setting, as a payment needs them; no statement, the rates are in the view."""
    if view.cart.region.automatic_taxes:
        return view
    region = view.cart.region
    return with_tax_lines(view, *system_lines(region, view.region.overrides, view.items, view.shipping_methods))


def check_amounts(view: CartView) -> CartView:
    """`view`, if its totals also fit the amount range with taxes computed as a payment computes
    them (no statement); services.carts.totals raises InvalidData otherwise."""
    with_forced_taxes(view)
    return view


async def load_checked_view(cart_id: str) -> CartView:
    """The cart as a change left it, read inside the change's transaction and checked: a change
    whose amounts leave the range rolls back, so no cart is kept that could not be read."""
    return check_amounts(await load_cart_view(cart_id))


def compute_totals(
    cart: Cart, items: list[LineItem], adjustments: dict[str, list[LineItemAdjustment]], item_lines: dict,
    methods: list[ShippingMethod], method_lines: dict, discounts: list[Discount], gift_cards: list[GiftCard],
) -> CartTotals:
    """The totals through services.carts.totals: a line's discount is its adjustments for the
    cart's amount discount (none when the line does not allow discounts)."""
    discount = amount_discount(discounts)

    def discount_of(item: LineItem) -> int:
        found = adjustments.get(item.id) if item.allow_discounts else None
        if not found:
            return 0
        return sum(
            a.amount for a in found if a.discount_id is None or (discount is not None and a.discount_id == discount.id)
        )

    return cart_totals(
        [
            ItemInput(item.id, item.unit_price, item.quantity, tuple(t.rate for t in item_lines.get(item.id, ())),
                      discount_of(item), item.includes_tax)
            for item in items
        ],
        [ShippingInput(m.id, m.price, tuple(t.rate for t in method_lines.get(m.id, ())), m.includes_tax)
         for m in methods],
        [GiftCardInput(g.id, g.balance, g.tax_rate) for g in gift_cards],
        free_shipping=has_free_shipping(discounts), gift_cards_taxable=cart.region.gift_cards_taxable,
    )

"""What a return gives back: each line's share for the units returned (its price, without the
tax a tax-inclusive price holds, less its per-unit share of the line's discount, plus the line's
taxes, each rounded as Medusa v1's `getLineItemRefund` rounds them:
services.carts.totals.line_refund), less what shipping the return back costs with its tax."""

from __future__ import annotations

from fractions import Fraction

from models import LineItem
from services.carts.totals import ItemInput, item_totals, line_refund as refund_of, round_half_up, tax_on
from services.orders.view import OrderView
from services.regions.taxes import rate_sum, tax_in_price

__all__ = ["line_refund", "items_refund", "shipping_cost"]


def line_refund(view: OrderView, item: LineItem, quantity: int) -> int:
    discount = sum(a.amount for a in view.adjustments[item.id]) if item.allow_discounts else 0
    legacy = view.order.tax_rate
    rates = (legacy,) if legacy is not None else tuple(t.rate for t in view.item_tax_lines[item.id])
    unit_discount = round_half_up(Fraction(discount, item.quantity)) if item.quantity else 0
    # The whole line refunded gives back at most what it paid (Medusa's can give a unit more).
    paid = item_totals(ItemInput(item.id, item.unit_price, item.quantity, rates, discount,
                                 includes_tax=item.includes_tax)).total if quantity == item.quantity else None
    return refund_of(ItemInput(item.id, item.unit_price, quantity, rates, includes_tax=item.includes_tax),
                     unit_discount, paid=paid)


def items_refund(view: OrderView, quantities: dict[str, int]) -> int:
    """The refund for `quantities` (by line id) of the order's lines."""
    lines = {i.id: i for i in view.items}
    return sum(line_refund(view, lines[item_id], n) for item_id, n in quantities.items())


def shipping_cost(price: int, rates: list[float], legacy_rate: float | None, includes_tax: bool = False) -> int:
    """A return shipment's price with its tax (the order's own rate when it has one), as Medusa's
    ReturnService counts it: an inclusive price first gives up the tax it holds, then each tax
    line's tax on the rest is added, rounded per line."""
    rates = [legacy_rate] if legacy_rate is not None else rates
    net = price - (tax_in_price(price, rate_sum(rates)) if includes_tax else 0)
    return net + sum(tax_on(net, r) for r in rates)

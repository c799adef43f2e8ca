"""What a return gives back (reference orders §8.2): each line's share for the units returned
(its price less its per-unit share of the line's discount, plus the line's taxes, each rounded as
Medusa v1 rounds them), less what shipping the return back costs with its tax."""

from __future__ import annotations

from fractions import Fraction

from models import LineItem
from services.carts.totals import round_half_up
from services.orders.view import OrderView

__all__ = ["line_refund", "items_refund", "shipping_cost"]


def line_refund(view: OrderView, item: LineItem, quantity: int) -> int:
    discount = Fraction(0)
    if item.allow_discounts:
        adjusted = sum(a.amount for a in view.adjustments[item.id])
        discount = Fraction(adjusted, item.quantity) * quantity
    subtotal = Fraction(item.unit_price * quantity) - discount
    legacy = view.order.tax_rate
    if legacy is not None:
        return round_half_up(subtotal * (1 + Fraction(str(legacy)) / 100))
    tax = sum(round_half_up(subtotal * Fraction(str(t.rate)) / 100) for t in view.item_tax_lines[item.id])
    return round_half_up(subtotal) + tax


def items_refund(view: OrderView, quantities: dict[str, int]) -> int:
    """The refund for `quantities` (by line id) of the order's lines."""
    lines = {i.id: i for i in view.items}
    return sum(line_refund(view, lines[item_id], n) for item_id, n in quantities.items())


def shipping_cost(price: int, rates: list[float], legacy_rate: float | None) -> int:
    """A return shipment's price with its tax (the order's own rate when it has one)."""
    if legacy_rate is not None:
        return price + round_half_up(Fraction(price) * Fraction(str(legacy_rate)) / 100)
    return price + sum(round_half_up(Fraction(price) * Fraction(str(r)) / 100) for r in rates)

"""Order totals, on top of the
cart arithmetic of services/carts/totals.py, from rows already loaded.

What differs from a cart: taxes always come from the tax lines stored at completion (or from
`order.tax_rate` for an order that has one); a line counts net of what was returned; gift cards
count by what the order actually took from them (its gift card transactions), and the tax those
cards carried is taken off `tax_total`; payments give `paid_total` and `refunded_total`.
Everything is integer minor units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from services.carts.totals import (
    ItemInput, ItemTotals, ShippingInput, ShippingTotals, check_totals, line_refund, line_sums, round_half_up, tax_on,
)

__all__ = ["TransactionInput", "PaymentInput", "OrderTotals", "order_totals", "TOTAL_KEYS"]

# The order's top-level totals, in Medusa v1's order of keys.
TOTAL_KEYS = (
    "shipping_total", "discount_total", "tax_total", "refunded_total", "total", "subtotal", "paid_total",
    "refundable_amount", "gift_card_total", "gift_card_tax_total", "item_tax_total", "shipping_tax_total",
)


class TransactionInput(NamedTuple):  # a named tuple, as services/carts/totals.py ItemInput
    """What one gift card gave to the order."""

    amount: int
    tax_rate: float | None  # percent, as recorded with the transaction
    is_taxable: bool | None  # None: recorded before taxability was; see _gift_card_totals
    card_tax_rate: float | None = None  # the card's own rate, for those old transactions


class PaymentInput(NamedTuple):
    amount: int
    amount_refunded: int = 0
    canceled: bool = False


@dataclass(frozen=True)
class OrderTotals:
    subtotal: int
    discount_total: int
    shipping_total: int
    item_tax_total: int
    shipping_tax_total: int
    tax_total: int  # item and shipping tax, less the tax the gift cards carried
    gift_card_total: int
    gift_card_tax_total: int
    total: int
    paid_total: int
    refunded_total: int
    refundable_amount: int
    items: dict[str, ItemTotals] = field(default_factory=dict)
    refundable: dict[str, int] = field(default_factory=dict)  # by item id: what a refund of the line may give
    shipping_methods: dict[str, ShippingTotals] = field(default_factory=dict)


def order_totals(
    items: list[ItemInput], shipping: list[ShippingInput], transactions: list[TransactionInput],
    payments: list[PaymentInput], *, free_shipping: bool = False, gift_cards_taxable: bool = True,
    region_tax_rate: float = 0, ordered: dict[str, int] | None = None,
) -> OrderTotals:
    """`items` carry their quantity net of returns and their stored tax rates; `ordered` is each
    line's quantity as ordered (by item id; the net quantity when absent), over which a line's
    discount is shared per unit for `refundable`, rounded per unit as Medusa v1 shares it."""
    ordered = ordered or {}
    by_item, by_method, subtotal, discount_total, item_tax, shipping_total, shipping_tax = line_sums(
        items, shipping, free_shipping)
    gift_card_total, gift_card_tax = _gift_card_totals(transactions, gift_cards_taxable, region_tax_rate)
    tax_total = item_tax + shipping_tax - gift_card_tax
    paid = refunded = 0
    for p in payments:
        if not p.canceled:  # a canceled payment paid nothing (Medusa v1 still adds it in)
            paid += p.amount
        refunded += p.amount_refunded or 0  # refunds are kept on the payments
    refundable = {}
    for i in items:
        # What a line paid, where its total shows it: a line none of whose units came back (a
        # returned line's total counts its discount whole over the units left).
        whole = ordered.get(i.id, i.quantity) == i.quantity
        refundable[i.id] = line_refund(i, _unit_discount(i, ordered.get(i.id)),
                                       paid=by_item[i.id].total if whole else None)
    return check_totals(OrderTotals(
        subtotal=subtotal, discount_total=discount_total, shipping_total=shipping_total,
        item_tax_total=item_tax, shipping_tax_total=shipping_tax, tax_total=tax_total,
        gift_card_total=gift_card_total, gift_card_tax_total=gift_card_tax,
        total=subtotal + shipping_total + tax_total - (gift_card_total + discount_total),
        paid_total=paid, refunded_total=refunded, refundable_amount=paid - refunded,
        items=by_item, refundable=refundable, shipping_methods=by_method,
    ))


def _unit_discount(item: ItemInput, ordered: int | None) -> int:
    quantity = ordered or item.quantity
    if not item.discount or not quantity:
        return 0
    if quantity > 0:  # floor(discount / quantity + 1/2) in integers
        return (2 * item.discount + quantity) // (2 * quantity)
    return round_half_up(Fraction(item.discount, quantity))


def _gift_card_totals(
    transactions: list[TransactionInput], gift_cards_taxable: bool, region_tax_rate: float,
) -> tuple[int, int]:
    """Σ amounts, and their tax rounded as it accumulates (Medusa v1's order). A transaction
    recorded without `is_taxable` predates taxable gift cards: it is taxed at its card's rate, or
    the region's when the region's gift cards are taxable."""
    total, tax = 0, 0
    for t in transactions:
        rate = t.tax_rate or 0
        if t.is_taxable is None and (gift_cards_taxable or t.card_tax_rate):
            rate = t.card_tax_rate if t.card_tax_rate is not None else region_tax_rate
        total += t.amount
        tax += tax_on(t.amount, rate)  # round(tax + amount × rate), tax being whole: in integers
    return total, tax

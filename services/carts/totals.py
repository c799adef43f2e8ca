"""Cart and order totals, in one place, from rows already loaded.

Everything is integer minor units. Tax rates are percentages (`25` or `12.5`) and are applied
with exact fractions, rounding half up like JavaScript's `Math.round`, once per tax line as
Medusa v1 does. Discount amounts come from `services.discounts.engine.allocate`, already whole
units that add up to the discount, so `discount_total` needs no rounding of its own.

Tax-inclusive prices (`includes_tax` on a line or a shipping method, Medusa 1.20's
`tax_inclusive_pricing`) follow Medusa's tax calculation strategy and totals service: a line's
unit price holds `round(unit_price × r / (1 + r))` of tax (r the sum of its rates); the rest,
times the quantity, less the line's discount, is taxed per tax line as an exclusive price is;
the line's `subtotal` is its price less that original tax, so an undiscounted inclusive line's
`total` is exactly its price. A method's price holds `round(Σ price × rᵢ / (1 + rᵢ))` of tax;
its `subtotal` is the price less that tax and its `total` the price. An inclusive line without
tax lines holds no tax (Medusa answers a subtotal of 0 for it).

Every amount computed here must fit a signed 64-bit integer (the BIGINT columns; the widest
integer orjson writes): one that does not is InvalidData naming it. A change computes its totals
before it commits (services/carts/view.py `load_checked_view`), so it rolls back instead of leaving a
cart or order that could no longer be read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from fractions import Fraction
from functools import lru_cache
from math import floor
from operator import attrgetter
from typing import NamedTuple

from services.core.errors import InvalidData
from services.core.money import MAX_AMOUNT, MIN_AMOUNT
from services.regions.taxes import rate_sum, tax_in_price

__all__ = [
    "check_amount", "check_totals", "ItemInput", "ShippingInput", "GiftCardInput", "ItemTotals",
    "ShippingTotals", "CartTotals",
    "round_half_up", "tax_on", "tax_in_price", "item_totals", "shipping_totals", "cart_totals", "line_refund",
    "LineSums", "line_sums",
]


def check_amount(name: str, amount: int) -> int:
    """`amount`, if it fits a signed 64-bit integer; else InvalidData naming it."""
    if amount > MAX_AMOUNT:
        raise InvalidData(f"{name} must not be greater than {MAX_AMOUNT}")
    if amount < MIN_AMOUNT:
        raise InvalidData(f"{name} must not be less than {MIN_AMOUNT}")
    return amount


def check_totals(totals, prefix: str = ""):
    """The totals (a dataclass of amounts), if each fits; else InvalidData naming the first that does not."""
    amounts = _amounts_of(type(totals))
    if amounts is not None:  # the usual case, all in range: two comparisons, not one a field
        try:
            if MIN_AMOUNT <= min(values := amounts(totals)) and max(values) <= MAX_AMOUNT:
                return totals
        except TypeError:  # a value that is not a number: the field by field check below
            pass
    for name, value in vars(totals).items():
        # type() first: an export checks millions of these, and almost every value is a plain int
        if (type(value) is int or isinstance(value, int)) and not MIN_AMOUNT <= value <= MAX_AMOUNT:
            check_amount(f"{prefix}{name}", value)
    return totals


_AMOUNTS: dict[type, Callable | None] = {}


def _amounts_of(kind: type) -> Callable | None:
    """A getter of the dataclass's amount fields (those typed `int`), as a tuple; None for a type
    with fewer than two."""
    if kind not in _AMOUNTS:
        names = [f.name for f in fields(kind) if f.type in ("int", int)] if is_dataclass(kind) else []
        _AMOUNTS[kind] = attrgetter(*names) if len(names) > 1 else None
    return _AMOUNTS[kind]


def round_half_up(value: Fraction) -> int:
    return floor(value + Fraction(1, 2))


@lru_cache(maxsize=1024)
def _percent(rate: float) -> Fraction:
    """The rate's decimal text taken exactly (12.5, not the float nearest to it), over 100."""
    return Fraction(str(rate)) / 100


def tax_on(amount: int, rate: float) -> int:
    """`amount × rate / 100`, rounded half up."""
    if not rate or not amount:
        return 0
    percent = _percent(rate)  # floor(x + 1/2) in integers: floor((2·amount·n + d) / 2d)
    return (2 * amount * percent.numerator + percent.denominator) // (2 * percent.denominator)


# The inputs are named tuples: as immutable as frozen dataclasses, built at a third of their cost
# (an order's totals build one a line, a method, a payment, and an export reads thousands).
class ItemInput(NamedTuple):
    id: str
    unit_price: int
    quantity: int
    tax_rates: tuple[float, ...] = ()  # one per tax line, percent
    discount: int = 0  # this line's share of the cart's amount discount
    includes_tax: bool = False  # unit_price already holds the tax of tax_rates


class ShippingInput(NamedTuple):
    id: str
    price: int
    tax_rates: tuple[float, ...] = ()
    includes_tax: bool = False  # price already holds the tax of tax_rates


@dataclass(frozen=True)
class GiftCardInput:
    id: str
    balance: int
    tax_rate: float | None = None


@dataclass(frozen=True)
class ItemTotals:
    subtotal: int
    discount_total: int
    tax_total: int
    original_tax_total: int
    total: int
    original_total: int


@dataclass(frozen=True)
class ShippingTotals:
    subtotal: int
    tax_total: int
    original_tax_total: int
    total: int
    original_total: int


@dataclass(frozen=True)
class CartTotals:
    subtotal: int
    discount_total: int
    item_tax_total: int
    shipping_total: int
    shipping_tax_total: int
    tax_total: int
    gift_card_total: int
    gift_card_tax_total: int
    total: int
    items: dict[str, ItemTotals] = field(default_factory=dict)
    shipping_methods: dict[str, ShippingTotals] = field(default_factory=dict)


# A line's and a method's figures depend only on their amounts and rates, which repeat from
# order to order (a catalogue's prices, quantities of one or two): they are kept by those values,
# so that reading thousands of orders (the order export) computes each combination once. What is
# kept is frozen; an amount out of range raises and is not kept.
_SAME_FIGURES = 4096


def item_totals(item: ItemInput) -> ItemTotals:
    return _item_totals(item.unit_price, item.quantity, tuple(item.tax_rates), item.discount, bool(item.includes_tax))


@lru_cache(maxsize=_SAME_FIGURES)
def _item_totals(unit_price: int, quantity: int, tax_rates: tuple, line_discount: int, includes_tax: bool) -> ItemTotals:
    price = check_amount("unit_price × quantity", unit_price * quantity)
    held = tax_in_price(unit_price, rate_sum(tax_rates)) if includes_tax else 0
    taxable = check_amount("unit_price × quantity", (unit_price - held) * quantity)
    tax = original_tax = 0
    for rate in tax_rates:
        original_tax += tax_on(taxable, rate)
    subtotal = price - original_tax if includes_tax else price
    # A discount never exceeds the line; on a credit line (a swap cart's returned units, below
    # zero) it is a credit too, never beyond the line's.
    discount = min(line_discount, subtotal) if subtotal >= 0 else max(line_discount, subtotal)
    for rate in tax_rates:
        tax += tax_on(taxable - discount, rate)
    return check_totals(ItemTotals(
        subtotal=subtotal, discount_total=discount, tax_total=tax, original_tax_total=original_tax,
        total=subtotal - discount + tax, original_total=subtotal + original_tax,
    ), "item ")


def shipping_totals(method: ShippingInput, free_shipping: bool = False) -> ShippingTotals:
    """Medusa v1 rounds a method's tax once over all its tax lines (items round per line)."""
    return _shipping_totals(method.price, tuple(method.tax_rates), bool(method.includes_tax), bool(free_shipping))


@lru_cache(maxsize=_SAME_FIGURES)
def _shipping_totals(price: int, rates: tuple, includes_tax: bool, free_shipping: bool) -> ShippingTotals:
    if includes_tax:
        held = sum((price * _percent(r) / (1 + _percent(r)) for r in rates), Fraction(0))
        tax = round_half_up(held)
        subtotal, total = price - tax, price
    else:
        # One rate: its tax rounded once is `tax_on`'s, in integers (the Fraction sum costs ten times more).
        tax = tax_on(price, rates[0]) if len(rates) == 1 else round_half_up(
            sum((price * _percent(r) for r in rates), Fraction(0)))
        subtotal, total = price, price + tax
    if free_shipping:
        totals = ShippingTotals(subtotal=0, tax_total=0, original_tax_total=tax, total=0, original_total=total)
    else:
        totals = ShippingTotals(subtotal=subtotal, tax_total=tax, original_tax_total=tax, total=total,
                                original_total=total)
    return check_totals(totals, "shipping method ")


class LineSums(NamedTuple):
    """Each line's and method's figures (by id) and their sums: what a cart's and an order's totals share."""

    items: dict[str, ItemTotals]
    shipping_methods: dict[str, ShippingTotals]
    subtotal: int
    discount_total: int
    item_tax_total: int
    shipping_total: int
    shipping_tax_total: int


def line_sums(items: list[ItemInput], shipping: list[ShippingInput] = (), free_shipping: bool = False) -> LineSums:
    by_item = {i.id: item_totals(i) for i in items}
    by_method = {m.id: shipping_totals(m, free_shipping) for m in shipping}
    subtotal = discount_total = item_tax = shipping_total = shipping_tax = 0
    for t in by_item.values():  # one pass, not a sum a figure
        subtotal += t.subtotal
        discount_total += t.discount_total
        item_tax += t.tax_total
    for m in by_method.values():
        shipping_total += m.subtotal
        shipping_tax += m.tax_total
    return LineSums(by_item, by_method, subtotal, discount_total, item_tax, shipping_total, shipping_tax)


def cart_totals(
    items: list[ItemInput], shipping: list[ShippingInput] = (), gift_cards: list[GiftCardInput] = (), *,
    free_shipping: bool = False, gift_cards_taxable: bool = True,
) -> CartTotals:
    by_item, by_method, subtotal, discount_total, item_tax, shipping_total, shipping_tax = line_sums(
        items, shipping, free_shipping)
    tax_total = item_tax + shipping_tax
    if gift_cards_taxable:
        gift_cardable = subtotal + shipping_total - discount_total
    else:
        gift_cardable = subtotal + shipping_total + tax_total - discount_total
    gift_card_total = min(max(gift_cardable, 0), sum(g.balance for g in gift_cards))
    gift_card_tax = _gift_card_tax(gift_cards, gift_cardable)
    return check_totals(CartTotals(
        subtotal=subtotal, discount_total=discount_total, item_tax_total=item_tax, shipping_total=shipping_total,
        shipping_tax_total=shipping_tax, tax_total=tax_total, gift_card_total=gift_card_total,
        gift_card_tax_total=gift_card_tax,
        total=subtotal + shipping_total + tax_total - (gift_card_total + discount_total + gift_card_tax),
        items=by_item, shipping_methods=by_method,
    ))


def _gift_card_tax(gift_cards: list[GiftCardInput], gift_cardable: int) -> int:
    """The tax the cards' value carries: cards in cart order, each covering what is left."""
    remaining, tax = gift_cardable, 0
    for card in gift_cards:
        taxable = min(remaining, card.balance)
        if taxable > 0 and card.tax_rate is not None:
            tax += tax_on(taxable, card.tax_rate)
            remaining -= taxable
    return tax


def line_refund(item: ItemInput, unit_discount: int, paid: int | None = None) -> int:
    """What a refund of `item.quantity` units of a line gives back (Medusa's `getLineItemRefund`):
    the units' price without the tax an inclusive price holds, less `unit_discount` (minor units,
    the line's discount over its ordered quantity, rounded) per unit, plus each tax line's tax on
    that, rounded per line."""
    return _line_refund(item.unit_price, item.quantity, tuple(item.tax_rates), bool(item.includes_tax),
                        unit_discount, paid)


@lru_cache(maxsize=_SAME_FIGURES)
def _line_refund(unit_price: int, quantity: int, tax_rates: tuple, includes_tax: bool, unit_discount: int,
                 paid: int | None) -> int:
    held = tax_in_price(unit_price, rate_sum(tax_rates)) if includes_tax else 0
    subtotal = (unit_price - held - unit_discount) * quantity
    refund = subtotal + sum(tax_on(subtotal, rate) for rate in tax_rates)
    # Never more than the units paid (`paid`: the line's total over them, when the caller knows
    # it). Medusa does not cap it: a tax-inclusive line's price less the tax it holds, taxed
    # again, can come to a unit more than the price (its UK Mug, 2 × 1250, total 2500, answers
    # refundable 2501; docs/medusaref.md).
    return refund if paid is None else min(refund, paid)

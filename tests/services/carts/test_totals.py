"""Cart totals: integer minor units, Medusa v1's rounding, with the
reference's worked examples to the unit."""

from __future__ import annotations

from fractions import Fraction

import pytest

from services.discounts.engine import Line, Offer, allocate
from services.carts.totals import (
    GiftCardInput, ItemInput, ShippingInput, cart_totals, item_totals, line_refund, round_half_up, shipping_totals,
    tax_on,
)


@pytest.mark.parametrize("amount, rate, expected", [
    (1000, 25, 250), (1400, 25, 350), (5, 10, 1), (4, 12.5, 1), (3, 12.5, 0), (50000, 19, 9500), (0, 25, 0),
    (333, 33.3, 111),
])
def test_tax_on_rounds_half_up_with_the_rate_taken_exactly(amount, rate, expected):
    assert tax_on(amount, rate) == expected


def test_round_half_up_matches_javascript_math_round():
    assert [round_half_up(Fraction(n, 2)) for n in (-3, -1, 1, 3, 5)] == [-1, 0, 1, 2, 3]


def test_eu_cart_with_ten_percent_off_and_25_percent_tax():
    # 1000 + 2 × 200 = 1400; 10 % → 140 spread 100 / 40; tax 25 % of the discounted lines.
    lines = [Line("a", 1000, 1, product_id="p"), Line("b", 200, 2, product_id="p")]
    parts = allocate(Offer(id="d", code="TEN", type="percentage", value=10), lines)
    items = [ItemInput(ln.id, ln.unit_price, ln.quantity, (25,), parts.get(ln.id, 0)) for ln in lines]
    totals = cart_totals(items, [ShippingInput("sm", 1000, (25,))])
    assert (totals.subtotal, totals.discount_total) == (1400, 140)
    assert (totals.item_tax_total, totals.shipping_tax_total, totals.tax_total) == (315, 250, 565)
    assert totals.total == 1400 - 140 + 1000 + 565
    assert totals.items["a"].total == 1000 - 100 + 225 and totals.items["a"].original_total == 1250


def test_na_cart_without_tax_is_subtotal_plus_shipping():
    totals = cart_totals([ItemInput("a", 1950, 2)], [ShippingInput("sm", 1000)])
    assert (totals.subtotal, totals.shipping_total, totals.tax_total, totals.total) == (3900, 1000, 0, 4900)


def test_gift_card_worked_example_of_the_reference():
    # Region 19 %, item 50 000, gift card 30 000 with tax_rate 19, gift cards taxable.
    totals = cart_totals([ItemInput("a", 50000, 1, (19,))], gift_cards=[GiftCardInput("g", 30000, 19)])
    assert (totals.item_tax_total, totals.gift_card_total, totals.gift_card_tax_total) == (9500, 30000, 5700)
    assert (totals.tax_total, totals.total) == (9500, 23800)


def test_gift_cards_never_cover_more_than_the_cart_and_untaxed_cards_leave_room():
    totals = cart_totals([ItemInput("a", 1000, 1)], gift_cards=[GiftCardInput("g1", 600), GiftCardInput("g2", 600, 10)])
    assert totals.gift_card_total == 1000 and totals.total == 1000 - 1000 - 60
    not_taxable = cart_totals([ItemInput("a", 1000, 1, (25,))], gift_cards=[GiftCardInput("g", 5000)],
                              gift_cards_taxable=False)
    assert not_taxable.gift_card_total == 1250 and not_taxable.total == 0


def test_free_shipping_zeroes_shipping_but_keeps_the_original():
    method = shipping_totals(ShippingInput("sm", 1000, (25,)), free_shipping=True)
    assert (method.subtotal, method.tax_total, method.total) == (0, 0, 0)
    assert (method.original_tax_total, method.original_total) == (250, 1250)


def test_shipping_tax_is_rounded_once_over_its_tax_lines():
    # 101 × 2.5 % twice: per line 3 + 3 = 6, once over both round(5.05) = 5.
    assert shipping_totals(ShippingInput("sm", 101, (2.5, 2.5))).tax_total == 5
    assert item_totals(ItemInput("a", 101, 1, (2.5, 2.5))).tax_total == 6


def test_a_discount_never_takes_a_line_below_zero():
    t = item_totals(ItemInput("a", 100, 1, (25,), discount=500))
    assert (t.discount_total, t.tax_total, t.total) == (100, 0, 0)


# Tax-inclusive prices (Medusa 1.20's tax_inclusive_pricing), figures as Medusa's tax calculation
# strategy and totals service compute them, beside the same prices taken as tax-exclusive.

@pytest.mark.parametrize("item, expected", [
    # (subtotal, tax_total, original_tax_total, total, original_total)
    (ItemInput("a", 1200, 1, (20,)), (1200, 240, 240, 1440, 1440)),
    (ItemInput("a", 1200, 1, (20,), includes_tax=True), (1000, 200, 200, 1200, 1200)),
    # 500 holds round(83.33) = 83; (500 - 83) × 3 = 1251 taxed round(250.2) = 250; 1500 - 250.
    (ItemInput("a", 500, 3, (20,)), (1500, 300, 300, 1800, 1800)),
    (ItemInput("a", 500, 3, (20,), includes_tax=True), (1250, 250, 250, 1500, 1500)),
    # Two tax lines: 1000 holds round(1000 × .15 / 1.15) = 130; 870 taxed 87 + round(43.5) = 44.
    (ItemInput("a", 1000, 1, (10, 5), includes_tax=True), (869, 131, 131, 1000, 1000)),
    # No tax line: the price holds nothing (Medusa answers a subtotal of 0 there).
    (ItemInput("a", 1000, 2, (), includes_tax=True), (2000, 0, 0, 2000, 2000)),
])
def test_an_inclusive_line_totals_to_its_price_and_its_subtotal_is_without_tax(item, expected):
    t = item_totals(item)
    assert (t.subtotal, t.tax_total, t.original_tax_total, t.total, t.original_total) == expected


def test_a_discount_on_an_inclusive_line_is_taken_before_its_tax():
    # 10 % of the 1250 without tax is 125; tax on 1251 - 125 = 1126 is round(225.2) = 225.
    lines = [Line("a", 500, 3, product_id="p", held_tax=item_totals(
        ItemInput("a", 500, 3, (20,), includes_tax=True)).original_tax_total)]
    parts = allocate(Offer(id="d", code="TEN", type="percentage", value=10), lines)
    t = item_totals(ItemInput("a", 500, 3, (20,), parts["a"], includes_tax=True))
    assert (t.subtotal, t.discount_total, t.tax_total, t.total, t.original_total) == (1250, 125, 225, 1350, 1500)


@pytest.mark.parametrize("method, free, expected", [
    # (subtotal, tax_total, original_tax_total, total, original_total)
    (ShippingInput("sm", 500, (20,)), False, (500, 100, 100, 600, 600)),
    (ShippingInput("sm", 500, (20,), includes_tax=True), False, (417, 83, 83, 500, 500)),
    # Two lines, rounded once: 1000 × .1 / 1.1 + 1000 × .05 / 1.05 = 138.53 → 139.
    (ShippingInput("sm", 1000, (10, 5), includes_tax=True), False, (861, 139, 139, 1000, 1000)),
    (ShippingInput("sm", 500, (20,)), True, (0, 0, 100, 0, 600)),
    (ShippingInput("sm", 500, (20,), includes_tax=True), True, (0, 0, 83, 0, 500)),
])
def test_an_inclusive_shipping_method_totals_to_its_price(method, free, expected):
    t = shipping_totals(method, free_shipping=free)
    assert (t.subtotal, t.tax_total, t.original_tax_total, t.total, t.original_total) == expected


@pytest.mark.parametrize("includes_tax, expected", [
    # (subtotal, shipping_total, tax_total, gift_card_total, gift_card_tax_total, total)
    (False, (1200, 500, 340, 300, 60, 1680)),
    (True, (1000, 417, 283, 300, 60, 1340)),
])
def test_cart_with_inclusive_prices_and_a_taxable_gift_card(includes_tax, expected):
    totals = cart_totals([ItemInput("a", 1200, 1, (20,), includes_tax=includes_tax)],
                         [ShippingInput("sm", 500, (20,), includes_tax=includes_tax)],
                         [GiftCardInput("g", 300, 20)])
    assert (totals.subtotal, totals.shipping_total, totals.tax_total, totals.gift_card_total,
            totals.gift_card_tax_total, totals.total) == expected


@pytest.mark.parametrize("item, unit_discount, expected", [
    # Medusa's getLineItemRefund: (price - tax held - unit discount) × quantity, plus its taxes.
    (ItemInput("a", 500, 3, (20,), includes_tax=True), 42, (500 - 83 - 42) * 3 + 225),
    (ItemInput("a", 500, 3, (20,)), 42, (500 - 42) * 3 + round(1374 * .2)),
    # 12 % of 3 × 1005 is 362, round(362 / 3) = 121 a unit: 2652, a cent below 3015 - 362.
    (ItemInput("a", 1005, 3), 121, 2652),
])
def test_line_refund_rounds_the_discount_per_unit(item, unit_discount, expected):
    assert line_refund(item, unit_discount) == expected

"""Order totals: pure arithmetic, no database."""

from __future__ import annotations

from services.orders.totals import PaymentInput, TransactionInput, order_totals
from services.carts.totals import ItemInput, ShippingInput


def test_a_taxable_gift_card_lowers_tax_total_by_the_tax_it_carried():
    # Given Medusa's worked example: one 500.00 line at 19 %, a 300.00 gift card at 19 %
    totals = order_totals(
        [ItemInput("item", 50_000, 1, (19,))], [], [TransactionInput(30_000, 19, True)], [PaymentInput(23_800)],
    )
    # I expect its numbers to the unit
    assert (totals.item_tax_total, totals.gift_card_total, totals.gift_card_tax_total) == (9_500, 30_000, 5_700)
    assert (totals.tax_total, totals.total) == (3_800, 23_800)
    assert (totals.paid_total, totals.refundable_amount) == (23_800, 23_800)


def test_lines_count_net_of_returns_and_refunds_come_off_the_refundable_amount():
    totals = order_totals(
        [ItemInput("item", 1_000, 3 - 1, (25,), discount=200)], [ShippingInput("sm", 500, (25,))], [],
        [PaymentInput(3_000, amount_refunded=1_000), PaymentInput(999, canceled=True)],
    )
    assert (totals.subtotal, totals.discount_total) == (2_000, 200)
    assert (totals.item_tax_total, totals.shipping_tax_total) == (450, 125)
    assert totals.refundable == {"item": 2_250}
    assert (totals.paid_total, totals.refunded_total, totals.refundable_amount) == (3_000, 1_000, 2_000)


def test_gift_card_tax_rounds_as_it_accumulates_and_old_transactions_use_the_card_or_region_rate():
    # Given two 3.33 transactions at 12.5 % (0.41625 each) and one recorded before taxability was
    transactions = [TransactionInput(333, 12.5, True), TransactionInput(333, 12.5, True),
                    TransactionInput(100, None, None, card_tax_rate=None)]
    totals = order_totals([ItemInput("item", 10_000, 1)], [], transactions, [], region_tax_rate=20)
    # I expect round(41.625) = 42, round(42 + 41.625) = 84, then the old one at the region's 20 %: 104
    assert (totals.gift_card_total, totals.gift_card_tax_total) == (766, 104)
    untaxed = order_totals([ItemInput("item", 10_000, 1)], [], transactions[2:], [], gift_cards_taxable=False)
    assert untaxed.gift_card_tax_total == 0


def test_free_shipping_zeroes_the_shipping_but_keeps_its_original_total():
    totals = order_totals([ItemInput("item", 1_000, 1)], [ShippingInput("sm", 800, (10,))], [], [], free_shipping=True)
    method = totals.shipping_methods["sm"]
    assert (totals.shipping_total, totals.total, method.total, method.original_total) == (0, 1_000, 0, 880)

"""The move's money check: our services' figures against the source's own."""

from models import Discount, DiscountRule, GiftCard, LineItem, LineItemAdjustment, Order, Payment, Refund
from services.migration.medusa_v1.money import check_money
from services.migration.medusa_v1.source import open_source
from tests.services.migration.conftest import source_fetch


async def test_the_fixture_moves_with_every_figure_matching(imported):
    assert imported.money_checked and imported.money_differences == []
    assert any(line.startswith("money check: the total, paid and refunded amounts of 223 orders") for line in imported.lines())


async def test_a_difference_in_paid_refunded_or_a_balance_is_listed(imported, medusa_source):
    # Our refunded total is what the payments record as refunded; Medusa's, its refund rows.
    refund = await Refund.all().order_by("id").first()
    refunded = sum(await Refund.filter(order_id=refund.order_id).values_list("amount", flat=True))
    payment = await Payment.filter(order_id=refund.order_id, canceled_at=None).order_by("id").first()
    await Payment.filter(id=payment.id).update(amount_refunded=payment.amount_refunded + 1)
    card = await GiftCard.filter(balance__gt=0).order_by("id").first()
    await GiftCard.filter(id=card.id).update(balance=card.balance - 100)
    display_id = (await Order.get(id=refund.order_id)).display_id

    async with open_source(medusa_source) as source:
        differences, checked = await check_money(source)

    assert sorted(differences) == sorted([
        f"order {refund.order_id} (#{display_id}): refunded {refunded} in Medusa, {refunded + 1} here",
        f"gift card {card.id}: balance {card.balance} in Medusa, {card.balance - 100} here",
    ])


async def test_the_checks_totals_are_the_order_views(imported):
    # The check reads lean rows in bulk; its totals must be those the order routes answer. The
    # fixture's orders have no discount: two get some here (the second's lines count only the
    # first amount discount's adjustments), a third its own tax rate, a fourth a returned line.
    from services.orders.totals_reads import load_totals
    from services.orders.view import load_views, read_orders

    ids = list(await Order.all().order_by("id").values_list("id", flat=True))
    with_lines = [o for o in ids if await LineItem.filter(order_id=o).exists()]
    percent = await Discount.filter(rule__type="percentage").order_by("id").first()
    free = await Discount.create(code="FREESHIP", starts_at=percent.starts_at, rule=await DiscountRule.create(
        type="free_shipping", value=0))
    first, second, fixed, returned = [await Order.get(id=o) for o in with_lines[:4]]
    await first.discounts.add(free)
    await second.discounts.add(percent, free)
    for order, discount in ((first, None), (second, percent), (second, free)):
        for item in await LineItem.filter(order_id=order.id):
            await LineItemAdjustment.create(item=item, description="discount", discount=discount, amount=31)
    await Order.filter(id=fixed.id).update(tax_rate=12.5)
    item = await LineItem.filter(order_id=returned.id).order_by("id").first()
    await LineItem.filter(id=item.id).update(returned_quantity=1)

    views = await load_views(await read_orders(ids))
    lean = await load_totals([*ids, "order_missing"])
    assert sorted(lean) == ids
    assert {v.order.id: v.totals for v in views} == lean
    assert lean[second.id].discount_total == views[ids.index(second.id)].totals.discount_total > 0
    assert sum(1 for v in views if v.gift_card_transactions)


async def test_a_wrong_total_is_listed(imported, medusa_source):
    from services.migration.medusa_v1.money import ORDER_FIGURES

    figures = await source_fetch(medusa_source, ORDER_FIGURES.format(where=""))
    row = next(r for r in figures if r["untouched"] and r["paid"])
    item = await LineItem.filter(order_id=row["id"]).order_by("id").first()
    await LineItem.filter(id=item.id).update(unit_price=item.unit_price + 7)

    async with open_source(medusa_source) as source:
        differences, _ = await check_money(source)

    assert len(differences) == 1
    assert differences[0].startswith(f"order {row['id']} (#{row['display_id']}): total {row['paid']} in Medusa, ")
    assert not differences[0].endswith(f" {row['paid']} here")

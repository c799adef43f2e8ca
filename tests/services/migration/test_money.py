"""The move's money check: our services' figures against the source's own."""

from models import GiftCard, Order, Payment, Refund
from services.migration.medusa_v1.money import check_money
from services.migration.medusa_v1.source import open_source


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

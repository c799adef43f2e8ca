"""The one-statement loader of the rows below a page of orders reads what reading them relation
by relation reads, with the same instances set on the same owners, on both backends."""

from __future__ import annotations

from models import (
    GiftCardTransaction, LineItem, LineItemAdjustment, LineItemTaxLine, Order, Payment, ShippingMethod,
    ShippingMethodTaxLine,
)
from services.orders.order_rows import load_order_rows
from tests.cart_factories import discount, gift_card, update_cart
from tests.checkout_factories import complete, ready_cart


def _ids(rows) -> list[str]:
    return [r.id for r in rows]


async def _placed(client, region: str, items: dict[str, int], **changes) -> str:
    cart = await ready_cart(client, region, items)
    if changes:
        cart = await update_cart(client, cart, **changes)
        r = await client.post(f"/store/carts/{cart['id']}/payment-sessions", json={})
        assert r.status_code == 200, r.text
    r = await complete(client, cart)
    assert r.status_code == 200 and r.json()["type"] == "order", r.text
    return r.json()["data"]["id"]


async def test_the_rows_below_orders_are_those_read_relation_by_relation(client, seeded):
    # Given orders with a percentage discount (adjustments), a gift card (a transaction), taxes
    # (EU tax lines) and several lines, and one plain
    await discount("TENOFF")
    card = await gift_card(500)
    ids = [
        await _placed(client, "NA", {"variant_cap_black": 2, "variant_t_shirt_s": 1}, discounts=[{"code": "TENOFF"}]),
        await _placed(client, "NA", {"variant_cap_black": 1}, gift_cards=[{"code": card.code}]),
        await _placed(client, "EU", {"variant_cap_black": 1, "variant_t_shirt_s": 3}),
    ]
    orders = list(await Order.filter(id__in=ids).order_by("created_at"))
    # When they are read in one statement, lines in detail
    rows = await load_order_rows(orders, line_detail=True)
    # I expect every relation as the ORM reads it, in creation order
    order_rows = {o.id: o for o in await Order.filter(id__in=ids).prefetch_related("discounts__rule", "gift_cards")}
    for order in orders:
        expected = order_rows[order.id]
        assert _ids(order.discounts) == _ids(sorted(expected.discounts, key=lambda d: (d.created_at, d.id)))
        assert [d.rule.id for d in order.discounts] == [d.rule.id for d in expected.discounts]
        assert _ids(order.gift_cards) == _ids(expected.gift_cards)
        items = await LineItem.filter(order_id=order.id).select_related("variant__product__profile").order_by(
            "created_at", "id")
        assert _ids(rows.items[order.id]) == _ids(items)
        for mine, theirs in zip(rows.items[order.id], items):
            assert mine.variant.id == theirs.variant.id and mine.variant.product.id == theirs.variant.product.id
            assert mine.variant.product.profile.id == theirs.variant.product.profile.id
            assert (mine.unit_price, mine.quantity, mine.metadata) == (theirs.unit_price, theirs.quantity, theirs.metadata)
            assert _ids(rows.adjustments[mine.id]) == _ids(
                await LineItemAdjustment.filter(item_id=mine.id).order_by("created_at", "id"))
            assert [(t.id, t.rate) for t in rows.item_tax_lines[mine.id]] == [
                (t.id, t.rate) for t in await LineItemTaxLine.filter(item_id=mine.id).order_by("created_at", "id")]
        methods = await ShippingMethod.filter(order_id=order.id).select_related("shipping_option").order_by(
            "created_at", "id")
        assert [(m.id, m.shipping_option.id, m.price) for m in rows.shipping_methods[order.id]] == [
            (m.id, m.shipping_option.id, m.price) for m in methods]
        for method in methods:
            assert _ids(rows.method_tax_lines[method.id]) == _ids(
                await ShippingMethodTaxLine.filter(shipping_method_id=method.id).order_by("created_at", "id"))
        transactions = await GiftCardTransaction.filter(order_id=order.id).select_related("gift_card")
        assert [(t.id, t.amount, t.gift_card.code) for t in rows.transactions[order.id]] == [
            (t.id, t.amount, t.gift_card.code) for t in transactions]
        assert [(p.id, p.amount) for p in rows.payments[order.id]] == [
            (p.id, p.amount) for p in await Payment.filter(order_id=order.id).order_by("created_at", "id")]
    # and the kinds of rows this story has are all there
    assert sum(len(v) for v in rows.adjustments.values()) >= 2
    assert sum(len(v) for v in rows.transactions.values()) == 1
    assert sum(len(v) for v in rows.item_tax_lines.values()) >= 5

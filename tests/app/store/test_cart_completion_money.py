"""Completion charges what the shopper saw, or nothing: a gift-card balance or a discount use lost
to another order refuses the completion (4xx, the key free to retry once the cart is right) and
cancels the payment authorized for it; the order is never silently re-priced."""

from __future__ import annotations

import asyncio

import pytest

import services.checkout.stages
from models import Cart, Discount, GiftCard, GiftCardTransaction, IdempotencyKey, Order, Payment
from tests.cart_factories import discount, gift_card, update_cart
from tests.checkout_factories import complete, gateway, pay_with, paying_with, ready_cart  # noqa: F401 (fixtures)
from tests.conftest import requires_postgres


async def cart_with_card(client, card: GiftCard, provider_id: str = "manual") -> dict:
    """A NA cart of 3000 (a t-shirt and flat-rate shipping) shown as 2000 with `card` (1000)."""
    cart = await ready_cart(client, items={"variant_t_shirt_s": 1}, pay=False)
    cart = await update_cart(client, cart, gift_cards=[{"code": card.code}])
    cart = await pay_with(client, cart, provider_id)
    assert (cart["subtotal"] + cart["shipping_total"], cart["gift_card_total"], cart["total"]) == (3000, 1000, 2000)
    return cart


async def spend(card: GiftCard) -> None:
    """Another order takes the whole balance of `card` (what its placement does)."""
    await GiftCard.filter(id=card.id).update(balance=0, is_disabled=True)


async def no_payment_left_open() -> bool:
    return not await Payment.filter(order_id=None, canceled_at=None).exists()


async def test_a_gift_card_spent_before_completion_refuses_it_and_the_same_key_works_once_removed(client, seeded):
    # Given a cart shown as 2000 with a gift card, whose balance another order then spends
    card = await gift_card(1000)
    cart = await cart_with_card(client, card)
    await spend(card)
    # When it is completed
    r = await complete(client, cart, "card-key")
    # I expect a refusal the shopper can act on, nothing charged and nothing placed
    assert r.status_code == 400, r.text
    assert r.json()["type"] == "not_allowed" and r.json()["code"] == "gift_card_balance_changed"
    assert card.code in r.json()["message"]
    assert r.headers["idempotency-key"] == "card-key"
    assert await Order.all().count() == 0
    assert await no_payment_left_open()
    # and once the card is removed (the cart now shows 3000), the same key places the order at 3000
    cart = await update_cart(client, cart, gift_cards=[])
    assert cart["total"] == 3000
    r = await complete(client, cart, "card-key")
    assert r.status_code == 200, r.text
    order = r.json()["data"]
    assert (order["total"], order["gift_card_total"]) == (3000, 0)
    assert [p["amount"] for p in order["payments"]] == [3000]


@pytest.fixture
def card_spent_before_placing(monkeypatch):
    """Between authorization and placement another order spends the gift card named `card`."""
    real = services.checkout.stages.next_display_id
    target: dict[str, GiftCard] = {}

    async def spent_meanwhile():
        if "card" in target:
            await spend(target.pop("card"))
        return await real()

    monkeypatch.setattr(services.checkout.stages, "next_display_id", spent_meanwhile)
    return target


async def test_a_gift_card_spent_after_authorization_cancels_the_payment_instead_of_charging_more(
    client, seeded, card_spent_before_placing, gateway
):
    # Given a cart shown as 2000 with a gift card, spent elsewhere once its 2000 is authorized
    # through a gateway (without one, authorizing and placing are one transaction: no "between")
    card = await gift_card(1000)
    cart = await cart_with_card(client, card, gateway.id)
    card_spent_before_placing["card"] = card
    # When it is completed
    r = await complete(client, cart, "late-card")
    # I expect a refusal, the 2000 authorization canceled, no second authorization, no order
    assert r.status_code == 400, r.text
    assert r.json()["code"] == "gift_card_balance_changed"
    payments = await Payment.filter(cart_id=cart["id"])
    assert [(p.amount, p.canceled_at is not None) for p in payments] == [(2000, True)]
    assert await Order.all().count() == 0
    row = await Cart.get(id=cart["id"])
    assert row.completed_at is None and row.payment_id is None and row.payment_authorized_at is None
    # and the same key goes through once the shopper has removed the spent card
    await update_cart(client, cart, gift_cards=[])
    r = await complete(client, cart, "late-card")
    assert r.status_code == 200, r.text
    assert [p["amount"] for p in r.json()["data"]["payments"]] == [3000]


async def test_a_discount_used_up_at_placement_cancels_its_payment_and_the_key_works_once_it_is_removed(
    client, seeded, gateway
):
    # Given a cart with a one-use code, paid through a gateway, whose use another order takes
    await discount("ONCE", "percentage", 10, usage_limit=1)
    cart = await ready_cart(client, pay=False)
    cart = await update_cart(client, cart, discounts=[{"code": "ONCE"}])
    cart = await pay_with(client, cart, gateway.id)
    await Discount.filter(code="ONCE").update(usage_count=1)
    # When it is completed
    r = await complete(client, cart, "once-key")
    # I expect the refusal, and the payment authorized for it canceled through the provider
    assert r.status_code == 400, r.text
    (payment,) = await Payment.filter(cart_id=cart["id"])
    assert payment.canceled_at is not None and payment.data == {"status": "canceled"}
    assert (await Cart.get(id=cart["id"])).payment_id is None
    assert not await IdempotencyKey.filter(idempotency_key="once-key", recovery_point="finished").exists()
    # and with the code removed the same key places the order at the new price
    r = await client.delete(f"/store/carts/{cart['id']}/discounts/ONCE")
    assert r.status_code == 200, r.text
    total = r.json()["cart"]["total"]
    r = await complete(client, cart, "once-key")
    assert r.status_code == 200, r.text
    assert [p["amount"] for p in r.json()["data"]["payments"]] == [total]
    assert await no_payment_left_open()


@requires_postgres()
async def test_ten_carts_racing_for_one_gift_card_place_one_order_at_the_price_shown(client, seeded):
    # Given ten carts of 3000, each shown as 2000 with the same gift card worth 1000
    card = await gift_card(1000)
    carts = [await cart_with_card(client, card) for _ in range(10)]
    # When they are all completed at once
    answers = await asyncio.gather(*(complete(client, c, f"card-race-{n}") for n, c in enumerate(carts)))
    # I expect one order charged 2000 with the card's 1000, and nine refusals the shopper can act on
    placed = [r for r in answers if r.status_code == 200]
    refused = [r for r in answers if 400 <= r.status_code < 500]
    assert (len(placed), len(refused)) == (1, 9), [(r.status_code, r.text) for r in answers]
    order = placed[0].json()["data"]
    assert (order["total"], order["gift_card_total"]) == (2000, 1000)
    assert [p["amount"] for p in order["payments"]] == [2000]
    for r in refused:
        assert r.json()["type"] == "not_allowed" and r.json()["code"] == "gift_card_balance_changed", r.text
    # every placed payment is what its cart showed, none is left authorized without an order
    assert await Order.all().count() == 1
    assert [p.amount for p in await Payment.filter(order_id__not_isnull=True)] == [2000]
    assert await no_payment_left_open()
    assert await Payment.filter(amount=3000).count() == 0
    assert (await GiftCard.get(id=card.id)).balance == 0
    assert await GiftCardTransaction.all().count() == 1


@requires_postgres()
async def test_twenty_carts_racing_for_a_one_use_code_place_one_order_and_cancel_the_other_payments(
    client, seeded, paying_with
):
    # Given twenty carts with the same one-use code, paid with `manual` or through a gateway
    provider_id = paying_with
    await discount("ONCE", "percentage", 10, usage_limit=1)
    carts = []
    for _ in range(20):
        cart = await ready_cart(client, pay=False)
        cart = await update_cart(client, cart, discounts=[{"code": "ONCE"}])
        carts.append(await pay_with(client, cart, provider_id))
    # When they are all completed at once
    answers = await asyncio.gather(*(complete(client, c, f"code-race-{n}") for n, c in enumerate(carts)))
    # I expect one order, nineteen refusals, and the nineteen payments canceled (a gateway's), or
    # never written (manual's: authorized in the refused placing's own transaction)
    statuses = [r.status_code for r in answers]
    assert statuses.count(200) == 1 and sum(400 <= s < 500 for s in statuses) == 19, [r.text for r in answers]
    assert all("used maximum allowed times" in r.json()["message"] for r in answers if r.status_code != 200)
    assert await Order.all().count() == 1
    assert (await Discount.get(code="ONCE")).usage_count == 1
    assert await Payment.filter(canceled_at__not_isnull=True, order_id=None).count() == (
        0 if provider_id == "manual" else 19)
    assert await no_payment_left_open()

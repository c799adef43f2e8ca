"""Refunds over HTTP: money back from captured payments, never more
than was captured whatever the concurrency, under an Idempotency-Key like capture's."""

from __future__ import annotations

import asyncio

import pytest

from models import Order, Payment, Refund
from services.core.errors import PaymentError
from services.payments import _PROVIDERS as PROVIDERS
from services.payments import register
from tests.app.admin.test_order_operations import CountingProvider, placed, post, stock
from tests.conftest import requires_postgres


class RefundingProvider(CountingProvider):
    """Counts refunds too, and keeps the idempotency key of each."""

    def __init__(self):
        super().__init__()
        self.keys: list[str] = []

    async def refund(self, data: dict, amount: int, idempotency_key: str) -> dict:
        self.keys.append(idempotency_key)
        return await self._call("refund", {**data, "refunded": data.get("refunded", 0) + amount})


def registered(provider):
    """`provider` registered for the test's length (a fixture's body)."""
    register(provider)
    yield provider
    PROVIDERS.pop(provider.id, None)


@pytest.fixture
def gateway():
    yield from registered(RefundingProvider())


async def captured(client, admin_headers, gateway=None, amount: int | None = None) -> Order:
    """An order whose payment was captured; with `amount`, a payment of that amount."""
    order = await placed(client, gateway)
    if amount is not None:
        await Payment.filter(order_id=order.id).update(amount=amount)
    r = await post(client, admin_headers, order.id, "/capture")
    assert r.status_code == 200, r.text
    return order


def refund(amount, reason="other", **more) -> dict:
    return {"json": {"amount": amount, "reason": reason, **more}}


async def test_a_part_then_the_rest_is_refunded_and_the_order_says_so(client, admin_headers, seeded):
    order = await captured(client, admin_headers, amount=1000)
    r = await post(client, admin_headers, order.id, "/refund", **refund(300, "discount", note="Late delivery"))
    assert r.status_code == 200, r.text
    body = r.json()["order"]
    assert (body["payment_status"], body["refunded_total"], body["refundable_amount"]) == (
        "partially_refunded", 300, 700)
    [row] = body["refunds"]
    assert (row["amount"], row["reason"], row["note"], row["order_id"]) == (300, "discount", "Late delivery", order.id)
    body = (await post(client, admin_headers, order.id, "/refund", **refund(700))).json()["order"]
    assert (body["payment_status"], body["refunded_total"], body["refundable_amount"]) == ("refunded", 1000, 0)
    assert body["payments"][0]["amount_refunded"] == 1000


async def test_more_than_was_captured_is_refused_and_nothing_is_written(client, admin_headers, seeded):
    order = await captured(client, admin_headers, amount=1000)
    await post(client, admin_headers, order.id, "/refund", **refund(600))
    r = await post(client, admin_headers, order.id, "/refund", **refund(401))
    assert (r.status_code, r.json()) == (
        400, {"type": "not_allowed", "message": "Cannot refund more than the original order amount"})
    assert await Refund.filter(order_id=order.id).count() == 1
    assert (await Payment.get(order_id=order.id)).amount_refunded == 600


async def test_an_uncaptured_or_canceled_order_cannot_be_refunded(client, admin_headers, seeded):
    order = await placed(client)
    r = await post(client, admin_headers, order.id, "/refund", **refund(100))
    assert (r.status_code, r.json()["message"]) == (400, "Refund amount is greater that the refundable amount")
    assert (await post(client, admin_headers, order.id, "/cancel")).status_code == 200
    r = await post(client, admin_headers, order.id, "/refund", **refund(100))
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed", "message": "A canceled order cannot be refunded"})
    assert not await Refund.exists()


async def test_a_refunded_order_cannot_be_canceled_and_its_stock_stays_out(client, admin_headers, seeded):
    # Medusa v1 refuses to cancel an order with any refund (Medusa's cancel, step 2), kept: cancel would also
    # "cancel" captured payments at the gateway, and the stock of goods that may already be gone.
    order = await captured(client, admin_headers, amount=1000)
    before = await stock()
    await post(client, admin_headers, order.id, "/refund", **refund(1000))
    r = await post(client, admin_headers, order.id, "/cancel")
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed", "message": "Order with refund(s) cannot be canceled"})
    got = await Order.get(id=order.id)
    assert (got.status, got.payment_status, await stock()) == ("pending", "refunded", before)


@pytest.mark.parametrize("body,message", [
    ({"reason": "other"}, "amount"),
    ({"amount": "100", "reason": "other"}, "amount"),
    ({"amount": 10.5, "reason": "other"}, "amount"),
    ({"amount": 0, "reason": "other"}, "amount must be a positive number"),
    ({"amount": -5, "reason": "other"}, "amount must be a positive number"),
    ({"amount": 10**20, "reason": "other"}, "amount"),
    ({"amount": 100}, "reason"),
    ({"amount": 100, "reason": "because"}, "reason must be one of the following values: "
                                           "discount, return, swap, claim, other"),
    ({"amount": 100, "reason": "other", "note": 5}, "note"),
    ({"amount": 100, "reason": "other", "extra": 1}, "extra"),
])
async def test_bad_input_is_a_400_and_nothing_moves(client, admin_headers, seeded, body, message):
    order = await captured(client, admin_headers, amount=1000)
    r = await post(client, admin_headers, order.id, "/refund", json=body)
    assert r.status_code == 400 and r.json()["type"] == "invalid_data", r.text
    assert message in r.json()["message"]
    assert not await Refund.exists() and (await Payment.get(order_id=order.id)).amount_refunded == 0


async def test_an_unknown_order_is_a_404(client, admin_headers, seeded):
    r = await post(client, admin_headers, "order_nope", "/refund", **refund(100))
    assert (r.status_code, r.json()["message"]) == (404, "Order with id: order_nope was not found")


async def test_a_refund_replays_for_its_key_and_reaches_the_gateway_once(client, admin_headers, seeded, gateway):
    order = await captured(client, admin_headers, gateway, amount=1000)
    headers = {**admin_headers, "Idempotency-Key": "refund-1"}
    first = await post(client, headers, order.id, "/refund", **refund(250))
    again = await post(client, headers, order.id, "/refund", **refund(250))
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()
    other = await post(client, headers, order.id, "/refund", **refund(300))
    assert (other.status_code, other.json()["code"]) == (422, "idempotency_key_reused")
    assert gateway.calls.count("refund") == 1 and (await Payment.get(order_id=order.id)).amount_refunded == 250


async def test_a_gateway_failing_changes_nothing_and_the_retry_refunds_once_with_the_same_key(
    client, admin_headers, seeded, gateway,
):
    order = await captured(client, admin_headers, gateway, amount=1000)
    gateway.fail.append(ConnectionError("gateway timeout"))
    headers = {**admin_headers, "Idempotency-Key": "refund-retry"}
    r = await post(client, headers, order.id, "/refund", **refund(400))
    assert (r.status_code, r.json()["code"]) == (503, "provider_unavailable")
    assert not await Refund.exists() and (await Payment.get(order_id=order.id)).amount_refunded == 0
    r = await post(client, headers, order.id, "/refund", **refund(400))
    assert r.status_code == 200 and r.json()["order"]["refunded_total"] == 400
    # The gateway was asked twice with one key, so a gateway that did refund the first time does not again
    assert gateway.calls.count("refund") == 2 and len(set(gateway.keys)) == 1
    # A refusal is the gateway's message in a 4xx, and changes nothing
    gateway.fail.append(PaymentError("refund window closed"))
    r = await post(client, admin_headers, order.id, "/refund", **refund(100))
    assert (r.status_code, r.json()["message"]) == (422, "refund window closed")
    assert (await Payment.get(order_id=order.id)).amount_refunded == 400


@requires_postgres()
async def test_ten_concurrent_refunds_of_100_refund_exactly_the_1000_captured(client, admin_headers, seeded):
    order = await captured(client, admin_headers, amount=1000)
    answers = await asyncio.gather(*(post(client, admin_headers, order.id, "/refund", **refund(100))
                                     for _ in range(10)))
    assert [a.status_code for a in answers] == [200] * 10
    assert (await Payment.get(order_id=order.id)).amount_refunded == 1000
    assert await Refund.filter(order_id=order.id).count() == 10
    assert (await Order.get(id=order.id)).payment_status == "refunded"


@requires_postgres()
async def test_ten_concurrent_refunds_of_200_give_five_successes_and_five_refusals(client, admin_headers, seeded):
    order = await captured(client, admin_headers, amount=1000)
    answers = await asyncio.gather(*(post(client, admin_headers, order.id, "/refund", **refund(200))
                                     for _ in range(10)))
    assert sorted(a.status_code for a in answers) == [200] * 5 + [400] * 5
    assert (await Payment.get(order_id=order.id)).amount_refunded == 1000
    assert await Refund.filter(order_id=order.id).count() == 5


@requires_postgres()
async def test_ten_concurrent_refunds_under_one_key_refund_once(client, admin_headers, seeded):
    order = await captured(client, admin_headers, amount=1000)
    headers = {**admin_headers, "Idempotency-Key": "double-click"}
    answers = await asyncio.gather(*(post(client, headers, order.id, "/refund", **refund(300))
                                     for _ in range(10)))
    assert {a.status_code for a in answers} <= {200, 409} and 200 in {a.status_code for a in answers}
    assert (await Payment.get(order_id=order.id)).amount_refunded == 300
    assert await Refund.filter(order_id=order.id).count() == 1

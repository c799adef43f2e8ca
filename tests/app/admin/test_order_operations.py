"""Admin order operations over HTTP: update, capture, cancel, archive, complete, with the
idempotency and provider-failure contracts."""

from __future__ import annotations

import asyncio

import pytest

from models import LineItem, Order, Payment, ProductVariant
from services.checkout.completion import hand_over_stalled
from services.core.errors import PaymentError
from services.payments import manual, register
from services.payments import _PROVIDERS as PROVIDERS
from tests.checkout_factories import complete, ready_cart
from tests.conftest import requires_postgres
from tests.order_factories import place_order

ROUTES = ("", "/capture", "/cancel", "/archive", "/complete")


class CountingProvider(manual.ManualProvider):
    """The manual provider, counting its calls; `fail` makes the next calls raise (transient:
    a plain exception; refused: a domain error)."""

    id = "counting"

    def __init__(self):
        self.calls: list[str] = []
        self.fail: list[Exception] = []

    async def _call(self, name: str, answer: dict) -> dict:
        self.calls.append(name)
        await asyncio.sleep(0.01)  # a gateway takes a while: racing requests overlap here
        if self.fail:
            raise self.fail.pop(0)
        return answer

    async def capture(self, data: dict) -> dict:
        return await self._call("capture", {"status": "captured"})

    async def cancel(self, data: dict) -> dict:
        return await self._call("cancel", {"status": "canceled"})


@pytest.fixture
def provider():
    counting = CountingProvider()
    register(counting)
    yield counting
    PROVIDERS.pop(counting.id, None)


async def placed(client, provider=None, items=None) -> Order:
    """An order placed through cart completion (manual payment, authorized)."""
    cart = await ready_cart(client, items=items or {"variant_cap_black": 2})
    r = await complete(client, cart)
    assert r.status_code == 200, r.text
    order = await Order.get(id=r.json()["data"]["id"])
    if provider is not None:
        await Payment.filter(order_id=order.id).update(provider_id=provider.id)
    return order


async def post(client, headers, order_id: str, route: str = "", **kwargs):
    return await client.post(f"/admin/orders/{order_id}{route}", headers=headers, **kwargs)


async def stock(variant_id: str = "variant_cap_black") -> int:
    return (await ProductVariant.get(id=variant_id)).inventory_quantity


# ---------------------------------------------------------------- authentication and look-up


async def test_every_order_operation_needs_a_signed_in_user_and_an_existing_order(client, admin_headers, seeded):
    order = await place_order(client)
    for route in ROUTES:
        r = await client.post(f"/admin/orders/{order.id}{route}", json={})
        assert (r.status_code, r.json()["type"]) == (401, "unauthorized"), route
        r = await post(client, admin_headers, "order_missing", route, json={})
        assert r.status_code == 404, route
        assert r.json() == {"type": "not_found", "message": "Order with id order_missing was not found"}, route


# ---------------------------------------------------------------- update


async def test_update_changes_email_part_of_an_address_metadata_and_no_notification(client, admin_headers, seeded):
    # Given an order shipped to Springfield
    order = await place_order(client, metadata={"keep": 1})
    # When the back office changes the email, the shipping city and the metadata
    r = await post(client, admin_headers, order.id, json={
        "email": "new@example.com", "shipping_address": {"city": "Boston"}, "metadata": {"gift": True},
        "no_notification": False,
    })
    # I expect those changed and the rest of the address kept
    assert r.status_code == 200, r.text
    body = r.json()["order"]
    assert (body["email"], body["metadata"], body["no_notification"]) == (
        "new@example.com", {"keep": 1, "gift": True}, False,
    )
    assert (body["shipping_address"]["city"], body["shipping_address"]["first_name"]) == ("Boston", "Jane")


async def test_update_refuses_a_foreign_country_a_bad_email_unknown_keys_and_canceled_orders(
    client, admin_headers, seeded,
):
    order = await place_order(client)
    cases = [
        ({"shipping_address": {"country_code": "DE"}}, "Shipping country must be in the order region"),
        ({"email": "nope"}, "email must be an email"),
        ({"items": []}, "property items should not exist"),
    ]
    for body, message in cases:
        r = await post(client, admin_headers, order.id, json=body)
        assert (r.status_code, r.json()["type"], r.json()["message"]) == (400, "invalid_data", message), body
    await Order.filter(id=order.id).update(status="canceled")
    r = await post(client, admin_headers, order.id, json={"email": "a@example.com"})
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed", "message": "A canceled order cannot be updated"})


# ---------------------------------------------------------------- capture


async def test_capture_takes_the_payment_of_an_order_placed_through_a_cart(client, admin_headers, seeded):
    # Given an order placed through checkout, its payment authorized
    order = await placed(client)
    # When the back office captures it
    r = await post(client, admin_headers, order.id, "/capture")
    # I expect the payment captured at the provider and the order captured
    assert r.status_code == 200, r.text
    assert r.headers["Idempotency-Key"]
    body = r.json()["order"]
    assert body["payment_status"] == "captured"
    assert body["payments"][0]["captured_at"] and body["payments"][0]["data"] == {"status": "captured"}
    assert body["paid_total"] == body["total"] > 0


async def test_a_capture_replays_for_its_key_and_never_calls_the_provider_twice(
    client, admin_headers, seeded, provider,
):
    order, other = await placed(client, provider), await placed(client, provider)
    key = {"Idempotency-Key": "capture-1"}
    first = await post(client, {**admin_headers, **key}, order.id, "/capture")
    again = await post(client, {**admin_headers, **key}, order.id, "/capture")
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()
    # The same key for another order is another request
    r = await post(client, {**admin_headers, **key}, other.id, "/capture")
    assert (r.status_code, r.json()["code"]) == (422, "idempotency_key_reused")
    # A second capture without the key changes nothing and calls nobody
    r = await post(client, admin_headers, order.id, "/capture")
    assert r.status_code == 200 and r.json()["order"]["payment_status"] == "captured"
    assert provider.calls == ["capture"]


async def test_a_canceled_order_cannot_capture(client, admin_headers, seeded):
    order = await placed(client)
    assert (await post(client, admin_headers, order.id, "/cancel")).status_code == 200
    r = await post(client, admin_headers, order.id, "/capture")
    assert (r.status_code, r.json()["type"], r.json()["message"]) == (
        400, "not_allowed", "A canceled order cannot capture payment",
    )


async def test_a_capture_failing_at_the_provider_changes_nothing_and_its_retry_finishes(
    client, admin_headers, seeded, provider,
):
    # Given a provider that fails once for a transient reason
    order = await placed(client, provider)
    provider.fail.append(ConnectionError("gateway timeout"))
    headers = {**admin_headers, "Idempotency-Key": "capture-retry"}
    # When the back office captures
    r = await post(client, headers, order.id, "/capture")
    # I expect a 503 to retry, and the order as it was
    assert r.status_code == 503, r.text
    assert (r.json()["code"], r.headers["Retry-After"], r.headers["Idempotency-Key"]) == (
        "provider_unavailable", "2", "capture-retry",
    )
    assert (await Order.get(id=order.id)).payment_status == "awaiting"
    assert (await Payment.get(order_id=order.id)).captured_at is None
    assert await hand_over_stalled(grace_seconds=0) == 0  # not a cart completion for the retry actor
    # and the retry with the same key finishes it
    r = await post(client, headers, order.id, "/capture")
    assert r.status_code == 200 and r.json()["order"]["payment_status"] == "captured"
    assert provider.calls == ["capture", "capture"]


async def test_a_capture_the_provider_refuses_leaves_the_order_requiring_action(
    client, admin_headers, seeded, provider,
):
    order = await placed(client, provider)
    provider.fail.append(PaymentError("card expired"))
    r = await post(client, admin_headers, order.id, "/capture")
    assert r.status_code == 200 and r.json()["order"]["payment_status"] == "requires_action"
    r = await post(client, admin_headers, order.id, "/capture")
    assert r.json()["order"]["payment_status"] == "captured"


@requires_postgres()
async def test_ten_concurrent_captures_capture_once(client, admin_headers, seeded, provider):
    order = await placed(client, provider)
    answers = await asyncio.gather(*(post(client, admin_headers, order.id, "/capture") for _ in range(10)))
    assert [a.status_code for a in answers] == [200] * 10
    assert provider.calls == ["capture"]
    assert (await Order.get(id=order.id)).payment_status == "captured"


@requires_postgres()
async def test_ten_concurrent_captures_under_one_key_capture_once_and_answer_the_same(
    client, admin_headers, seeded, provider,
):
    order = await placed(client, provider)
    headers = {**admin_headers, "Idempotency-Key": "one-click"}
    answers = await asyncio.gather(*(post(client, headers, order.id, "/capture") for _ in range(10)))
    assert {a.status_code for a in answers} <= {200, 409}
    assert all(a.headers.get("Retry-After") for a in answers if a.status_code == 409)
    assert provider.calls == ["capture"]


# ---------------------------------------------------------------- cancel


async def test_cancel_gives_the_stock_back_once_and_cancels_the_payment(client, admin_headers, seeded):
    # Given an unfulfilled order of two caps placed through checkout
    before = await stock()
    order = await placed(client)
    assert await stock() == before - 2
    # When the back office cancels it, twice
    r = await post(client, admin_headers, order.id, "/cancel")
    again = await post(client, admin_headers, order.id, "/cancel")
    # I expect the order and its payment canceled, and the two caps back once
    assert r.status_code == again.status_code == 200, r.text
    body = r.json()["order"]
    assert (body["status"], body["payment_status"], body["fulfillment_status"]) == ("canceled",) * 3
    assert body["canceled_at"] and body["payments"][0]["canceled_at"]
    assert body["payments"][0]["data"] == {"status": "canceled"} and body["paid_total"] == 0
    assert await stock() == before
    assert again.json()["order"]["canceled_at"] == body["canceled_at"]


async def test_cancel_is_refused_after_fulfilment_or_capture(client, admin_headers, seeded):
    fulfilled = await placed(client)
    await LineItem.filter(order_id=fulfilled.id).update(fulfilled_quantity=1)
    r = await post(client, admin_headers, fulfilled.id, "/cancel")
    assert (r.status_code, r.json()) == (400, {
        "type": "not_allowed", "message": "All fulfillments must be canceled before canceling an order",
    })
    captured = await placed(client)
    assert (await post(client, admin_headers, captured.id, "/capture")).status_code == 200
    r = await post(client, admin_headers, captured.id, "/cancel")
    assert (r.status_code, r.json()["message"]) == (
        400, "An order with captured payment cannot be canceled: refund the payment first",
    )
    assert (await Order.get(id=captured.id)).status == "pending"


async def test_a_cancel_failing_at_the_provider_is_finished_by_its_retry(client, admin_headers, seeded, provider):
    # Given an order whose provider fails once
    before = await stock()
    order = await placed(client, provider)
    provider.fail.append(ConnectionError("gateway timeout"))
    # When the back office cancels it
    r = await post(client, admin_headers, order.id, "/cancel")
    # I expect a 503, the order canceled with its stock back, its payment still to cancel
    assert (r.status_code, r.json()["code"]) == (503, "provider_unavailable")
    row = await Order.get(id=order.id)
    assert (row.status, row.payment_status) == ("canceled", "awaiting") and await stock() == before
    # and canceling again finishes it without a second restock
    r = await post(client, admin_headers, order.id, "/cancel")
    assert r.status_code == 200 and r.json()["order"]["payment_status"] == "canceled"
    assert await stock() == before and provider.calls == ["cancel", "cancel"]


@requires_postgres()
async def test_ten_concurrent_cancels_give_the_stock_back_once(client, admin_headers, seeded, provider):
    before = await stock()
    order = await placed(client, provider)
    answers = await asyncio.gather(*(post(client, admin_headers, order.id, "/cancel") for _ in range(10)))
    assert [a.status_code for a in answers] == [200] * 10
    assert await stock() == before and provider.calls == ["cancel"]


# ---------------------------------------------------------------- complete and archive


async def test_archive_only_after_completion_and_a_canceled_order_cannot_be_completed(
    client, admin_headers, seeded,
):
    order = await place_order(client)
    r = await post(client, admin_headers, order.id, "/archive")
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed", "message": "Can't archive an unprocessed order"})
    r = await post(client, admin_headers, order.id, "/complete")
    assert r.status_code == 200 and r.json()["order"]["status"] == "completed"
    r = await post(client, admin_headers, order.id, "/archive", params={"fields": "id,status"})
    assert r.status_code == 200 and r.json()["order"]["status"] == "archived"
    other = await place_order(client)
    await post(client, admin_headers, other.id, "/cancel")
    r = await post(client, admin_headers, other.id, "/complete")
    assert (r.status_code, r.json()["message"]) == (400, "A canceled order cannot be completed")
    r = await post(client, admin_headers, other.id, "/archive")
    assert r.status_code == 200 and r.json()["order"]["status"] == "archived"

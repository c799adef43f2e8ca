"""Claiming guest orders: the signed-in customer asks, one message goes to
each order email with a single-use, expiring token, and confirming moves the orders. Nothing
about other people's orders leaks, and orders of an account cannot be taken."""

from datetime import datetime, timedelta, timezone

import pytest

from models import Notification, OneTimeToken, Order
from services.notifications.messages import ORDER_CLAIM
from tests.account_factories import guest_order, hear_events, sent_to, token_sent_to
from tests.cart_factories import shopper

INVALID = {"type": "unauthorized", "message": "Invalid or expired order claim token"}


pytestmark = pytest.mark.usefixtures("fresh_limits")


async def _ask(client, headers, order_ids):
    return await client.post("/store/orders/batch/customer/token", headers=headers, json={"order_ids": order_ids})


async def _confirm(client, token):
    return await client.post("/store/orders/customer/confirm", json={"token": token})


async def test_a_claim_sends_one_message_per_order_email_and_confirming_moves_the_orders(client, mailbox):
    customer, headers = await shopper(client)
    first, second = await guest_order("jane.old@example.com"), await guest_order("jane.old@example.com")
    work = await guest_order("jane@work.example.com")
    r = await _ask(client, headers, [first.id, second.id, work.id])
    assert r.status_code == 200 and r.text == "OK"

    await hear_events()  # the worker dispatches the request's event: the notifications write the message
    notes = {n.to: n for n in await Notification.filter(event_name=ORDER_CLAIM)}
    assert set(notes) == {"jane.old@example.com", "jane@work.example.com"}
    assert notes["jane.old@example.com"].data["orders"] == [first.id, second.id]
    token = await token_sent_to(mailbox, "jane.old@example.com")
    [message] = sent_to(mailbox, "jane.old@example.com")
    assert message.data == {"old_email": "jane.old@example.com", "new_customer_id": customer.id,
                            "orders": [first.id, second.id], "token": token}
    assert f"#{first.display_id}" in message.body and "/claim-orders?token=" in message.body
    assert f"The account {customer.email} asked" in message.body  # the reader sees who asks

    r = await _confirm(client, token)  # from any device: no sign-in needed (Medusa's flow)
    assert r.status_code == 200 and r.text == "OK"
    for order in (first, second):
        moved = await Order.get(id=order.id)
        assert (moved.customer_id, moved.email) == (customer.id, customer.email)
    assert (await Order.get(id=work.id)).customer_id == work.customer_id  # its own token, not confirmed
    # the token works once
    again = await _confirm(client, token)
    assert again.status_code == 401 and again.json() == INVALID


async def test_asking_needs_a_signed_in_customer(client):
    order = await guest_order("guest@example.com")
    r = await _ask(client, {}, [order.id])
    assert r.status_code == 401 and r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert await Notification.all().count() == 0


async def test_unknown_ids_and_orders_of_accounts_answer_the_same_and_send_nothing(client, mailbox):
    jane, headers = await shopper(client)
    other, _ = await shopper(client, "other@example.com")
    theirs = await guest_order(other.email, other)  # an order of another account
    mine = await guest_order(jane.email, jane)  # already the customer's
    for ids in ([theirs.id], ["order_does_not_exist", "x" * 500], [mine.id], []):
        r = await _ask(client, headers, ids)
        assert (r.status_code, r.text) == (200, "OK"), ids
    assert await Notification.all().count() == 0
    assert (await Order.get(id=theirs.id)).customer_id == other.id


async def test_bad_or_expired_tokens_are_401_and_move_nothing(client, mailbox):
    _, headers = await shopper(client)
    order = await guest_order("guest@example.com")
    await _ask(client, headers, [order.id])
    token = await token_sent_to(mailbox, "guest@example.com")
    for bad in ("not-a-token", token + "x", "eyJhbGciOiJIUzI1NiJ9.eyJvcmRlcnMiOltdfQ.c2ln"):
        r = await _confirm(client, bad)
        assert r.status_code == 401 and r.json() == INVALID
    await OneTimeToken.all().update(expires_at=datetime.now(timezone.utc) - timedelta(seconds=1))
    r = await _confirm(client, token)
    assert r.status_code == 401 and r.json() == INVALID
    assert (await Order.get(id=order.id)).customer_id == order.customer_id


async def test_an_order_that_went_to_an_account_meanwhile_stays_there(client, mailbox):
    jane, headers = await shopper(client)
    order = await guest_order("guest@example.com")
    await _ask(client, headers, [order.id])
    token = await token_sent_to(mailbox, "guest@example.com")
    # another account claimed it first
    other, _ = await shopper(client, "other@example.com")
    await Order.filter(id=order.id).update(customer_id=other.id)
    assert (await _confirm(client, token)).status_code == 200
    assert (await Order.get(id=order.id)).customer_id == other.id


async def test_the_claim_token_is_stored_only_as_a_hash(client, mailbox):
    _, headers = await shopper(client)
    order = await guest_order("guest@example.com")
    await _ask(client, headers, [order.id])
    token = await token_sent_to(mailbox, "guest@example.com")
    [row] = await OneTimeToken.filter(kind="order_claim")
    assert row.token_hash != token and row.email == "guest@example.com"
    assert row.data == {"orders": [order.id], "signed_in_only": False}
    [note] = await Notification.all()
    assert token not in repr([note.body, note.data])


async def test_bad_bodies_are_400(client):
    _, headers = await shopper(client)
    for path, body, message in (
        ("/store/orders/batch/customer/token", {}, "order_ids should not be empty"),
        ("/store/orders/batch/customer/token", {"order_ids": "order_1"}, "order_ids must be an array"),
        ("/store/orders/batch/customer/token", {"order_ids": [""]}, "order_ids should not be empty"),
        ("/store/orders/customer/confirm", {}, "token should not be empty"),
        ("/store/orders/customer/confirm", {"token": 1}, "token must be a string"),
    ):
        r = await client.post(path, headers=headers, json=body)
        assert r.status_code == 400 and r.json() == {"type": "invalid_data", "message": message}, body
    too_many = await _ask(client, headers, [f"order_{i}" for i in range(101)])
    assert too_many.status_code == 400 and too_many.json()["type"] == "invalid_data"

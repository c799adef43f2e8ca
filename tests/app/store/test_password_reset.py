"""Password reset: the request answers the same for any email and
sends an account a single-use token that expires after 15 minutes; a bad, used or expired
token is a 401 and the password stays."""

import asyncio
from datetime import datetime, timedelta, timezone

import pytest

from models import Customer, Job, Notification, OneTimeToken
from services.notifications.messages import PASSWORD_RESET
from services.core.passwords import verify_password
from tests.account_factories import deliver_pending, hear_events, sent_to, token_sent_to
from tests.cart_factories import shopper

INVALID = {"type": "unauthorized", "message": "Invalid or expired password reset token"}


pytestmark = pytest.mark.usefixtures("fresh_limits")


async def _ask(client, email: str):
    return await client.post("/store/customers/password-token", json={"email": email})


async def _reset(client, email: str, token: str, password: str = "brand-new-secret"):
    return await client.post("/store/customers/password-reset",
                             json={"email": email, "token": token, "password": password})


async def _password_is(customer: Customer, password: str) -> bool:
    return verify_password(password, (await Customer.get(id=customer.id)).password_hash)


async def test_the_answer_is_the_same_whether_or_not_the_email_has_an_account(client, mailbox):
    customer, _ = await shopper(client)
    known, unknown = await _ask(client, customer.email), await _ask(client, "nobody@example.com")
    assert known.status_code == unknown.status_code == 204
    assert known.content == unknown.content == b""
    assert set(known.headers) - {"date"} == set(unknown.headers) - {"date"}
    # only the account gets a message
    await hear_events()  # the worker dispatches the request's event: the notifications write the message
    [note] = await Notification.all()
    assert (note.event_name, note.to, note.customer_id, note.resource_type, note.resource_id, note.status) == (
        PASSWORD_RESET, customer.email, customer.id, "customer", customer.id, "pending")
    assert await Job.filter(actor_name="send_notification", args=[note.id]).exists()


async def test_a_guest_email_gets_no_reset_message(client, mailbox):
    await Customer.create(email="guest@example.com", has_account=False)
    assert (await _ask(client, "guest@example.com")).status_code == 204
    assert await Notification.all().count() == 0


async def test_the_delivered_token_sets_a_new_password_once(client, mailbox):
    customer, _ = await shopper(client)
    await _ask(client, customer.email.upper())
    token = await token_sent_to(mailbox, customer.email)
    [message] = sent_to(mailbox, customer.email)
    assert message.data == {"id": customer.id, "email": customer.email, "first_name": "Jane", "last_name": "Doe",
                            "token": token}
    assert token in message.body and "/reset-password?" in message.body

    r = await _reset(client, customer.email, token)
    assert r.status_code == 200, r.text
    body = r.json()["customer"]
    assert body["id"] == customer.id and "password_hash" not in body and "shipping_addresses" not in body
    assert await _password_is(customer, "brand-new-secret")
    signed_in = await client.post("/store/auth", json={"email": customer.email, "password": "brand-new-secret"})
    assert signed_in.status_code == 200

    # a used token does not work again
    again = await _reset(client, customer.email, token, "another-secret")
    assert again.status_code == 401 and again.json() == INVALID
    assert await _password_is(customer, "brand-new-secret")


async def test_bad_expired_or_foreign_tokens_are_401_and_change_nothing(client, mailbox):
    customer, _ = await shopper(client)
    other, _ = await shopper(client, "other@example.com")
    await _ask(client, customer.email)
    token = await token_sent_to(mailbox, customer.email)
    for email, bad in ((customer.email, "not-the-token"), (customer.email, token[:-1]),
                       (other.email, token), ("nobody@example.com", token)):
        r = await _reset(client, email, bad)
        assert r.status_code == 401 and r.json() == INVALID, (email, bad)
    # expired: the same 401
    await OneTimeToken.all().update(expires_at=datetime.now(timezone.utc) - timedelta(seconds=1))
    r = await _reset(client, customer.email, token)
    assert r.status_code == 401 and r.json() == INVALID
    assert await _password_is(customer, "jane-secret") and await _password_is(other, "jane-secret")


async def test_a_new_password_spends_every_outstanding_reset_token(client, mailbox):
    customer, _ = await shopper(client)
    await _ask(client, customer.email)
    first = await token_sent_to(mailbox, customer.email)
    await _ask(client, customer.email)
    second = await token_sent_to(mailbox, customer.email)
    assert first != second
    assert (await _reset(client, customer.email, second)).status_code == 200
    assert (await _reset(client, customer.email, first, "x-secret")).status_code == 401
    # and a password changed on the account page spends them too (signed in again: the reset
    # ended the older token)
    await _ask(client, customer.email)
    third = await token_sent_to(mailbox, customer.email)
    token = await client.post("/store/auth/token", json={"email": customer.email, "password": "brand-new-secret"})
    headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
    r = await client.post("/store/customers/me", headers=headers, json={"password": "changed-by-hand"})
    assert r.status_code == 200
    assert (await _reset(client, customer.email, third)).status_code == 401
    assert await _password_is(customer, "changed-by-hand")


async def test_tokens_are_kept_only_as_hashes_and_never_recorded(client, mailbox, caplog):
    customer, _ = await shopper(client)
    await _ask(client, customer.email)
    with caplog.at_level("DEBUG"):
        token = await token_sent_to(mailbox, customer.email)
    [row] = await OneTimeToken.all()
    assert row.token_hash != token and len(row.token_hash) == 64
    [note] = await Notification.all()
    assert note.status == "sent" and note.provider_id == "record" and note.sent_at is not None
    assert note.subject == "Reset your password" and "[token]" in note.body
    stored = repr([note.body, note.data, note.subject, [j.args for j in await Job.all()]])
    assert token not in stored and token not in caplog.text


async def test_the_reset_password_alias_of_the_store_specification_works(client, mailbox):
    customer, _ = await shopper(client)
    await _ask(client, customer.email)
    token = await token_sent_to(mailbox, customer.email)
    r = await client.post("/store/customers/reset-password",
                          json={"email": customer.email, "token": token, "password": "brand-new-secret"})
    assert r.status_code == 200 and await _password_is(customer, "brand-new-secret")


async def test_bad_bodies_are_400(client):
    for path, body, message in (
        ("/store/customers/password-token", {}, "email should not be empty"),
        ("/store/customers/password-token", {"email": "nope"}, "email must be an email"),
        ("/store/customers/password-reset", {"email": "a@b.co", "token": "t"}, "password should not be empty"),
        ("/store/customers/password-reset", {"email": "a@b.co", "token": "", "password": "p"},
         "token should not be empty"),
        ("/store/customers/password-reset", {"email": "a@b.co", "token": 5, "password": "p"},
         "token must be a string"),
    ):
        r = await client.post(path, json=body)
        assert r.status_code == 400 and r.json() == {"type": "invalid_data", "message": message}, body


async def test_a_message_for_an_account_deleted_meanwhile_is_dropped(client, mailbox):
    customer, _ = await shopper(client)
    await _ask(client, customer.email)
    await Customer.filter(id=customer.id).update(deleted_at=datetime.now(timezone.utc))
    await deliver_pending()
    [note] = await Notification.all()
    assert note.status == "failed" and note.last_error == "the customer account no longer exists"
    assert sent_to(mailbox, customer.email) == [] and await OneTimeToken.all().count() == 0


async def test_two_resets_racing_with_one_token_succeed_once(client, mailbox):
    customer, _ = await shopper(client)
    await _ask(client, customer.email)
    token = await token_sent_to(mailbox, customer.email)
    results = await asyncio.gather(*(_reset(client, customer.email, token, f"racer-{i}") for i in range(4)))
    assert sorted(r.status_code for r in results) == [200, 401, 401, 401]
    [winner] = [i for i, r in enumerate(results) if r.status_code == 200]
    assert await _password_is(customer, f"racer-{winner}")

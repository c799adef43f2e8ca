"""A back-office user's password reset (Medusa's `admin/user.js`): the
request answers the same for any email and sends a user a single-use, 15-minute JWT carrying
their email (the dashboard reads it); the reset ends every earlier session and token."""

from datetime import timedelta

import jwt
import pytest

from models import Notification, OneTimeToken, User
from services.core import clock
from services.core.passwords import verify_password
from services.core.tokens import digest
from services.notifications.messages import MASK, USER_PASSWORD_RESET
from services.users.users import create_user
from tests.account_factories import deliver_pending, hear_events, sent_to, token_sent_to
from tests.conftest import SETTINGS

INVALID = {"type": "unauthorized", "message": "Invalid or expired password reset token"}


pytestmark = pytest.mark.usefixtures("fresh_limits")


@pytest.fixture
async def jane(store_state):
    return await create_user("jane@test.com", "old-secret", first_name="Jane")


async def _ask(client, email: str):
    return await client.post("/admin/users/password-token", json={"email": email})


async def _reset(client, token: str, password: str = "brand-new-secret", **extra):
    return await client.post("/admin/users/reset-password", json={"token": token, "password": password, **extra})


async def _password_is(user: User, password: str) -> bool:
    return verify_password(password, (await User.get(id=user.id)).password_hash)


# ---------------------------------------------------------------- asking


async def test_the_answer_is_the_same_whether_or_not_a_user_has_the_email(client, jane, mailbox):
    known, unknown = await _ask(client, "JANE@test.com"), await _ask(client, "nobody@test.com")
    assert known.status_code == unknown.status_code == 204
    assert known.content == unknown.content == b""
    assert set(known.headers) - {"date"} == set(unknown.headers) - {"date"}
    await hear_events()  # the worker dispatches the request's event: the notifications write the message
    [note] = await Notification.all()
    assert (note.event_name, note.to, note.resource_type, note.resource_id, note.customer_id) == (
        USER_PASSWORD_RESET, "jane@test.com", "user", jane.id, None)


async def test_asking_too_often_for_one_email_is_a_429_known_or_not(client, jane):
    for email in ("jane@test.com", "nobody@test.com"):
        answers = [(await _ask(client, email)).status_code for _ in range(SETTINGS.message_requests_per_email + 1)]
        assert answers == [204] * SETTINGS.message_requests_per_email + [429]


async def test_a_bad_email_is_a_400(client):
    r = await _ask(client, "not-an-email")
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"


# ---------------------------------------------------------------- the story


async def test_the_delivered_token_sets_a_new_password_once_and_signs_out_old_sessions(client, jane, mailbox):
    # Given Jane signed in with a cookie and with a JWT
    r = await client.post("/admin/auth", json={"email": "jane@test.com", "password": "old-secret"})
    cookie = {"Cookie": f"connect.sid={client.cookies['connect.sid']}"}
    client.cookies.clear()
    r = await client.post("/admin/auth/token", json={"email": "jane@test.com", "password": "old-secret"})
    bearer = {"Authorization": f"Bearer {r.json()['access_token']}"}
    assert (await client.get("/admin/auth", headers=cookie)).status_code == 200
    # When she asks for a reset and the message goes out
    await _ask(client, "jane@test.com")
    token = await token_sent_to(mailbox, "jane@test.com")
    [message] = sent_to(mailbox, "jane@test.com")
    # I expect Medusa's payload, a link to the dashboard, and a JWT whose `email` the page reads
    assert message.data == {"email": "jane@test.com", "token": token}
    assert f"{SETTINGS.admin_url}/reset-password?token={token}" in message.body
    assert jwt.decode(token, options={"verify_signature": False})["email"] == "jane@test.com"
    note = await Notification.get(event_name=USER_PASSWORD_RESET)
    assert token not in note.body and MASK in note.body
    assert await OneTimeToken.filter(token_hash=digest(token), email="jane@test.com").exists()  # only its hash
    # When she resets with it, as the dashboard does (email from the token)
    r = await _reset(client, token, email="jane@test.com")
    assert r.status_code == 200, r.text
    user = r.json()["user"]
    assert user["id"] == jane.id and "password_hash" not in user and user["api_token"] is None
    assert token.encode() not in r.content
    assert await _password_is(jane, "brand-new-secret")
    # her old session and JWT are over; the new password signs in
    assert (await client.get("/admin/auth", headers=cookie)).status_code == 401
    assert (await client.get("/admin/auth", headers=bearer)).status_code == 401
    r = await client.post("/admin/auth", json={"email": "jane@test.com", "password": "brand-new-secret"})
    assert r.status_code == 200
    client.cookies.clear()
    # the token does not work twice
    again = await _reset(client, token, "another-secret")
    assert again.status_code == 401 and again.json() == INVALID
    assert await _password_is(jane, "brand-new-secret")


async def test_a_reset_spends_the_users_other_tokens(client, jane, mailbox):
    await _ask(client, "jane@test.com")
    first = await token_sent_to(mailbox, "jane@test.com")
    await _ask(client, "jane@test.com")
    second = await token_sent_to(mailbox, "jane@test.com")
    assert (await _reset(client, second)).status_code == 200
    assert (await _reset(client, first, "other-secret")).json() == INVALID
    assert await _password_is(jane, "brand-new-secret")


# ---------------------------------------------------------------- refusals


async def test_an_expired_token_is_refused(client, jane, mailbox):
    await _ask(client, "jane@test.com")
    token = await token_sent_to(mailbox, "jane@test.com")
    await OneTimeToken.all().update(expires_at=clock.now() - timedelta(seconds=1))
    r = await _reset(client, token)
    assert r.status_code == 401 and r.json() == INVALID
    assert await _password_is(jane, "old-secret")


async def test_a_token_for_another_email_is_refused(client, jane, mailbox):
    await _ask(client, "jane@test.com")
    token = await token_sent_to(mailbox, "jane@test.com")
    r = await _reset(client, token, email="admin@test.com")
    assert r.status_code == 401 and r.json() == INVALID
    assert (await _reset(client, token)).status_code == 200  # the refusal did not spend it


@pytest.mark.parametrize("token", [
    "test.test.test", "not-a-jwt",
    jwt.encode({"email": "jane@test.com", "domain": "user_password_reset", "exp": 9999999999},
               "not-the-secret-of-this-server-at-all-32"),
])
async def test_a_token_not_issued_here_is_refused(client, jane, token):
    r = await _reset(client, token)
    assert r.status_code == 401 and r.json() == INVALID
    assert await _password_is(jane, "old-secret")


async def test_a_signed_token_whose_row_is_gone_is_refused(client, jane, mailbox):
    # A JWT signed here but not issued (or its row deleted): the signature alone is not enough.
    await _ask(client, "jane@test.com")
    token = await token_sent_to(mailbox, "jane@test.com")
    await OneTimeToken.all().delete()
    assert (await _reset(client, token)).json() == INVALID


async def test_a_deleted_user_gets_no_message_and_cannot_reset(client, jane, mailbox):
    await _ask(client, "jane@test.com")
    token = await token_sent_to(mailbox, "jane@test.com")
    await User.filter(id=jane.id).update(deleted_at=clock.now())
    assert (await _reset(client, token)).json() == INVALID
    await _ask(client, "jane@test.com")
    await deliver_pending()
    assert len(sent_to(mailbox, "jane@test.com")) == 1


@pytest.mark.parametrize("body", [{"token": "x"}, {"password": "x"}, {"token": "", "password": "x"},
                                  {"token": "x", "password": ""}])
async def test_a_bad_reset_body_is_a_400(client, body):
    r = await client.post("/admin/users/reset-password", json=body)
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"

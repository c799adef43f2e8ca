"""Team invites: `/admin/invites` (Medusa's `admin/invite.js`): an admin
invites a colleague, the message carries a link, the colleague accepts once and signs in."""

import asyncio
from datetime import timedelta

import jwt
import pytest

from models import Invite, Notification, Store, User
from services.core import clock
from services.notifications.messages import INVITE_CREATED, MASK
from services.users.users import create_user
from tests.account_factories import deliver_pending, hear_events, sent_to, token_sent_to
from tests.conftest import SETTINGS, count_queries, requires_postgres

INVITE_KEYS = {"id", "user_email", "role", "accepted", "token", "expires_at", "metadata", "created_at", "updated_at",
               "deleted_at"}
TOKEN_NOT_VALID = {"type": "invalid_data", "message": "Token is not valid"}
INVALID_INVITE = {"type": "invalid_data", "message": "Invalid invite"}
NEWCOMER = {"first_name": "Ada", "last_name": "Lovelace", "password": "ada-secret"}


pytestmark = pytest.mark.usefixtures("fresh_limits")


async def _invite(client, headers, email="ada@test.com", role="member"):
    r = await client.post("/admin/invites", headers=headers, json={"user": email, "role": role})
    assert r.status_code == 200 and r.text == "OK", r.text
    return await Invite.get(user_email=email.lower(), deleted_at=None)


async def _accept(client, token, user=NEWCOMER):
    return await client.post("/admin/invites/accept", json={"token": token, "user": user})


async def _listed(client, headers) -> list[dict]:
    r = await client.get("/admin/invites", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["invites"]


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/invites"), ("POST", "/admin/invites"), ("POST", "/admin/invites/invite_1/resend"),
    ("DELETE", "/admin/invites/invite_1"),
])
async def test_every_invite_route_but_accept_needs_a_signed_in_user(client, method, path):
    body = {"user": "intruder@test.com", "role": "admin"} if (method, path) == ("POST", "/admin/invites") else None
    r = await client.request(method, path, json=body)
    assert r.status_code == 401 and r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert not await Invite.exists()


async def test_a_member_can_neither_invite_nor_see_the_links(client, admin, admin_headers):
    await _invite(client, admin_headers)
    await create_user("member@test.com", "member-secret")
    r = await client.post("/admin/auth/token", json={"email": "member@test.com", "password": "member-secret"})
    member = {"Authorization": f"Bearer {r.json()['access_token']}"}
    r = await client.post("/admin/invites", headers=member, json={"user": "boss@test.com", "role": "admin"})
    assert r.status_code == 400 and r.json() == {"type": "not_allowed", "message": "Only an admin can invite users"}
    [seen] = await _listed(client, member)
    assert seen["user_email"] == "ada@test.com" and seen["token"] is None


# ---------------------------------------------------------------- the story


async def test_an_admin_invites_a_colleague_who_accepts_and_signs_in(client, admin_headers, mailbox):
    # Given an admin who invites a colleague as a developer
    invite = await _invite(client, admin_headers, "Ada@Test.com", "developer")
    await hear_events()  # the worker dispatches the request's event: the notifications write the message
    [note] = await Notification.filter(event_name=INVITE_CREATED)
    assert (note.to, note.resource_type, note.resource_id, note.status) == ("ada@test.com", "invite", invite.id,
                                                                           "pending")
    # When the message goes out
    token = await token_sent_to(mailbox, "ada@test.com")
    [message] = sent_to(mailbox, "ada@test.com")
    # I expect Medusa's payload, a link to the dashboard's invite page, and a JWT the page can read
    assert message.data == {"id": invite.id, "user_email": "ada@test.com", "token": token}
    assert f"{SETTINGS.admin_url}/invite?token={token}" in message.body
    claims = jwt.decode(token, options={"verify_signature": False})
    assert (claims["invite_id"], claims["user_email"], claims["role"]) == (invite.id, "ada@test.com", "developer")
    # the stored copy of the message has no usable token
    await note.refresh_from_db()
    assert note.status == "sent" and token not in note.body and MASK in note.body
    # the admin's list shows the same token (the dashboard's "copy invite link")
    [listed] = await _listed(client, admin_headers)
    assert set(listed) == INVITE_KEYS and listed["token"] == token and listed["accepted"] is False
    # When the colleague accepts, then signs in as the dashboard does
    r = await _accept(client, token)
    assert r.status_code == 200 and r.text == "OK", r.text
    r = await client.post("/admin/auth", json={"email": "ada@test.com", "password": "ada-secret"})
    assert r.status_code == 200, r.text
    user = r.json()["user"]
    assert (user["email"], user["role"], user["first_name"], user["last_name"]) == (
        "ada@test.com", "developer", "Ada", "Lovelace")
    # the invite is over: gone from the list, and its link works no more
    assert await _listed(client, admin_headers) == []
    again = await _accept(client, token, {**NEWCOMER, "password": "other"})
    assert again.status_code == 400 and again.json() == INVALID_INVITE
    assert await User.filter(email="ada@test.com").count() == 1


async def test_the_store_template_shapes_the_link(client, admin_headers, mailbox):
    await Store.all().update(invite_link_template="http://localhost:7001/join?t={invite_token}&x=1")
    await _invite(client, admin_headers)
    token = await token_sent_to(mailbox, "ada@test.com")
    assert f"http://localhost:7001/join?t={token}&x=1" in sent_to(mailbox, "ada@test.com")[-1].body


async def test_a_stored_template_on_another_origin_is_not_used(client, admin_headers, mailbox):
    # Given a template pointing elsewhere, stored before templates were checked (or in the database)
    await Store.all().update(invite_link_template="https://evil.example/join?t={invite_token}")
    # When an invitation goes out
    await _invite(client, admin_headers)
    token = await token_sent_to(mailbox, "ada@test.com")
    # I expect its token on the dashboard's own invite page, never on the other site
    body = sent_to(mailbox, "ada@test.com")[-1].body
    assert f"{SETTINGS.admin_url}/invite?token={token}" in body and "evil.example" not in body


# ---------------------------------------------------------------- ending links


async def test_a_resend_ends_the_old_link_and_sends_a_new_one(client, admin_headers, mailbox):
    invite = await _invite(client, admin_headers)
    old = await token_sent_to(mailbox, "ada@test.com")
    r = await client.post(f"/admin/invites/{invite.id}/resend", headers=admin_headers)
    assert r.status_code == 200 and r.text == "OK"
    new = await token_sent_to(mailbox, "ada@test.com")
    assert new != old and len(sent_to(mailbox, "ada@test.com")) == 2
    assert (await _listed(client, admin_headers))[0]["token"] == new
    r = await _accept(client, old)
    assert r.status_code == 400 and r.json() == INVALID_INVITE
    assert (await _accept(client, new)).status_code == 200


async def test_inviting_again_renews_the_invite_with_the_new_role(client, admin_headers, mailbox):
    first = await _invite(client, admin_headers, role="member")
    old = await token_sent_to(mailbox, "ada@test.com")
    second = await _invite(client, admin_headers, role="admin")
    assert second.id == first.id and second.role == "admin" and second.nonce != first.nonce
    assert await Invite.filter(user_email="ada@test.com").count() == 1
    assert (await _accept(client, old)).json() == INVALID_INVITE
    assert (await _accept(client, await token_sent_to(mailbox, "ada@test.com"))).status_code == 200
    assert (await User.get(email="ada@test.com")).role == "admin"


async def test_a_deleted_invite_ends_its_link(client, admin_headers, mailbox):
    invite = await _invite(client, admin_headers)
    token = await token_sent_to(mailbox, "ada@test.com")
    r = await client.delete(f"/admin/invites/{invite.id}", headers=admin_headers)
    assert r.status_code == 200 and r.json() == {"id": invite.id, "object": "invite", "deleted": True}
    assert (await client.delete(f"/admin/invites/{invite.id}", headers=admin_headers)).status_code == 200
    assert await _listed(client, admin_headers) == []
    assert (await _accept(client, token)).json() == INVALID_INVITE
    assert not await User.filter(email="ada@test.com").exists()


async def test_an_expired_invite_is_listed_but_refused(client, admin_headers, mailbox):
    invite = await _invite(client, admin_headers)
    token = await token_sent_to(mailbox, "ada@test.com")
    await Invite.filter(id=invite.id).update(expires_at=clock.now() - timedelta(seconds=1))
    assert len(await _listed(client, admin_headers)) == 1  # the dashboard marks it expired
    r = await _accept(client, token)
    assert r.status_code == 400 and r.json() == INVALID_INVITE
    assert not await User.filter(email="ada@test.com").exists()


@pytest.mark.parametrize("token", [
    "test.test.test", "not-a-jwt",
    jwt.encode({"invite_id": "invite_1", "user_email": "a@b.co", "role": "admin", "nonce": "n", "domain": "invite",
                "exp": 9999999999}, "not-the-secret-of-this-server-at-all-32"),
])
async def test_a_token_not_signed_here_is_refused(client, token):
    r = await _accept(client, token)
    assert r.status_code == 400 and r.json() == TOKEN_NOT_VALID


async def test_a_sign_in_token_is_no_invite(client, admin_headers):
    r = await _accept(client, admin_headers["Authorization"].removeprefix("Bearer "))
    assert r.status_code == 400 and r.json() == TOKEN_NOT_VALID


# ---------------------------------------------------------------- refusals


async def test_an_email_with_a_user_cannot_be_invited(client, admin, admin_headers):
    r = await client.post("/admin/invites", headers=admin_headers, json={"user": "ADMIN@test.com", "role": "member"})
    assert r.status_code == 400 and r.json() == {
        "type": "invalid_data", "message": "Can't invite a user with an existing account"}
    assert not await Invite.exists()


@pytest.mark.parametrize("body", [
    {"user": "not-an-email", "role": "member"}, {"user": "a@test.com", "role": "owner"}, {"user": "a@test.com"},
])
async def test_a_bad_invite_is_a_400(client, admin_headers, body):
    r = await client.post("/admin/invites", headers=admin_headers, json=body)
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"


async def test_resending_an_unknown_invite_is_a_404(client, admin_headers):
    r = await client.post("/admin/invites/invite_nope/resend", headers=admin_headers)
    assert r.status_code == 404 and r.json() == {"type": "not_found", "message": "Invite doesn't exist"}


async def test_accept_needs_a_password(client, admin_headers, mailbox):
    await _invite(client, admin_headers)
    token = await token_sent_to(mailbox, "ada@test.com")
    r = await _accept(client, token, {"first_name": "Ada"})
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"
    assert (await _accept(client, token)).status_code == 200  # the refused attempt did not spend it


async def test_a_user_made_meanwhile_makes_the_invite_refused(client, admin_headers, mailbox):
    await _invite(client, admin_headers)
    token = await token_sent_to(mailbox, "ada@test.com")
    await create_user("ada@test.com", "other-secret")
    r = await _accept(client, token)
    assert r.status_code == 400 and r.json() == {"type": "invalid_data", "message": "User already joined"}
    assert await User.filter(email="ada@test.com").count() == 1


# ---------------------------------------------------------------- list and races


async def test_the_list_runs_the_same_statements_for_1_and_20_invites(client, admin_headers):
    await _invite(client, admin_headers, "first@test.com")
    async with count_queries() as one:
        assert len(await _listed(client, admin_headers)) == 1
    for n in range(19):
        await _invite(client, admin_headers, f"colleague{n}@test.com")
    async with count_queries() as twenty:
        assert len(await _listed(client, admin_headers)) == 20
    assert len(one) == len(twenty)


@requires_postgres("needs concurrent transactions")
async def test_two_simultaneous_accepts_make_exactly_one_user(client, admin_headers, mailbox):
    await _invite(client, admin_headers)
    token = await token_sent_to(mailbox, "ada@test.com")
    responses = await asyncio.gather(*(_accept(client, token, {**NEWCOMER, "password": f"secret-{n}"})
                                       for n in range(4)))
    assert sorted(r.status_code for r in responses) == [200, 400, 400, 400]
    assert all(r.json() == INVALID_INVITE for r in responses if r.status_code == 400)
    assert await User.filter(email="ada@test.com").count() == 1


async def test_a_message_for_an_ended_invite_is_not_sent(client, admin_headers, mailbox):
    invite = await _invite(client, admin_headers)
    await client.delete(f"/admin/invites/{invite.id}", headers=admin_headers)
    await deliver_pending()
    assert sent_to(mailbox, "ada@test.com") == []
    note = await Notification.get(event_name=INVITE_CREATED)
    assert note.status == "failed" and "invite" in note.last_error

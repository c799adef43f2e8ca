"""Admin users, the team: `/admin/users` (Medusa's `admin/user.js`)."""

import asyncio

import pytest

from app.server import create_app
from models import User
from services.users.users import create_user, issue_api_token
from tests.conftest import count_queries, requires_postgres, running, settings

USER_KEYS = {"id", "email", "first_name", "last_name", "role", "api_token", "metadata", "created_at", "updated_at",
             "deleted_at"}


async def member(email: str = "member@test.com", role: str = "member", **columns) -> User:
    return await create_user(email, "member-secret", role=role, **columns)


async def headers_of(client, email: str, password: str = "member-secret") -> dict:
    r = await client.post("/admin/auth/token", json={"email": email, "password": password})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


def emails(body: dict) -> list[str]:
    return [u["email"] for u in body["users"]]


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/users"), ("POST", "/admin/users"), ("GET", "/admin/users/usr_1"),
    ("POST", "/admin/users/usr_1"), ("DELETE", "/admin/users/usr_1"),
])
async def test_every_user_route_needs_a_signed_in_user(client, method, path):
    body = {"email": "intruder@test.com", "password": "x"} if method == "POST" and path == "/admin/users" else None
    r = await client.request(method, path, json=body)
    assert r.status_code == 401 and r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert not await User.filter(email="intruder@test.com").exists()


# ---------------------------------------------------------------- list and get


async def test_list_shows_the_live_team_without_hashes_or_tokens(client, admin, admin_headers):
    # Given an admin with an API token, a member and a deleted user
    await issue_api_token("admin@test.com")
    await User.filter(id=admin.id).update(api_token="test_token_in_clear")
    jane = await member("jane@test.com", first_name="Jane")
    gone = await member("gone@test.com")
    await User.filter(id=gone.id).update(deleted_at=gone.created_at)
    # When the dashboard lists users
    r = await client.get("/admin/users", headers=admin_headers)
    # I expect Medusa's wrapper, newest first, and neither the hash nor the token
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"users", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 50)
    assert emails(body) == ["jane@test.com", "admin@test.com"]
    assert all(set(u) == USER_KEYS and u["api_token"] is None for u in body["users"])
    assert body["users"][0]["id"] == jane.id and body["users"][0]["role"] == "member"
    assert b"password" not in r.content and b"test_token_in_clear" not in r.content and b"hash" not in r.content


async def test_list_filters_by_q_role_email_and_id(client, admin, admin_headers):
    jane = await member("jane@test.com", first_name="Jane", last_name="Smith")
    await member("dev@test.com", role="developer", first_name="Dev")

    async def found(query: str) -> list[str]:
        r = await client.get(f"/admin/users?{query}", headers=admin_headers)
        assert r.status_code == 200, r.text
        return sorted(emails(r.json()))

    assert await found("q=SMITH") == ["jane@test.com"]
    assert await found("q=test.com") == ["admin@test.com", "dev@test.com", "jane@test.com"]
    assert await found("role=developer") == ["dev@test.com"]
    assert await found("email=JANE@test.com") == ["jane@test.com"]
    assert await found(f"id[]={jane.id},{admin.id}") == ["admin@test.com", "jane@test.com"]
    assert await found("order=email&limit=1&offset=1") == ["dev@test.com"]
    assert await found("fields=email") == ["admin@test.com", "dev@test.com", "jane@test.com"]


@pytest.mark.parametrize("query,message", [
    ("role=boss", "role must be one of the following values: admin, member, developer"),
    ("fields=password_hash", "Requested fields [password_hash] are not valid"),
    ("order=password_hash", "Order field password_hash is not valid"),
    ("expand=analytics_config", "Requested relations [analytics_config] are not valid"),
    ("password=x", "property password should not exist"),
])
async def test_bad_list_queries_are_a_400(client, admin_headers, query, message):
    r = await client.get(f"/admin/users?{query}", headers=admin_headers)
    assert r.status_code == 400 and r.json() == {"type": "invalid_data", "message": message}


async def test_list_runs_as_many_statements_for_fifty_users_as_for_one(client, admin_headers):
    await User.bulk_create([User(email=f"u{i:02}@test.com", role="member") for i in range(55)])
    async with count_queries() as one:
        r1 = await client.get("/admin/users?limit=1", headers=admin_headers)
    async with count_queries() as fifty:
        r50 = await client.get("/admin/users?limit=50", headers=admin_headers)
    assert len(r1.json()["users"]) == 1 and len(r50.json()["users"]) == 50 and r50.json()["count"] == 56
    assert one and len(fifty) == len(one), (one, fifty)


async def test_get_shows_one_user_and_a_missing_or_deleted_one_is_a_404(client, admin_headers):
    jane = await member("jane@test.com")
    r = await client.get(f"/admin/users/{jane.id}", headers=admin_headers)
    assert r.status_code == 200
    assert set(r.json()["user"]) == USER_KEYS and r.json()["user"]["email"] == "jane@test.com"
    await User.filter(id=jane.id).update(deleted_at=jane.created_at)
    for user_id in (jane.id, "usr_missing"):
        r = await client.get(f"/admin/users/{user_id}", headers=admin_headers)
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"User with id: {user_id} was not found"}


# ---------------------------------------------------------------- create


async def test_an_admin_adds_a_member_who_can_then_sign_in(client, admin_headers):
    r = await client.post("/admin/users", headers=admin_headers, json={
        "email": "New.Member@Test.com", "password": "a-good-password", "first_name": "New",
    })
    assert r.status_code == 200, r.text
    user = r.json()["user"]
    assert set(user) == USER_KEYS and user["id"].startswith("usr_")
    assert (user["email"], user["role"], user["first_name"], user["last_name"]) == (
        "new.member@test.com", "member", "New", None)
    assert b"password" not in r.content
    await headers_of(client, "new.member@test.com", "a-good-password")


async def test_adding_an_email_the_team_has_is_a_422_and_a_deleted_users_email_is_free(client, admin_headers):
    body = {"email": "ADMIN@test.com", "password": "pw"}
    r = await client.post("/admin/users", headers=admin_headers, json=body)
    assert r.status_code == 422
    assert r.json() == {"type": "duplicate_error", "message": "A user with the same email already exists.",
                        "code": "invalid_request_error"}
    gone = await member("gone@test.com")
    await client.delete(f"/admin/users/{gone.id}", headers=admin_headers)
    r = await client.post("/admin/users", headers=admin_headers, json={"email": "gone@test.com", "password": "pw"})
    assert r.status_code == 200 and r.json()["user"]["id"] != gone.id


@pytest.mark.parametrize("body,message", [
    ({"password": "pw"}, "email should not be empty"),
    ({"email": "nope", "password": "pw"}, "email must be an email"),
    ({"email": "a@test.com"}, "password should not be empty"),
    ({"email": "a@test.com", "password": ""}, "password should not be empty"),
    ({"email": "a@test.com", "password": "pw", "role": "owner"},
     "role must be one of the following values: admin, member, developer"),
    ({"email": "a@test.com", "password": "pw", "api_token": "t"}, "property api_token should not exist"),
])
async def test_bad_new_users_are_a_400(client, admin_headers, body, message):
    r = await client.post("/admin/users", headers=admin_headers, json=body)
    assert r.status_code == 400 and r.json() == {"type": "invalid_data", "message": message}
    assert await User.all().count() == 1


async def test_only_an_admin_adds_users(client, admin):
    # Medusa v1 lets any user manage the team; here members and developers cannot
    await member()
    r = await client.post("/admin/users", headers=await headers_of(client, "member@test.com"),
                          json={"email": "friend@test.com", "password": "pw", "role": "admin"})
    assert r.status_code == 400 and r.json() == {"type": "not_allowed", "message": "Only an admin can add users"}
    assert not await User.filter(email="friend@test.com").exists()


@requires_postgres("needs concurrent transactions")
async def test_two_simultaneous_adds_of_one_email_make_one_user(client, admin_headers):
    body = {"email": "race@test.com", "password": "pw"}
    responses = await asyncio.gather(*(client.post("/admin/users", headers=admin_headers, json=body)
                                       for _ in range(4)))
    assert sorted(r.status_code for r in responses) == [200, 422, 422, 422]
    assert await User.filter(email="race@test.com").count() == 1


# ---------------------------------------------------------------- update


async def test_update_changes_names_role_and_merges_metadata(client, admin_headers):
    jane = await member("jane@test.com", first_name="J", metadata={"keep": 1, "drop": "x"})
    r = await client.post(f"/admin/users/{jane.id}", headers=admin_headers, json={
        "first_name": "Jane", "last_name": "Doe", "role": "developer", "metadata": {"drop": "", "new": 2},
    })
    assert r.status_code == 200, r.text
    user = r.json()["user"]
    assert set(user) == USER_KEYS
    assert (user["first_name"], user["last_name"], user["role"]) == ("Jane", "Doe", "developer")
    assert user["metadata"] == {"keep": 1, "new": 2}
    r = await client.post(f"/admin/users/{jane.id}", headers=admin_headers, json={"last_name": None})
    stored = await User.get(id=jane.id)
    assert (stored.first_name, stored.last_name, stored.role) == ("Jane", None, "developer")


@pytest.mark.parametrize("body,message", [
    ({"email": "new@test.com"}, "property email should not exist"),
    ({"password": "new-password"}, "property password should not exist"),
    ({"role": None}, "role must be one of the following values: admin, member, developer"),
    ({"role": "owner"}, "role must be one of the following values: admin, member, developer"),
    ({"first_name": 1}, "first_name must be a string"),
    ({"api_token": "short"}, "api_token must be longer than or equal to 16 characters"),
])
async def test_bad_updates_are_a_400_and_change_nothing(client, admin_headers, body, message):
    jane = await member("jane@test.com", first_name="Jane")
    r = await client.post(f"/admin/users/{jane.id}", headers=admin_headers, json={"last_name": "Doe", **body})
    assert r.status_code == 400 and r.json()["message"] == message
    stored = await User.get(id=jane.id)
    assert (stored.email, stored.last_name, stored.role) == ("jane@test.com", None, "member")


async def test_updating_a_missing_user_is_a_404(client, admin_headers):
    r = await client.post("/admin/users/usr_missing", headers=admin_headers, json={"first_name": "X"})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "User with id: usr_missing was not found"}


async def test_a_member_edits_their_own_names_but_not_their_role_nor_others(client, admin):
    # The dashboard's personal settings send the signed-in user's own names
    jane = await member("jane@test.com")
    headers = await headers_of(client, "jane@test.com")
    r = await client.post(f"/admin/users/{jane.id}", headers=headers, json={"first_name": "Jane", "last_name": "D"})
    assert r.status_code == 200 and r.json()["user"]["first_name"] == "Jane"
    r = await client.post(f"/admin/users/{jane.id}", headers=headers, json={"role": "admin"})
    assert r.status_code == 400 and r.json() == {"type": "not_allowed", "message": "Only an admin can change a role"}
    r = await client.post(f"/admin/users/{admin.id}", headers=headers, json={"first_name": "Hacked"})
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed", "message": "Only an admin can change another user"}
    assert (await User.get(id=jane.id)).role == "member" and (await User.get(id=admin.id)).first_name is None


async def test_the_last_admin_cannot_step_down_but_one_of_two_can(client, admin, admin_headers):
    r = await client.post(f"/admin/users/{admin.id}", headers=admin_headers, json={"role": "member"})
    assert r.status_code == 400 and r.json()["message"] == (
        "The store needs at least one admin: make another user admin first")
    other = await member("second@test.com", role="admin")
    r = await client.post(f"/admin/users/{admin.id}", headers=admin_headers, json={"role": "member"})
    assert r.status_code == 200 and r.json()["user"]["role"] == "member"
    # Now a member, the former admin changes nobody's role
    r = await client.post(f"/admin/users/{other.id}", headers=admin_headers, json={"role": "member"})
    assert r.status_code == 400 and (await User.get(id=other.id)).role == "admin"


async def test_an_api_token_set_by_update_signs_in_and_is_never_shown_or_stored_in_clear(client, admin_headers):
    jane = await member("jane@test.com")
    token = "jane-token-0123456789abcdef"
    r = await client.post(f"/admin/users/{jane.id}", headers=admin_headers, json={"api_token": token})
    assert r.status_code == 200 and r.json()["user"]["api_token"] is None and token.encode() not in r.content
    stored = await User.get(id=jane.id)
    assert stored.api_token is None and stored.api_token_hash and token not in stored.api_token_hash
    r = await client.get("/admin/auth", headers={"x-medusa-access-token": token})
    assert r.status_code == 200 and r.json()["user"]["id"] == jane.id
    # Another user cannot take the same token; null removes it
    r = await client.post("/admin/users/" + (await member("max@test.com")).id, headers=admin_headers,
                          json={"api_token": token})
    assert r.status_code == 422 and r.json()["message"] == "The API token is already in use"
    r = await client.post(f"/admin/users/{jane.id}", headers=admin_headers, json={"api_token": None})
    assert r.status_code == 200
    assert (await client.get("/admin/auth", headers={"x-medusa-access-token": token})).status_code == 401


# ---------------------------------------------------------------- delete


async def test_delete_removes_the_user_and_ends_their_sessions_jwts_and_token_at_once(client, admin_headers):
    # Given a member signed in by session cookie, by JWT and holding an API token
    jane = await member("jane@test.com")
    token = await issue_api_token("jane@test.com")
    bearer = await headers_of(client, "jane@test.com")
    r = await client.post("/admin/auth", json={"email": "jane@test.com", "password": "member-secret"})
    cookie = {"Cookie": f"connect.sid={r.cookies['connect.sid']}"}
    client.cookies.clear()
    for headers in (bearer, cookie, {"x-medusa-access-token": token}):
        assert (await client.get("/admin/auth", headers=headers)).status_code == 200
    # When an admin deletes her
    r = await client.delete(f"/admin/users/{jane.id}", headers=admin_headers)
    # I expect Medusa's answer, and none of her credentials to work any more
    assert r.status_code == 200 and r.json() == {"id": jane.id, "object": "user", "deleted": True}
    for headers in (bearer, cookie, {"x-medusa-access-token": token}):
        assert (await client.get("/admin/users", headers=headers)).status_code == 401
    stored = await User.get(id=jane.id)
    assert stored.deleted_at is not None and stored.api_token_hash is None
    assert emails((await client.get("/admin/users", headers=admin_headers)).json()) == ["admin@test.com"]
    # Deleting again, or an unknown user, changes nothing
    for user_id in (jane.id, "usr_missing"):
        r = await client.delete(f"/admin/users/{user_id}", headers=admin_headers)
        assert r.status_code == 200 and r.json()["deleted"] is True


async def test_a_deleted_user_remembered_by_this_process_is_forgotten_at_once(admin):
    # A web process remembers signed-in users for AUTH_CACHE_SECONDS; a delete made in it ends that
    app = create_app(settings(auth_cache_seconds=60), manage_orm=False)
    async with running(app) as http:
        jane = await member("jane@test.com")
        admin_bearer, jane_bearer = await headers_of(http, "admin@test.com", "supersecret"), await headers_of(
            http, "jane@test.com")
        assert (await http.get("/admin/auth", headers=jane_bearer)).status_code == 200  # now remembered
        assert (await http.delete(f"/admin/users/{jane.id}", headers=admin_bearer)).status_code == 200
        assert (await http.get("/admin/auth", headers=jane_bearer)).status_code == 401


async def test_nobody_deletes_themselves_and_members_delete_nobody(client, admin, admin_headers):
    r = await client.delete(f"/admin/users/{admin.id}", headers=admin_headers)
    assert r.status_code == 400 and r.json() == {"type": "not_allowed", "message": "You cannot delete your own user"}
    jane, max_ = await member("jane@test.com"), await member("max@test.com")
    r = await client.delete(f"/admin/users/{max_.id}", headers=await headers_of(client, "jane@test.com"))
    assert r.status_code == 400 and r.json() == {"type": "not_allowed", "message": "Only an admin can delete users"}
    assert await User.filter(deleted_at=None).count() == 3 and jane.deleted_at is None


@requires_postgres("needs concurrent transactions")
async def test_two_admins_deleting_each_other_at_once_leave_one_admin(client, admin, admin_headers):
    other = await member("second@test.com", role="admin")
    other_headers = await headers_of(client, "second@test.com")
    responses = await asyncio.gather(
        client.delete(f"/admin/users/{other.id}", headers=admin_headers),
        client.delete(f"/admin/users/{admin.id}", headers=other_headers),
    )
    # The second finds its own user deleted: refused by the service, or by the gate if it came later
    first, second = sorted(r.status_code for r in responses)
    assert first == 200 and second in (400, 401)
    assert await User.filter(role="admin", deleted_at=None).count() == 1

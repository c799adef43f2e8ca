"""Admin notes: `/admin/notes`, what admins write on an order's timeline (Medusa's test `admin/note.js`)."""

from datetime import datetime, timedelta, timezone

import pytest

from models import Note, User
from services.users.users import create_user
from tests.conftest import count_queries

NOTE_COLUMNS = {
    "id", "resource_type", "resource_id", "value", "author_id", "metadata", "created_at", "updated_at", "deleted_at",
}


async def note(value: str, resource_id: str = "order_1", **columns) -> Note:
    return await Note.create(value=value, resource_type="order", resource_id=resource_id, **columns)


async def create(client, headers, **body) -> dict:
    r = await client.post("/admin/notes", json=body, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["note"]


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/notes"),
    ("POST", "/admin/notes"),
    ("GET", "/admin/notes/note_1"),
    ("POST", "/admin/notes/note_1"),
    ("DELETE", "/admin/notes/note_1"),
])
async def test_every_route_needs_a_signed_in_user(client, method, path):
    await note("keep me", id="note_1")
    body = {"value": "x", "resource_id": "order_1", "resource_type": "order"} if method == "POST" else None
    r = await client.request(method, path, json=body)
    assert r.status_code == 401
    assert r.json()["type"] == "unauthorized"
    assert await Note.filter(id="note_1", value="keep me", deleted_at=None).exists()
    assert await Note.all().count() == 1


# ---------------------------------------------------------------- create


async def test_create_signs_the_note_with_the_signed_in_user_and_shows_no_secret(client, admin, admin_headers):
    created = await create(client, admin_headers, resource_id="order_1", resource_type="order", value="Ship Monday")
    assert set(created) == NOTE_COLUMNS | {"author"}
    assert created["id"].startswith("note_")
    assert (created["resource_type"], created["resource_id"], created["value"]) == ("order", "order_1", "Ship Monday")
    assert created["author_id"] == admin.id and created["metadata"] == {} and created["deleted_at"] is None
    author = created["author"]
    assert author["id"] == admin.id and author["email"] == "admin@test.com"
    assert "password_hash" not in author and "api_token_hash" not in author and author.get("api_token") is None
    assert (await Note.get(id=created["id"])).author_id == admin.id


@pytest.mark.parametrize("body,message", [
    ({"resource_type": "order", "value": "x"}, "resource_id should not be empty"),
    ({"resource_id": "order_1", "value": "x"}, "resource_type should not be empty"),
    ({"resource_id": "order_1", "resource_type": "order"}, "value should not be empty"),
    ({"resource_id": "order_1", "resource_type": "order", "value": ""}, "value should not be empty"),
    ({"resource_id": 1, "resource_type": "order", "value": "x"}, "resource_id must be a string"),
    ({"resource_id": "o" * 256, "resource_type": "order", "value": "x"},
     "resource_id must be shorter than or equal to 255 characters"),
    ({"resource_id": "order_1", "resource_type": "order", "value": "x", "author_id": "usr_1"},
     "property author_id should not exist"),
])
async def test_create_with_bad_input_is_a_400_and_writes_nothing(client, admin_headers, body, message):
    r = await client.post("/admin/notes", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json()["type"] == "invalid_data" and message in r.json()["message"]
    assert await Note.all().count() == 0


# ---------------------------------------------------------------- list


async def test_list_filters_by_resource_and_shows_each_author_oldest_first(client, admin, admin_headers):
    other = await create_user("other@test.com", "supersecret", role="member")
    start = datetime.now(timezone.utc)
    first = await note("first", author_id=admin.id, created_at=start)
    second = await note("second", author_id=other.id, created_at=start + timedelta(seconds=1))
    await note("elsewhere", resource_id="order_2", author_id=admin.id)
    await note("removed", author_id=admin.id, deleted_at=start)
    r = await client.get("/admin/notes?resource_id=order_1", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"notes", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 50)
    assert [n["id"] for n in body["notes"]] == [first.id, second.id]
    assert [n["author"]["email"] for n in body["notes"]] == ["admin@test.com", "other@test.com"]
    assert all(set(n) == NOTE_COLUMNS | {"author"} for n in body["notes"])
    assert (await client.get("/admin/notes", headers=admin_headers)).json()["count"] == 3


async def test_list_pages_with_limit_and_offset_and_counts_all(client, admin, admin_headers):
    start = datetime.now(timezone.utc)
    made = [await note(f"n{i}", author_id=admin.id, created_at=start + timedelta(seconds=i)) for i in range(3)]
    body = (await client.get("/admin/notes?resource_id=order_1&limit=2&offset=1", headers=admin_headers)).json()
    assert (body["count"], body["offset"], body["limit"]) == (3, 1, 2)
    assert [n["id"] for n in body["notes"]] == [made[1].id, made[2].id]


async def test_a_note_still_shows_its_author_once_that_user_is_deleted(client, admin, admin_headers):
    ghost = await User.create(email="ghost@test.com", deleted_at=datetime.now(timezone.utc))
    made = await note("by a former user", author_id=ghost.id)
    shown = (await client.get("/admin/notes", headers=admin_headers)).json()["notes"][0]
    assert shown["author_id"] == ghost.id
    assert shown["author"]["email"] == "ghost@test.com" and shown["author"]["deleted_at"] is not None
    shown = (await client.get(f"/admin/notes/{made.id}", headers=admin_headers)).json()["note"]
    assert shown["author"]["id"] == ghost.id


@pytest.mark.parametrize("query,message", [
    ("resource_type=order", "property resource_type should not exist"),
    ("limit=x", "limit must be a number"),
    ("expand=author", "property expand should not exist"),
])
async def test_list_with_a_bad_query_is_a_400(client, admin_headers, query, message):
    r = await client.get(f"/admin/notes?{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json()["type"] == "invalid_data" and message in r.json()["message"]


async def test_list_runs_as_many_statements_for_one_note_as_for_many(client, admin, admin_headers):
    authors = [admin] + [await create_user(f"user{i}@test.com", "supersecret") for i in range(4)]
    await note("only", author_id=admin.id)
    async with count_queries() as one:
        r1 = await client.get("/admin/notes?resource_id=order_1", headers=admin_headers)
    for i in range(29):
        await note(f"n{i}", author_id=authors[i % len(authors)].id)
    async with count_queries() as many:
        r30 = await client.get("/admin/notes?resource_id=order_1", headers=admin_headers)
    assert len(r1.json()["notes"]) == 1 and len(r30.json()["notes"]) == 30
    assert len({n["author"]["id"] for n in r30.json()["notes"]}) == 5
    # The sign-in check, the page and the authors (the count is known from a short page).
    assert len(one) == len(many) <= 3, many


# ---------------------------------------------------------------- get, update, delete


async def test_get_shows_the_note_with_its_author(client, admin, admin_headers):
    made = await note("hello", author_id=admin.id)
    r = await client.get(f"/admin/notes/{made.id}", headers=admin_headers)
    assert r.status_code == 200
    assert r.json()["note"]["value"] == "hello" and r.json()["note"]["author"]["id"] == admin.id


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
@pytest.mark.parametrize("note_id", ["note_missing", "note_" + "x" * 100])
async def test_an_unknown_note_is_a_404(client, admin_headers, method, note_id):
    r = await client.request(method, f"/admin/notes/{note_id}", headers=admin_headers,
                             json={"value": "x"} if method == "POST" else None)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": f"Note with id: {note_id} was not found."}


async def test_update_changes_the_value_only(client, admin, admin_headers):
    made = await note("draft", author_id=admin.id)
    r = await client.post(f"/admin/notes/{made.id}", json={"value": "final"}, headers=admin_headers)
    assert r.status_code == 200
    updated = r.json()["note"]
    assert (updated["value"], updated["resource_id"], updated["author_id"]) == ("final", "order_1", admin.id)
    assert updated["updated_at"] > updated["created_at"]


@pytest.mark.parametrize("body,message", [
    ({}, "value should not be empty"),
    ({"value": ""}, "value should not be empty"),
    ({"value": "x", "resource_id": "order_2"}, "property resource_id should not exist"),
])
async def test_update_with_bad_input_is_a_400(client, admin, admin_headers, body, message):
    made = await note("draft", author_id=admin.id)
    r = await client.post(f"/admin/notes/{made.id}", json=body, headers=admin_headers)
    assert r.status_code == 400 and message in r.json()["message"]
    assert (await Note.get(id=made.id)).value == "draft"


async def test_delete_soft_deletes_the_note_and_a_second_delete_is_a_404(client, admin, admin_headers):
    made = await note("bye", author_id=admin.id)
    r = await client.delete(f"/admin/notes/{made.id}", headers=admin_headers)
    assert r.status_code == 200
    assert r.json() == {"id": made.id, "object": "note", "deleted": True}
    assert (await client.get(f"/admin/notes/{made.id}", headers=admin_headers)).status_code == 404
    assert (await client.get("/admin/notes", headers=admin_headers)).json()["count"] == 0
    assert (await Note.get(id=made.id)).deleted_at is not None
    assert (await client.delete(f"/admin/notes/{made.id}", headers=admin_headers)).status_code == 404

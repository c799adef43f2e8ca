"""Admin return reasons: `/admin/return-reasons`, and the store's read-only view of them
(Medusa's test `admin/return-reason.js`)."""

import asyncio

import pytest

from models import ReturnReason
from tests.conftest import count_queries, requires_postgres

REASON_COLUMNS = {
    "id", "value", "label", "parent_return_reason_id", "description", "metadata", "created_at", "updated_at",
    "deleted_at",
}
SHOWN = REASON_COLUMNS | {"parent_return_reason", "return_reason_children"}


async def create(client, headers, **body) -> dict:
    r = await client.post("/admin/return-reasons", json=body, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["return_reason"]


async def reason(value: str, **columns) -> ReturnReason:
    return await ReturnReason.create(value=value, label=value.title(), **columns)


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/return-reasons"),
    ("POST", "/admin/return-reasons"),
    ("GET", "/admin/return-reasons/rr_1"),
    ("POST", "/admin/return-reasons/rr_1"),
    ("DELETE", "/admin/return-reasons/rr_1"),
])
async def test_every_admin_route_needs_a_signed_in_user(client, method, path):
    await reason("too_big", id="rr_1")
    r = await client.request(method, path, json={"value": "x", "label": "x"} if method == "POST" else None)
    assert r.status_code == 401
    assert r.json()["type"] == "unauthorized"
    assert await ReturnReason.filter(id="rr_1", value="too_big", deleted_at=None).exists()


# ---------------------------------------------------------------- create


async def test_create_answers_200_with_an_rr_id_no_parent_and_no_children(client, admin_headers):
    created = await create(client, admin_headers, value="too_big", label="Too Big",
                           description="Use this if the size was too big", metadata={"source": "ui"})
    assert set(created) == SHOWN
    assert created["id"].startswith("rr_")
    assert (created["value"], created["label"]) == ("too_big", "Too Big")
    assert created["description"] == "Use this if the size was too big"
    assert created["metadata"] == {"source": "ui"}
    assert created["parent_return_reason_id"] is None and created["parent_return_reason"] is None
    assert created["return_reason_children"] == [] and created["deleted_at"] is None
    assert await ReturnReason.filter(id=created["id"]).exists()


async def test_a_child_shows_its_parent_and_the_parent_shows_the_child(client, admin_headers):
    parent = await create(client, admin_headers, value="size", label="Wrong size")
    child = await create(client, admin_headers, value="too_big", label="Too Big",
                         parent_return_reason_id=parent["id"])
    assert child["parent_return_reason_id"] == parent["id"]
    assert child["parent_return_reason"]["id"] == parent["id"]
    assert set(child["parent_return_reason"]) == REASON_COLUMNS
    r = await client.get(f"/admin/return-reasons/{parent['id']}", headers=admin_headers)
    assert [c["id"] for c in r.json()["return_reason"]["return_reason_children"]] == [child["id"]]


async def test_a_child_of_a_child_is_refused(client, admin_headers):
    parent = await create(client, admin_headers, value="size", label="Wrong size")
    child = await create(client, admin_headers, value="too_big", label="Too Big", parent_return_reason_id=parent["id"])
    r = await client.post("/admin/return-reasons", headers=admin_headers,
                          json={"value": "large_size", "label": "Too large", "parent_return_reason_id": child["id"]})
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": "Doubly nested return reasons is not supported"}
    assert not await ReturnReason.filter(value="large_size").exists()


async def test_an_unknown_parent_is_a_404_and_an_empty_one_means_none(client, admin_headers):
    r = await client.post("/admin/return-reasons", headers=admin_headers,
                          json={"value": "x", "label": "X", "parent_return_reason_id": "rr_missing"})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Return Reason with id: rr_missing was not found."}
    created = await create(client, admin_headers, value="x", label="X", parent_return_reason_id="")
    assert created["parent_return_reason_id"] is None


async def test_a_deleted_parent_cannot_take_children(client, admin_headers):
    parent = await reason("size")
    await client.delete(f"/admin/return-reasons/{parent.id}", headers=admin_headers)
    r = await client.post("/admin/return-reasons", headers=admin_headers,
                          json={"value": "x", "label": "X", "parent_return_reason_id": parent.id})
    assert r.status_code == 404


async def test_a_value_in_use_is_a_422_but_a_deleted_reasons_value_is_free(client, admin_headers):
    first = await create(client, admin_headers, value="too_big", label="Too Big")
    r = await client.post("/admin/return-reasons", json={"value": "too_big", "label": "Again"}, headers=admin_headers)
    assert r.status_code == 422
    assert r.json()["type"] == "duplicate_error"
    assert r.json()["message"] == "Return_reason with value too_big already exists."
    await client.delete(f"/admin/return-reasons/{first['id']}", headers=admin_headers)
    again = await create(client, admin_headers, value="too_big", label="Again")
    assert again["id"] != first["id"]


@requires_postgres("concurrent inserts race only on a server database")
async def test_two_concurrent_creates_of_one_value_make_one_reason(client, admin_headers):
    body = {"value": "racy", "label": "Racy"}
    answers = await asyncio.gather(*[
        client.post("/admin/return-reasons", json=body, headers=admin_headers) for _ in range(4)
    ])
    assert sorted(a.status_code for a in answers) == [200, 422, 422, 422]
    assert await ReturnReason.filter(value="racy").count() == 1


@pytest.mark.parametrize("body,message", [
    ({"label": "X"}, "value should not be empty"),
    ({"value": "x"}, "label should not be empty"),
    ({"value": "", "label": "X"}, "value should not be empty"),
    ({"value": 7, "label": "X"}, "value must be a string"),
    ({"value": "x" * 256, "label": "X"}, "value must be shorter than or equal to 255 characters"),
    ({"value": "x", "label": "X", "description": 1}, "description must be a string"),
    ({"value": "x", "label": "X", "parent_return_reason_id": 1}, "parent_return_reason_id must be a string"),
    ({"value": "x", "label": "X", "metadata": "m"}, "metadata must be an object"),
    ({"value": "x", "label": "X", "other": 1}, "property other should not exist"),
])
async def test_create_with_bad_input_is_a_400_and_creates_nothing(client, admin_headers, body, message):
    r = await client.post("/admin/return-reasons", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json()["type"] == "invalid_data" and message in r.json()["message"]
    assert await ReturnReason.all().count() == 0


# ---------------------------------------------------------------- list and get


async def test_list_shows_live_top_level_reasons_oldest_first_with_their_live_children(client, admin_headers):
    size = await reason("size")
    big = await reason("too_big", parent_return_reason_id=size.id)
    await reason("too_small", parent_return_reason_id=size.id, deleted_at=size.created_at)
    damaged = await reason("damaged", description="Arrived broken")
    await reason("gone", deleted_at=size.created_at)
    r = await client.get("/admin/return-reasons", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"return_reasons"}
    assert [x["id"] for x in body["return_reasons"]] == [size.id, damaged.id]
    first = body["return_reasons"][0]
    assert set(first) == SHOWN and first["parent_return_reason"] is None
    assert [c["id"] for c in first["return_reason_children"]] == [big.id]
    assert first["return_reason_children"][0]["parent_return_reason_id"] == size.id
    assert body["return_reasons"][1]["return_reason_children"] == []


async def test_list_runs_as_many_statements_for_one_reason_as_for_many(client, admin_headers):
    parent = await reason("first")
    await reason("first_child", parent_return_reason_id=parent.id)
    async with count_queries() as one:
        r1 = await client.get("/admin/return-reasons", headers=admin_headers)
    for i in range(30):
        p = await reason(f"parent_{i}")
        for j in range(2):
            await reason(f"child_{i}_{j}", parent_return_reason_id=p.id)
    async with count_queries() as many:
        r31 = await client.get("/admin/return-reasons", headers=admin_headers)
    assert len(r1.json()["return_reasons"]) == 1 and len(r31.json()["return_reasons"]) == 31
    assert all(len(x["return_reason_children"]) in (1, 2) for x in r31.json()["return_reasons"])
    # The sign-in check, the reasons and their children (a parent is never loaded: none has one).
    assert len(one) == len(many) <= 3, many


async def test_get_shows_a_reason_with_its_parent_and_children(client, admin_headers):
    size = await reason("size")
    big = await reason("too_big", parent_return_reason_id=size.id)
    r = await client.get(f"/admin/return-reasons/{big.id}", headers=admin_headers)
    assert r.status_code == 200
    shown = r.json()["return_reason"]
    assert set(shown) == SHOWN
    assert shown["parent_return_reason"]["value"] == "size" and shown["return_reason_children"] == []


@pytest.mark.parametrize("reason_id", ["rr_missing", "rr_" + "x" * 100])
async def test_get_of_an_unknown_reason_is_a_404(client, admin_headers, reason_id):
    r = await client.get(f"/admin/return-reasons/{reason_id}", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": f"Return Reason with id: {reason_id} was not found."}


# ---------------------------------------------------------------- update


async def test_update_changes_the_given_fields_and_merges_metadata(client, admin_headers):
    created = await create(client, admin_headers, value="too_big", label="Too Big", description="d",
                           metadata={"a": 1, "b": 2})
    r = await client.post(f"/admin/return-reasons/{created['id']}", headers=admin_headers,
                          json={"label": "Much too big", "metadata": {"b": "", "c": 3}})
    assert r.status_code == 200
    updated = r.json()["return_reason"]
    assert (updated["value"], updated["label"], updated["description"]) == ("too_big", "Much too big", "d")
    assert updated["metadata"] == {"a": 1, "c": 3}
    r = await client.post(f"/admin/return-reasons/{created['id']}", headers=admin_headers,
                          json={"value": "huge", "description": None})
    assert (r.json()["return_reason"]["value"], r.json()["return_reason"]["description"]) == ("huge", None)


async def test_update_to_a_value_in_use_is_a_422(client, admin_headers):
    await reason("damaged")
    big = await reason("too_big")
    r = await client.post(f"/admin/return-reasons/{big.id}", json={"value": "damaged"}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["type"] == "duplicate_error"
    assert (await ReturnReason.get(id=big.id)).value == "too_big"
    r = await client.post(f"/admin/return-reasons/{big.id}", json={"value": "too_big"}, headers=admin_headers)
    assert r.status_code == 200  # its own value


@pytest.mark.parametrize("body,message", [
    ({"label": None}, "label must be a string"),
    ({"value": ""}, "value should not be empty"),
    ({"parent_return_reason_id": "rr_1"}, "property parent_return_reason_id should not exist"),
])
async def test_update_with_bad_input_is_a_400(client, admin_headers, body, message):
    big = await reason("too_big")
    r = await client.post(f"/admin/return-reasons/{big.id}", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json()["type"] == "invalid_data" and message in r.json()["message"]


async def test_update_of_an_unknown_reason_is_a_404(client, admin_headers):
    r = await client.post("/admin/return-reasons/rr_missing", json={"label": "x"}, headers=admin_headers)
    assert r.status_code == 404
    assert r.json()["message"] == "Return Reason with id: rr_missing was not found."


# ---------------------------------------------------------------- delete


async def test_deleting_a_parent_soft_deletes_it_and_its_children(client, admin_headers):
    size = await reason("size")
    big = await reason("too_big", parent_return_reason_id=size.id)
    other = await reason("damaged")
    r = await client.delete(f"/admin/return-reasons/{size.id}", headers=admin_headers)
    assert r.status_code == 200
    assert r.json() == {"id": size.id, "object": "return_reason", "deleted": True}
    for gone in (size.id, big.id):
        assert (await client.get(f"/admin/return-reasons/{gone}", headers=admin_headers)).status_code == 404
        assert (await ReturnReason.get(id=gone)).deleted_at is not None  # kept, as a soft delete
    listed = (await client.get("/admin/return-reasons", headers=admin_headers)).json()["return_reasons"]
    assert [x["id"] for x in listed] == [other.id]


async def test_deleting_a_child_leaves_its_parent(client, admin_headers):
    size = await reason("size")
    big = await reason("too_big", parent_return_reason_id=size.id)
    await client.delete(f"/admin/return-reasons/{big.id}", headers=admin_headers)
    shown = (await client.get(f"/admin/return-reasons/{size.id}", headers=admin_headers)).json()["return_reason"]
    assert shown["return_reason_children"] == []


async def test_deleting_an_unknown_or_deleted_reason_answers_200_and_changes_nothing(client, admin_headers):
    big = await reason("too_big")
    for _ in range(2):
        r = await client.delete(f"/admin/return-reasons/{big.id}", headers=admin_headers)
        assert r.status_code == 200
    stamp = (await ReturnReason.get(id=big.id)).deleted_at
    r = await client.delete(f"/admin/return-reasons/{big.id}", headers=admin_headers)
    assert (await ReturnReason.get(id=big.id)).deleted_at == stamp
    r = await client.delete("/admin/return-reasons/rr_missing", headers=admin_headers)
    assert r.json() == {"id": "rr_missing", "object": "return_reason", "deleted": True}


# ---------------------------------------------------------------- store


async def test_the_store_lists_and_shows_reasons_without_signing_in(client):
    size = await reason("size")
    big = await reason("too_big", parent_return_reason_id=size.id)
    r = await client.get("/store/return-reasons")
    assert r.status_code == 200
    listed = r.json()["return_reasons"]
    assert [x["id"] for x in listed] == [size.id]
    assert [c["id"] for c in listed[0]["return_reason_children"]] == [big.id]
    r = await client.get(f"/store/return-reasons/{big.id}")
    assert r.status_code == 200
    assert set(r.json()["return_reason"]) == SHOWN
    assert r.json()["return_reason"]["parent_return_reason"]["id"] == size.id
    r = await client.get("/store/return-reasons/rr_missing")
    assert r.status_code == 404 and r.json()["type"] == "not_found"

"""Admin publishable API keys: `/admin/publishable-api-keys`, revocation and their sales channels
(Medusa's test `admin/publishable-api-key.ts`)."""

import asyncio

import pytest

from models import PublishableApiKey, SalesChannel
from tests.conftest import count_queries, requires_postgres

KEY_COLUMNS = {"id", "title", "created_by", "revoked_by", "revoked_at", "created_at", "updated_at"}


async def create(client, headers, title: str = "Web store") -> dict:
    r = await client.post("/admin/publishable-api-keys", json={"title": title}, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["publishable_api_key"]


async def link(client, headers, key_id: str, *channel_ids: str, method: str = "POST"):
    return await client.request(method, f"/admin/publishable-api-keys/{key_id}/sales-channels/batch", headers=headers,
                                json={"sales_channel_ids": [{"id": c} for c in channel_ids]})


async def key_channel_ids(key_id: str) -> set[str]:
    key = await PublishableApiKey.get(id=key_id)
    return {c.id for c in await key.sales_channels.all()}


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/publishable-api-keys"),
    ("POST", "/admin/publishable-api-keys"),
    ("GET", "/admin/publishable-api-keys/pk_1"),
    ("POST", "/admin/publishable-api-keys/pk_1"),
    ("DELETE", "/admin/publishable-api-keys/pk_1"),
    ("POST", "/admin/publishable-api-keys/pk_1/revoke"),
    ("GET", "/admin/publishable-api-keys/pk_1/sales-channels"),
    ("POST", "/admin/publishable-api-keys/pk_1/sales-channels/batch"),
    ("DELETE", "/admin/publishable-api-keys/pk_1/sales-channels/batch"),
])
async def test_every_admin_route_needs_a_signed_in_user(client, method, path):
    await PublishableApiKey.create(id="pk_1", title="Web")
    body = {"sales_channel_ids": []} if path.endswith("batch") else {"title": "x"}
    r = await client.request(method, path, json=body if method != "GET" else None)
    assert r.status_code == 401
    assert r.json()["type"] == "unauthorized"
    key = await PublishableApiKey.get(id="pk_1")
    assert (key.title, key.revoked_at) == ("Web", None)


# ---------------------------------------------------------------- create, read, update


async def test_create_answers_200_with_a_pk_id_made_by_the_signed_in_user(client, admin, admin_headers):
    created = await create(client, admin_headers, "Web store")
    assert set(created) == KEY_COLUMNS
    assert created["id"].startswith("pk_")
    assert (created["title"], created["created_by"]) == ("Web store", admin.id)
    assert created["revoked_by"] is None and created["revoked_at"] is None
    r = await client.get(f"/admin/publishable-api-keys/{created['id']}", headers=admin_headers)
    assert r.status_code == 200 and r.json()["publishable_api_key"] == created


@pytest.mark.parametrize("body,message", [
    ({}, "title should not be empty"),
    ({"title": ""}, "title should not be empty"),
    ({"title": 1}, "title must be a string"),
    ({"title": "x" * 256}, "title must be shorter than or equal to 255 characters"),
    ({"title": "Web", "created_by": "usr_1"}, "property created_by should not exist"),
])
async def test_a_malformed_create_is_refused_and_creates_nothing(client, admin_headers, body, message):
    r = await client.post("/admin/publishable-api-keys", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert await PublishableApiKey.all().count() == 0


async def test_an_unknown_key_is_not_found(client, admin_headers):
    for method, path in (("GET", ""), ("POST", ""), ("POST", "/revoke"), ("POST", "/sales-channels/batch"),
                         ("DELETE", "/sales-channels/batch"), ("GET", "/sales-channels")):
        body = {"sales_channel_ids": []} if path.endswith("batch") else {}
        r = await client.request(method, f"/admin/publishable-api-keys/pk_missing{path}", headers=admin_headers,
                                 json=body if method != "GET" else None)
        assert r.status_code == 404, (method, path)
        assert r.json() == {"type": "not_found", "message": "Publishable key with id: pk_missing was not found"}


async def test_update_changes_the_title(client, admin_headers):
    key = await create(client, admin_headers, "Old")
    r = await client.post(f"/admin/publishable-api-keys/{key['id']}", json={"title": "New"}, headers=admin_headers)
    assert r.status_code == 200 and r.json()["publishable_api_key"]["title"] == "New"
    r = await client.post(f"/admin/publishable-api-keys/{key['id']}", json={}, headers=admin_headers)
    assert r.json()["publishable_api_key"]["title"] == "New"
    r = await client.post(f"/admin/publishable-api-keys/{key['id']}", json={"title": None}, headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == "title must be a string"
    assert (await PublishableApiKey.get(id=key["id"])).title == "New"


# ---------------------------------------------------------------- list


async def test_list_pages_keys_newest_first_and_finds_them_by_title(client, admin_headers):
    first = await create(client, admin_headers, "Special one")
    second = await create(client, admin_headers, "Plain")
    third = await create(client, admin_headers, "Another SPECIAL")
    body = (await client.get("/admin/publishable-api-keys", headers=admin_headers)).json()
    assert [k["id"] for k in body["publishable_api_keys"]] == [third["id"], second["id"], first["id"]]
    assert (body["count"], body["offset"], body["limit"]) == (3, 0, 20)
    body = (await client.get("/admin/publishable-api-keys?limit=2", headers=admin_headers)).json()
    assert len(body["publishable_api_keys"]) == 2 and body["count"] == 3
    body = (await client.get("/admin/publishable-api-keys?q=special", headers=admin_headers)).json()
    assert {k["id"] for k in body["publishable_api_keys"]} == {first["id"], third["id"]} and body["count"] == 2
    body = (await client.get("/admin/publishable-api-keys?limit=1000", headers=admin_headers)).json()
    assert body["limit"] == 100


async def test_list_filters_by_revocation_date_and_refuses_unknown_keys(client, admin_headers):
    kept = await create(client, admin_headers, "Kept")
    revoked = await create(client, admin_headers, "Revoked")
    await client.post(f"/admin/publishable-api-keys/{revoked['id']}/revoke", headers=admin_headers)
    body = (await client.get("/admin/publishable-api-keys?revoked_at[gt]=2000-01-01", headers=admin_headers)).json()
    assert [k["id"] for k in body["publishable_api_keys"]] == [revoked["id"]]
    body = (await client.get("/admin/publishable-api-keys", headers=admin_headers)).json()
    assert {k["id"] for k in body["publishable_api_keys"]} == {kept["id"], revoked["id"]}
    r = await client.get("/admin/publishable-api-keys?title=Kept", headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == "property title should not exist"


async def test_the_list_takes_the_same_statements_for_one_key_or_twenty_with_their_channels(client, admin_headers):
    channels = [await SalesChannel.create(name=f"Channel {i}") for i in range(3)]
    for i in range(20):
        key = await PublishableApiKey.create(title=f"Key {i}")
        await key.sales_channels.add(*channels[: 1 + i % 3])
    async with count_queries() as one:
        r1 = await client.get("/admin/publishable-api-keys?limit=1&expand=sales_channels", headers=admin_headers)
    async with count_queries() as twenty:
        r20 = await client.get("/admin/publishable-api-keys?limit=20&expand=sales_channels", headers=admin_headers)
    keys = r20.json()["publishable_api_keys"]
    assert len(r1.json()["publishable_api_keys"]) == 1 and len(keys) == 20
    assert sorted(len(k["sales_channels"]) for k in keys) == sorted(1 + i % 3 for i in range(20))
    assert set(keys[0]["sales_channels"][0]) == {
        "id", "name", "description", "is_disabled", "metadata", "created_at", "updated_at", "deleted_at"}
    # The page, its count, the link rows, the channels, and the admin's sign-in check.
    assert len(one) == len(twenty) == 5, twenty


# ---------------------------------------------------------------- revoke and delete


async def test_revoke_records_who_and_when_and_a_second_revoke_is_refused(client, admin, admin_headers):
    key = await create(client, admin_headers)
    r = await client.post(f"/admin/publishable-api-keys/{key['id']}/revoke", headers=admin_headers)
    assert r.status_code == 200, r.text
    revoked = r.json()["publishable_api_key"]
    assert revoked["revoked_by"] == admin.id and revoked["revoked_at"] is not None
    r = await client.post(f"/admin/publishable-api-keys/{key['id']}/revoke", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed", "message": "PublishableApiKey has already been revoked."}
    stored = await PublishableApiKey.get(id=key["id"])
    assert stored.revoked_at.isoformat() == revoked["revoked_at"]


@requires_postgres("concurrent requests race only on a server database")
async def test_of_concurrent_revokes_exactly_one_succeeds(client, admin_headers):
    key = await create(client, admin_headers)
    answers = await asyncio.gather(*[
        client.post(f"/admin/publishable-api-keys/{key['id']}/revoke", headers=admin_headers) for _ in range(4)
    ])
    assert sorted(a.status_code for a in answers) == [200, 400, 400, 400]


@requires_postgres("concurrent requests race only on a server database")
async def test_concurrent_batches_link_each_channel_once(client, admin_headers):
    key = await create(client, admin_headers)
    channels = [await SalesChannel.create(name=f"Channel {i}") for i in range(3)]
    answers = await asyncio.gather(*[link(client, admin_headers, key["id"], *[c.id for c in channels])
                                     for _ in range(4)])
    assert [a.status_code for a in answers] == [200] * 4
    assert await key_channel_ids(key["id"]) == {c.id for c in channels}


async def test_delete_removes_the_key_and_its_links_and_is_idempotent(client, admin_headers):
    channel = await SalesChannel.create(name="Web")
    key = await create(client, admin_headers)
    await link(client, admin_headers, key["id"], channel.id)
    for _ in range(2):
        r = await client.delete(f"/admin/publishable-api-keys/{key['id']}", headers=admin_headers)
        assert r.status_code == 200
        assert r.json() == {"id": key["id"], "object": "publishable_api_key", "deleted": True}
    assert not await PublishableApiKey.filter(id=key["id"]).exists()
    assert await channel.publishable_api_keys.all().count() == 0
    r = await client.get(f"/admin/publishable-api-keys/{key['id']}", headers=admin_headers)
    assert r.status_code == 404


# ---------------------------------------------------------------- sales channels


async def test_channels_are_linked_once_listed_found_by_q_and_unlinked(client, admin_headers):
    # Given a key and three channels
    key = await create(client, admin_headers)
    web = await SalesChannel.create(name="Web", description="Main shop")
    app = await SalesChannel.create(name="App", description="Mobile")
    pos = await SalesChannel.create(name="Retail", description="Point of sale, WEB orders")
    # When two are linked, twice
    for _ in range(2):
        r = await link(client, admin_headers, key["id"], web.id, app.id, web.id)
        assert r.status_code == 200, r.text
        assert set(r.json()["publishable_api_key"]) == KEY_COLUMNS
    # I expect each once, listed oldest first
    r = await client.get(f"/admin/publishable-api-keys/{key['id']}/sales-channels", headers=admin_headers)
    assert [c["id"] for c in r.json()["sales_channels"]] == [web.id, app.id]
    await link(client, admin_headers, key["id"], pos.id)
    r = await client.get(f"/admin/publishable-api-keys/{key['id']}/sales-channels?q=web", headers=admin_headers)
    assert [c["id"] for c in r.json()["sales_channels"]] == [web.id, pos.id]
    # When the web channel and one never linked are unlinked
    other = await SalesChannel.create(name="Other")
    r = await link(client, admin_headers, key["id"], web.id, other.id, "sc_unknown", method="DELETE")
    assert r.status_code == 200, r.text
    assert await key_channel_ids(key["id"]) == {app.id, pos.id}
    # A deleted channel is no longer listed
    await SalesChannel.filter(id=app.id).update(deleted_at=app.created_at)
    r = await client.get(f"/admin/publishable-api-keys/{key['id']}/sales-channels", headers=admin_headers)
    assert [c["id"] for c in r.json()["sales_channels"]] == [pos.id]


async def test_an_unknown_or_deleted_channel_links_none(client, admin_headers):
    key = await create(client, admin_headers)
    web, gone = await SalesChannel.create(name="Web"), await SalesChannel.create(name="Gone")
    await SalesChannel.filter(id=gone.id).update(deleted_at=gone.created_at)
    for missing in ("sc_unknown", gone.id):
        r = await link(client, admin_headers, key["id"], web.id, missing)
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"Sales channel with id: {missing} was not found"}
    assert await key_channel_ids(key["id"]) == set()


@pytest.mark.parametrize("body,message", [
    ({}, "sales_channel_ids should not be empty"),
    ({"sales_channel_ids": "sc_1"}, "sales_channel_ids must be an array"),
    ({"sales_channel_ids": [{}]}, "id should not be empty"),
    ({"sales_channel_ids": [{"id": "sc"}] * 1001}, "sales_channel_ids must contain no more than 1000 elements"),
])
async def test_a_malformed_channel_batch_is_refused(client, admin_headers, body, message):
    key = await create(client, admin_headers)
    r = await client.post(f"/admin/publishable-api-keys/{key['id']}/sales-channels/batch", json=body,
                          headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_a_key_is_read_with_its_channels_when_asked(client, admin_headers):
    key = await create(client, admin_headers)
    web = await SalesChannel.create(name="Web")
    await link(client, admin_headers, key["id"], web.id)
    r = await client.get(f"/admin/publishable-api-keys/{key['id']}?expand=sales_channels", headers=admin_headers)
    assert [c["id"] for c in r.json()["publishable_api_key"]["sales_channels"]] == [web.id]
    r = await client.get(f"/admin/publishable-api-keys/{key['id']}?expand=products", headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == "Requested relations [products] are not valid"

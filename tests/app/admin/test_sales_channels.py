"""Admin sales channels: `/admin/sales-channels` and their products (Medusa's test
`admin/sales-channels.js`)."""

import asyncio
from urllib.parse import quote

import pytest

from models import Product, SalesChannel
from services.store.defaults import get_store
from tests.conftest import count_queries, requires_postgres

CHANNEL_COLUMNS = {"id", "name", "description", "is_disabled", "metadata", "created_at", "updated_at", "deleted_at"}


async def create(client, headers, **body) -> dict:
    r = await client.post("/admin/sales-channels", json=body, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["sales_channel"]


async def product(handle: str, **columns) -> Product:
    return await Product.create(title=handle.title(), handle=handle, status="published", **columns)


async def channel_product_ids(channel_id: str) -> set[str]:
    channel = await SalesChannel.get(id=channel_id)
    return {p.id for p in await channel.products.all()}


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/sales-channels"),
    ("POST", "/admin/sales-channels"),
    ("GET", "/admin/sales-channels/sc_1"),
    ("POST", "/admin/sales-channels/sc_1"),
    ("DELETE", "/admin/sales-channels/sc_1"),
    ("POST", "/admin/sales-channels/sc_1/products/batch"),
    ("DELETE", "/admin/sales-channels/sc_1/products/batch"),
])
async def test_every_admin_route_needs_a_signed_in_user(client, method, path):
    await SalesChannel.create(id="sc_1", name="Web")
    body = {"name": "x"} if path.endswith("sc_1") or path.endswith("channels") else {"product_ids": []}
    r = await client.request(method, path, json=body if method != "GET" else None)
    assert r.status_code == 401
    assert r.json()["type"] == "unauthorized"
    assert await SalesChannel.filter(id="sc_1", name="Web", deleted_at=None).exists()


async def test_the_dashboard_is_told_sales_channels_and_publishable_keys_are_on(client, admin_headers):
    store = (await client.get("/admin/store", headers=admin_headers)).json()["store"]
    flags = {f["key"]: f["value"] for f in store["feature_flags"]}
    assert flags["sales_channels"] is True and flags["publishable_api_keys"] is True


async def test_stock_location_routes_do_not_exist_without_an_inventory_module(client, admin_headers):
    channel = await SalesChannel.create(name="Web")
    for method in ("POST", "DELETE"):
        r = await client.request(method, f"/admin/sales-channels/{channel.id}/stock-locations",
                                 json={"location_id": "sloc_1"}, headers=admin_headers)
        assert r.status_code == 404 and r.json()["type"] == "not_found"


# ---------------------------------------------------------------- create, read, update


async def test_create_answers_200_with_an_sc_id_enabled_unless_told(client, admin_headers):
    created = await create(client, admin_headers, name="Web shop", description="The main shop")
    assert set(created) == CHANNEL_COLUMNS
    assert created["id"].startswith("sc_")
    assert (created["name"], created["description"], created["is_disabled"]) == ("Web shop", "The main shop", False)
    assert created["deleted_at"] is None and created["metadata"] is None
    disabled = await create(client, admin_headers, name="App", is_disabled=True, metadata={"team": "mobile"})
    assert disabled["is_disabled"] is True and disabled["description"] is None
    assert disabled["metadata"] == {"team": "mobile"}


@pytest.mark.parametrize("body,message", [
    ({}, "name should not be empty"),
    ({"name": ""}, "name should not be empty"),
    ({"name": 3}, "name must be a string"),
    ({"name": "x" * 256}, "name must be shorter than or equal to 255 characters"),
    ({"name": "Web", "is_disabled": "yes"}, "is_disabled must be a boolean value"),
    ({"name": "Web", "locations": []}, "property locations should not exist"),
])
async def test_a_malformed_create_is_refused_and_creates_nothing(client, admin_headers, body, message):
    before = await SalesChannel.all().count()
    r = await client.post("/admin/sales-channels", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert await SalesChannel.all().count() == before


async def test_get_answers_the_channel_and_an_unknown_or_deleted_one_is_not_found(client, admin_headers):
    channel = await SalesChannel.create(name="Web")
    r = await client.get(f"/admin/sales-channels/{channel.id}", headers=admin_headers)
    assert r.status_code == 200 and r.json()["sales_channel"]["name"] == "Web"
    await SalesChannel.filter(id=channel.id).update(deleted_at=channel.created_at)
    for channel_id in (channel.id, "sc_missing", "sc_" + "x" * 100):
        r = await client.get(f"/admin/sales-channels/{channel_id}", headers=admin_headers)
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"Sales channel with id: {channel_id} was not found"}


async def test_update_changes_only_what_is_sent_and_merges_metadata(client, admin_headers):
    channel = await SalesChannel.create(name="Web", description="Shop", metadata={"a": 1, "b": 2})
    r = await client.post(f"/admin/sales-channels/{channel.id}", headers=admin_headers,
                          json={"is_disabled": True, "metadata": {"b": "", "c": 3}})
    assert r.status_code == 200, r.text
    updated = r.json()["sales_channel"]
    assert (updated["name"], updated["description"], updated["is_disabled"]) == ("Web", "Shop", True)
    assert updated["metadata"] == {"a": 1, "c": 3}
    r = await client.post(f"/admin/sales-channels/{channel.id}", json={"name": "Online", "description": None},
                          headers=admin_headers)
    assert (r.json()["sales_channel"]["name"], r.json()["sales_channel"]["description"]) == ("Online", None)
    stored = await SalesChannel.get(id=channel.id)
    assert (stored.name, stored.description, stored.is_disabled) == ("Online", None, True)


async def test_update_refuses_null_names_and_unknown_channels(client, admin_headers):
    channel = await SalesChannel.create(name="Web")
    r = await client.post(f"/admin/sales-channels/{channel.id}", json={"name": None}, headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == "name must be a string"
    r = await client.post("/admin/sales-channels/sc_missing", json={"name": "x"}, headers=admin_headers)
    assert r.status_code == 404
    assert r.json()["message"] == "Sales channel with id: sc_missing was not found"


# ---------------------------------------------------------------- list


async def test_list_pages_the_live_channels_newest_first_with_the_default_one(client, admin_headers):
    store = await get_store()
    web = await create(client, admin_headers, name="Web")
    app = await create(client, admin_headers, name="App")
    gone = await create(client, admin_headers, name="Gone")
    await client.delete(f"/admin/sales-channels/{gone['id']}", headers=admin_headers)
    body = (await client.get("/admin/sales-channels", headers=admin_headers)).json()
    assert [c["id"] for c in body["sales_channels"]] == [app["id"], web["id"], store.default_sales_channel_id]
    assert (body["count"], body["offset"], body["limit"]) == (3, 0, 20)
    body = (await client.get("/admin/sales-channels?limit=1&offset=1", headers=admin_headers)).json()
    assert [c["id"] for c in body["sales_channels"]] == [web["id"]] and body["count"] == 3
    body = (await client.get("/admin/sales-channels?limit=500", headers=admin_headers)).json()
    assert body["limit"] == 100


async def test_list_filters_by_q_name_description_id_and_dates(client, admin_headers):
    web = await create(client, admin_headers, name="Web shop", description="Sells online")
    market = await create(client, admin_headers, name="Marketplace", description="Partner WEB listings")
    await create(client, admin_headers, name="Retail", description="Stores")

    async def names(query: str) -> list[str]:
        r = await client.get(f"/admin/sales-channels?{query}", headers=admin_headers)
        assert r.status_code == 200, r.text
        return sorted(c["name"] for c in r.json()["sales_channels"])

    assert await names("q=web") == ["Marketplace", "Web shop"]  # the name or the description, any case
    assert await names("name=Retail") == ["Retail"]
    assert await names("description=Sells%20online") == ["Web shop"]
    assert await names(f"id={market['id']}") == ["Marketplace"]
    assert await names(f"created_at[gte]={quote(web['created_at'])}&q=shop") == ["Web shop"]
    assert await names("created_at[lt]=2000-01-01") == []
    assert await names("order=name&limit=2") == ["Default Sales Channel", "Marketplace"]


async def test_a_deleted_at_filter_lets_deleted_channels_match(client, admin_headers):
    gone = await create(client, admin_headers, name="Gone")
    await client.delete(f"/admin/sales-channels/{gone['id']}", headers=admin_headers)
    r = await client.get("/admin/sales-channels?deleted_at[gt]=2000-01-01", headers=admin_headers)
    assert [c["id"] for c in r.json()["sales_channels"]] == [gone["id"]]
    assert r.json()["sales_channels"][0]["deleted_at"] is not None


@pytest.mark.parametrize("query,message", [
    ("is_disabled=true", "property is_disabled should not exist"),
    ("order=products", "Order field products is not valid"),
    ("expand=products", "Requested relations [products] are not valid"),
    ("limit=x", "limit must be a number conforming to the specified constraints"),
])
async def test_list_refuses_unknown_filters_orders_and_relations(client, admin_headers, query, message):
    r = await client.get(f"/admin/sales-channels?{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_the_list_takes_the_same_statements_for_one_channel_or_twenty(client, admin_headers):
    await SalesChannel.bulk_create([SalesChannel(name=f"Channel {i}") for i in range(20)])
    async with count_queries() as one:
        r1 = await client.get("/admin/sales-channels?limit=1", headers=admin_headers)
    async with count_queries() as twenty:
        r20 = await client.get("/admin/sales-channels?limit=20", headers=admin_headers)
    assert len(r1.json()["sales_channels"]) == 1 and len(r20.json()["sales_channels"]) == 20
    # The page, its count, and the admin's sign-in check.
    assert len(one) == len(twenty) == 3, twenty


# ---------------------------------------------------------------- delete


async def test_delete_is_soft_and_idempotent(client, admin_headers):
    channel = await SalesChannel.create(name="Web")
    for _ in range(2):
        r = await client.delete(f"/admin/sales-channels/{channel.id}", headers=admin_headers)
        assert r.status_code == 200
        assert r.json() == {"id": channel.id, "object": "sales-channel", "deleted": True}
    assert (await SalesChannel.get(id=channel.id)).deleted_at is not None
    r = await client.delete("/admin/sales-channels/sc_never", headers=admin_headers)
    assert r.status_code == 200


async def test_the_store_default_channel_cannot_be_deleted(client, admin_headers):
    store = await get_store()
    r = await client.delete(f"/admin/sales-channels/{store.default_sales_channel_id}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed", "message": "You cannot delete the default sales channel"}
    assert (await SalesChannel.get(id=store.default_sales_channel_id)).deleted_at is None


# ---------------------------------------------------------------- products


async def test_products_are_added_once_and_removed_in_batches(client, admin_headers):
    # Given a channel and three products, one already in it
    channel = await SalesChannel.create(name="Web")
    hat, scarf, gloves = await product("hat"), await product("scarf"), await product("gloves")
    await channel.products.add(hat)
    # When the hat (again) and the scarf are added, twice
    for _ in range(2):
        r = await client.post(f"/admin/sales-channels/{channel.id}/products/batch", headers=admin_headers,
                              json={"product_ids": [{"id": hat.id}, {"id": scarf.id}, {"id": scarf.id}]})
        assert r.status_code == 200, r.text
        assert set(r.json()["sales_channel"]) == CHANNEL_COLUMNS  # the channel, without its products
    # I expect each once, and the gloves not at all
    assert await channel_product_ids(channel.id) == {hat.id, scarf.id}
    # When the hat, the gloves (never in it) and an unknown id are removed
    r = await client.request("DELETE", f"/admin/sales-channels/{channel.id}/products/batch", headers=admin_headers,
                             json={"product_ids": [{"id": hat.id}, {"id": gloves.id}, {"id": "prod_unknown"}]})
    assert r.status_code == 200, r.text
    assert await channel_product_ids(channel.id) == {scarf.id}


@requires_postgres("concurrent requests race only on a server database")
async def test_concurrent_batches_add_each_product_once(client, admin_headers):
    channel = await SalesChannel.create(name="Web")
    products = [await product(f"p{i}") for i in range(3)]
    body = {"product_ids": [{"id": p.id} for p in products]}
    answers = await asyncio.gather(*[
        client.post(f"/admin/sales-channels/{channel.id}/products/batch", json=body, headers=admin_headers)
        for _ in range(4)
    ])
    assert [a.status_code for a in answers] == [200] * 4
    assert await channel_product_ids(channel.id) == {p.id for p in products}


async def test_an_unknown_or_deleted_product_adds_none(client, admin_headers):
    channel = await SalesChannel.create(name="Web")
    hat, gone = await product("hat"), await product("gone")
    await Product.filter(id=gone.id).update(deleted_at=gone.created_at)
    r = await client.post(f"/admin/sales-channels/{channel.id}/products/batch", headers=admin_headers,
                          json={"product_ids": [{"id": hat.id}, {"id": "prod_unknown"}, {"id": gone.id}]})
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": f"Products prod_unknown, {gone.id} do not exist"}
    assert await channel_product_ids(channel.id) == set()


async def test_product_batches_on_an_unknown_channel_are_not_found(client, admin_headers):
    hat = await product("hat")
    for method in ("POST", "DELETE"):
        r = await client.request(method, "/admin/sales-channels/sc_missing/products/batch", headers=admin_headers,
                                 json={"product_ids": [{"id": hat.id}]})
        assert r.status_code == 404
        assert r.json()["message"] == "Sales channel with id: sc_missing was not found"


@pytest.mark.parametrize("body,message", [
    ({}, "product_ids should not be empty"),
    ({"product_ids": ["prod_1"]}, "product_ids must be an object"),
    ({"product_ids": [{"id": ""}]}, "id should not be empty"),
    ({"product_ids": [{"id": "p"}] * 1001}, "product_ids must contain no more than 1000 elements"),
])
async def test_a_malformed_product_batch_is_refused(client, admin_headers, body, message):
    channel = await SalesChannel.create(name="Web")
    r = await client.post(f"/admin/sales-channels/{channel.id}/products/batch", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_a_product_added_to_a_channel_shows_in_the_admin_product_filter(client, admin_headers):
    channel = await SalesChannel.create(name="Web")
    hat = await product("hat")
    await client.post(f"/admin/sales-channels/{channel.id}/products/batch", headers=admin_headers,
                      json={"product_ids": [{"id": hat.id}]})
    r = await client.get(f"/admin/products?sales_channel_id[]={channel.id}", headers=admin_headers)
    assert [p["id"] for p in r.json()["products"]] == [hat.id]

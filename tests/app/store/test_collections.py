"""Store collections: `GET /store/collections`, `GET /store/collections/{id}`."""

from datetime import datetime, timezone

import pytest

from models import ProductCollection
from tests.conftest import count_queries

COLLECTION_KEYS = {"id", "title", "handle", "metadata", "created_at", "updated_at", "deleted_at"}


def ids(body: dict) -> list[str]:
    return [c["id"] for c in body["collections"]]


async def test_list_shows_the_live_collections_newest_first_without_products(client, seeded):
    await ProductCollection.create(title="Gone", handle="gone", deleted_at=datetime.now(timezone.utc))
    r = await client.get("/store/collections")
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"collections", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 10)
    assert ids(body) == ["pcol_essentials", "pcol_summer"]  # the seed creates Summer first
    for collection in body["collections"]:
        assert set(collection) == COLLECTION_KEYS and collection["deleted_at"] is None
    summer = body["collections"][1]
    assert (summer["title"], summer["handle"]) == ("Summer", "summer")


async def test_list_pages_with_limit_and_offset(client, seeded):
    body = (await client.get("/store/collections?limit=1&offset=1")).json()
    assert ids(body) == ["pcol_summer"] and (body["count"], body["offset"], body["limit"]) == (2, 1, 1)
    assert ids((await client.get("/store/collections?order=title")).json()) == ["pcol_essentials", "pcol_summer"]


@pytest.mark.parametrize("query", [
    "handle[]=summer",
    "handle[0]=summer",
    "handle=summer",
])
async def test_handle_filter_takes_an_array_or_a_plain_string(client, seeded, query):
    body = (await client.get(f"/store/collections?{query}")).json()
    assert ids(body) == ["pcol_summer"] and body["count"] == 1


@pytest.mark.parametrize("query,expected", [
    ("handle[]=summer&handle[]=essentials", ["pcol_essentials", "pcol_summer"]),
    ("handle[]=summer,essentials", ["pcol_essentials", "pcol_summer"]),
    ("handle=summer,nope", ["pcol_summer"]),
    ("handle[]=nope", []),
])
async def test_handle_filter_takes_several_handles(client, seeded, query, expected):
    body = (await client.get(f"/store/collections?{query}&order=handle")).json()
    assert ids(body) == expected and body["count"] == len(expected)


async def test_date_filters_compare_timestamps(client, seeded):
    await ProductCollection.filter(id="pcol_summer").update(created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    assert ids((await client.get("/store/collections?created_at[lt]=2021-01-01")).json()) == ["pcol_summer"]
    assert ids((await client.get("/store/collections?created_at[gt]=2021-01-01")).json()) == ["pcol_essentials"]
    assert ids((await client.get("/store/collections?updated_at[gt]=2999-01-01")).json()) == []


@pytest.mark.parametrize("query,message", [
    ("q=summer", "property q should not exist"),
    ("expand=products", "property expand should not exist"),
    ("fields=title", "property fields should not exist"),
    ("deleted_at[gt]=2020-01-01", "property deleted_at should not exist"),
    ("title=Summer", "property title should not exist"),
    ("limit=ten", "limit must be a number conforming to the specified constraints"),
    ("created_at[after]=2020-01-01", "property after should not exist"),
    ("order=nope", "Order field nope is not valid"),
])
async def test_bad_list_queries_are_a_400_naming_the_problem(client, seeded, query, message):
    r = await client.get(f"/store/collections?{query}")
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_list_runs_the_same_statements_for_one_collection_as_for_fifty(client):
    for i in range(55):
        await ProductCollection.create(title=f"Collection {i}", handle=f"collection-{i}")
    async with count_queries() as one:
        r1 = await client.get("/store/collections?limit=1")
    async with count_queries() as fifty:
        r50 = await client.get("/store/collections?limit=50")
    assert len(r1.json()["collections"]) == 1 and len(r50.json()["collections"]) == 50
    assert r1.json()["count"] == r50.json()["count"] == 55
    assert len(one) == len(fifty) == 3, fifty  # the catalogue version, the page and its count


async def test_get_returns_the_collection_without_products(client, seeded):
    r = await client.get("/store/collections/pcol_summer")
    assert r.status_code == 200
    assert set(r.json()) == {"collection"}
    collection = r.json()["collection"]
    assert set(collection) == COLLECTION_KEYS
    assert (collection["id"], collection["title"], collection["handle"]) == ("pcol_summer", "Summer", "summer")


async def test_get_refuses_expand_and_unknown_keys(client, seeded):
    r = await client.get("/store/collections/pcol_summer?expand=products")
    assert r.status_code == 400 and r.json()["message"] == "property expand should not exist"
    r = await client.get("/store/collections/pcol_summer?region_id=x")
    assert r.status_code == 400 and r.json()["message"] == "property region_id should not exist"


async def test_get_of_an_unknown_or_deleted_collection_is_a_404(client, seeded):
    r = await client.get("/store/collections/pcol_nope")
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Product collection with id: pcol_nope was not found"}
    await ProductCollection.filter(id="pcol_summer").update(deleted_at=datetime.now(timezone.utc))
    r = await client.get("/store/collections/pcol_summer")
    assert r.status_code == 404
    assert r.json()["message"] == "Product collection with id: pcol_summer was not found"
    assert ids((await client.get("/store/collections")).json()) == ["pcol_essentials"]

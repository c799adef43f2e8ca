"""Admin collections: `/admin/collections`."""

import asyncio
from datetime import datetime, timezone

import pytest

from models import Product, ProductCollection, ShippingProfile
from tests.conftest import count_queries

COLLECTION_COLUMNS = {"id", "title", "handle", "metadata", "created_at", "updated_at", "deleted_at"}
SUMMER = {"prod_t_shirt", "prod_shorts", "prod_cap", "prod_tote_bag"}
ESSENTIALS = {"prod_sweatshirt", "prod_sweatpants", "prod_hoodie", "prod_socks"}


def product_ids(collection: dict) -> set[str]:
    return {p["id"] for p in collection["products"]}


async def collection_of(product_id: str) -> str | None:
    return (await Product.get(id=product_id)).collection_id


async def create(client, headers, **body) -> dict:
    r = await client.post("/admin/collections", json=body, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["collection"]


async def delete_batch(client, path: str, headers: dict, body):
    """A DELETE with a JSON body, as Medusa's remove-products route takes."""
    return await client.request("DELETE", path, json=body, headers=headers)


# ---------------------------------------------------------------- list


async def test_list_shows_every_live_collection_with_its_products_and_their_profiles(client, admin_headers, seeded):
    r = await client.get("/admin/collections", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"collections", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 10)
    by_id = {c["id"]: c for c in body["collections"]}
    assert set(by_id) == {"pcol_summer", "pcol_essentials"}
    for collection in body["collections"]:
        assert set(collection) == COLLECTION_COLUMNS | {"products"}
        for product in collection["products"]:
            assert product["collection_id"] == collection["id"]
            assert product["profile_id"].startswith("sp_")
            assert [p["id"] for p in product["profiles"]] == [product["profile_id"]]
    assert product_ids(by_id["pcol_summer"]) == SUMMER
    assert product_ids(by_id["pcol_essentials"]) == ESSENTIALS


async def test_list_is_newest_first_and_pages_with_limit_offset_and_order(client, admin_headers, seeded):
    newest = await create(client, admin_headers, title="Winter")
    body = (await client.get("/admin/collections", headers=admin_headers)).json()
    assert body["collections"][0]["id"] == newest["id"] and body["count"] == 3
    r = await client.get("/admin/collections?order=title&limit=2&offset=1", headers=admin_headers)
    body = r.json()
    assert [c["title"] for c in body["collections"]] == ["Summer", "Winter"]
    assert (body["count"], body["offset"], body["limit"]) == (3, 1, 2)
    body = (await client.get("/admin/collections?order=-handle", headers=admin_headers)).json()
    titles = [c["title"] for c in body["collections"]]
    assert titles == ["Winter", "Summer", "Essentials"]


async def test_title_and_handle_filters_are_exact(client, admin_headers, seeded):
    await create(client, admin_headers, title="Test collection")
    await create(client, admin_headers, title="Test collection 2")
    r = await client.get("/admin/collections?title=Test%20collection", headers=admin_headers)
    body = r.json()
    assert (body["count"], body["limit"], body["offset"]) == (1, 10, 0)
    assert body["collections"][0]["handle"] == "test-collection"
    assert (await client.get("/admin/collections?title=test%20collection", headers=admin_headers)).json()["count"] == 0
    body = (await client.get("/admin/collections?handle=summer", headers=admin_headers)).json()
    assert [c["id"] for c in body["collections"]] == ["pcol_summer"]


async def test_q_searches_title_or_handle_without_regard_to_case(client, admin_headers, seeded):
    await create(client, admin_headers, title="Winter Sale", handle="cold-days")
    found = lambda body: sorted(c["title"] for c in body["collections"])  # noqa: E731
    assert found((await client.get("/admin/collections?q=SALE", headers=admin_headers)).json()) == ["Winter Sale"]
    assert found((await client.get("/admin/collections?q=COLD", headers=admin_headers)).json()) == ["Winter Sale"]
    assert found((await client.get("/admin/collections?q=s", headers=admin_headers)).json()) == [
        "Essentials", "Summer", "Winter Sale",
    ]
    # Medusa v1 drops the title filter when q is given; here both apply.
    body = (await client.get("/admin/collections?q=s&title=Summer", headers=admin_headers)).json()
    assert found(body) == ["Summer"] and body["count"] == 1


async def test_q_treats_like_wildcards_as_plain_characters(client, admin_headers, seeded):
    await create(client, admin_headers, title="100% Cotton")
    assert (await client.get("/admin/collections?q=%25", headers=admin_headers)).json()["count"] == 1
    assert (await client.get("/admin/collections?q=_", headers=admin_headers)).json()["count"] == 0


async def test_date_filters_compare_timestamps(client, admin_headers, seeded):
    await ProductCollection.filter(id="pcol_summer").update(created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    body = (await client.get("/admin/collections?created_at[lt]=2021-01-01", headers=admin_headers)).json()
    assert [c["id"] for c in body["collections"]] == ["pcol_summer"]
    body = (await client.get("/admin/collections?created_at[gte]=2021-01-01T00:00:00Z", headers=admin_headers)).json()
    assert [c["id"] for c in body["collections"]] == ["pcol_essentials"]
    body = (await client.get("/admin/collections?updated_at[gt]=2999-01-01", headers=admin_headers)).json()
    assert body["collections"] == [] and body["count"] == 0


async def test_a_deleted_at_filter_finds_soft_deleted_collections(client, admin_headers, seeded):
    await client.delete("/admin/collections/pcol_summer", headers=admin_headers)
    body = (await client.get("/admin/collections", headers=admin_headers)).json()
    assert [c["id"] for c in body["collections"]] == ["pcol_essentials"]
    body = (await client.get("/admin/collections?deleted_at[gt]=2000-01-01", headers=admin_headers)).json()
    assert [c["id"] for c in body["collections"]] == ["pcol_summer"]
    assert body["collections"][0]["deleted_at"] is not None


async def test_expand_and_fields_choose_what_the_list_shows(client, admin_headers, seeded):
    body = (await client.get("/admin/collections?expand=", headers=admin_headers)).json()
    assert all(set(c) == COLLECTION_COLUMNS for c in body["collections"])
    body = (await client.get("/admin/collections?expand=products", headers=admin_headers)).json()
    for collection in body["collections"]:
        assert all("profiles" not in p for p in collection["products"])
    body = (await client.get("/admin/collections?fields=title&expand=", headers=admin_headers)).json()
    assert all(set(c) == {"id", "title", "created_at"} for c in body["collections"])


@pytest.mark.parametrize("query,message", [
    ("nope=1", "property nope should not exist"),
    ("order=nope", "Order field nope is not valid"),
    ("expand=variants", "Requested relations [variants] are not valid"),
    ("fields=password", "Requested fields [password] are not valid"),
    ("limit=abc", "limit must be a number conforming to the specified constraints"),
    ("title[]=a&title[]=b", "title must be a string"),
    ("created_at[gt]=yesterday", "gt must be a date (ISO 8601) or unix seconds"),
])
async def test_bad_list_queries_are_a_400_naming_the_problem(client, admin_headers, query, message):
    r = await client.get(f"/admin/collections?{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_list_runs_the_same_statements_for_one_collection_as_for_fifty(client, admin_headers, seeded):
    profile = await ShippingProfile.get(type="default")
    for i in range(55):
        collection = await ProductCollection.create(title=f"Collection {i}", handle=f"collection-{i}")
        await Product.create(title=f"Product {i}", handle=f"product-{i}", profile_id=profile.id,
                             collection_id=collection.id)
    async with count_queries() as one:
        r1 = await client.get("/admin/collections?limit=1", headers=admin_headers)
    async with count_queries() as fifty:
        r50 = await client.get("/admin/collections?limit=50", headers=admin_headers)
    assert len(r1.json()["collections"]) == 1 and len(r50.json()["collections"]) == 50
    assert r1.json()["count"] == r50.json()["count"] == 57
    assert all(len(c["products"]) == 1 and c["products"][0]["profiles"] for c in r50.json()["collections"])
    # The page, its count, the products and their profiles (plus the admin's sign-in check).
    assert len(one) == len(fifty) == 5, fifty


# ---------------------------------------------------------------- create


async def test_create_answers_200_with_a_pcol_id_and_the_kebab_cased_title_as_handle(client, admin_headers):
    r = await client.post("/admin/collections", json={"title": "fooBar Summer_Sale 2024!", "metadata": {"a": 1}},
                          headers=admin_headers)
    assert r.status_code == 200
    collection = r.json()["collection"]
    assert set(r.json()) == {"collection"}
    assert set(collection) == COLLECTION_COLUMNS | {"products"}
    assert collection["id"].startswith("pcol_") and len(collection["id"]) == 5 + 26
    assert collection["handle"] == "foo-bar-summer-sale-2024"
    assert (collection["title"], collection["metadata"], collection["products"]) == (
        "fooBar Summer_Sale 2024!", {"a": 1}, []
    )
    assert (await ProductCollection.get(id=collection["id"])).handle == "foo-bar-summer-sale-2024"


async def test_create_keeps_a_given_handle_and_derives_one_when_it_is_empty(client, admin_headers):
    assert (await create(client, admin_headers, title="Test collection", handle="tc"))["handle"] == "tc"
    assert (await create(client, admin_headers, title="Café Crème", handle=""))["handle"] == "cafe-creme"
    assert (await create(client, admin_headers, title="My Collection", handle=None))["handle"] == "my-collection"


async def test_a_handle_derived_from_a_long_title_is_cut_to_the_column_length(client, admin_headers):
    collection = await create(client, admin_headers, title="Ab" * 127)  # kebab-cased: 380 characters
    assert collection["handle"] == ("ab-" * 85)[:-1]


async def test_a_title_without_letters_or_digits_gives_no_handle(client, admin_headers):
    assert (await create(client, admin_headers, title="!!!"))["handle"] is None
    assert (await create(client, admin_headers, title="???"))["handle"] is None


@pytest.mark.parametrize("body,message", [
    ({}, "title should not be empty"),
    ({"title": ""}, "title should not be empty"),
    ({"title": 5}, "title must be a string"),
    ({"title": "x", "handle": 5}, "handle must be a string"),
    ({"title": "x", "metadata": "x"}, "metadata must be an object"),
    ({"title": "x", "products": []}, "property products should not exist"),
    ({"title": "x" * 256}, "title must be shorter than or equal to 255 characters"),
    ({"title": "x", "handle": "h" * 256}, "handle must be shorter than or equal to 255 characters"),
])
async def test_create_refuses_a_bad_body(client, admin_headers, body, message):
    r = await client.post("/admin/collections", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert await ProductCollection.all().count() == 0


async def test_create_refuses_a_body_that_is_not_json(client, admin_headers):
    r = await client.post("/admin/collections", content=b"{title",
                          headers={**admin_headers, "content-type": "application/json"})
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"


async def test_a_handle_taken_by_a_live_collection_is_a_422(client, admin_headers, seeded):
    expected = {
        "type": "duplicate_error", "code": "invalid_request_error",
        "message": "Product_collection with handle summer already exists.",
    }
    r = await client.post("/admin/collections", json={"title": "Other", "handle": "summer"}, headers=admin_headers)
    assert (r.status_code, r.json()) == (422, expected)
    r = await client.post("/admin/collections", json={"title": "Summer"}, headers=admin_headers)
    assert (r.status_code, r.json()) == (422, expected)
    assert await ProductCollection.all().count() == 2


async def test_the_handle_of_a_deleted_collection_can_be_used_again(client, admin_headers, seeded):
    await client.delete("/admin/collections/pcol_summer", headers=admin_headers)
    again = await create(client, admin_headers, title="Summer")
    assert again["handle"] == "summer" and again["id"] != "pcol_summer"


async def test_concurrent_creates_with_one_handle_give_one_collection(client, admin_headers):
    responses = await asyncio.gather(*[
        client.post("/admin/collections", json={"title": f"Race {i}", "handle": "race"}, headers=admin_headers)
        for i in range(4)
    ])
    assert sorted(r.status_code for r in responses) == [200, 422, 422, 422]
    assert all(r.json()["type"] == "duplicate_error" for r in responses if r.status_code == 422)
    assert await ProductCollection.filter(handle="race").count() == 1


# ---------------------------------------------------------------- get


async def test_get_returns_the_collection_with_its_live_products(client, admin_headers, seeded):
    await Product.filter(id="prod_cap").update(deleted_at=datetime.now(timezone.utc))
    r = await client.get("/admin/collections/pcol_summer", headers=admin_headers)
    assert r.status_code == 200
    collection = r.json()["collection"]
    assert set(collection) == COLLECTION_COLUMNS | {"products"}
    assert (collection["id"], collection["title"], collection["handle"]) == ("pcol_summer", "Summer", "summer")
    assert product_ids(collection) == SUMMER - {"prod_cap"}
    for product in collection["products"]:
        assert product["collection_id"] == "pcol_summer" and product["profile_id"].startswith("sp_")
        assert product["profiles"][0]["id"] == product["profile_id"]


async def test_get_takes_expand_and_fields(client, admin_headers, seeded):
    r = await client.get("/admin/collections/pcol_summer?expand=&fields=handle", headers=admin_headers)
    assert r.json() == {"collection": {"id": "pcol_summer", "handle": "summer"}}
    r = await client.get("/admin/collections/pcol_summer?q=x", headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == "property q should not exist"


async def test_get_of_an_unknown_or_deleted_collection_is_a_404(client, admin_headers, seeded):
    r = await client.get("/admin/collections/pcol_nope", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Product collection with id: pcol_nope was not found"}
    await client.delete("/admin/collections/pcol_summer", headers=admin_headers)
    r = await client.get("/admin/collections/pcol_summer", headers=admin_headers)
    assert r.status_code == 404


# ---------------------------------------------------------------- update


async def test_update_changes_title_and_handle(client, admin_headers, seeded):
    r = await client.post("/admin/collections/pcol_summer", json={"title": "Summer 25", "handle": "summer-25"},
                          headers=admin_headers)
    assert r.status_code == 200
    collection = r.json()["collection"]
    assert (collection["id"], collection["title"], collection["handle"]) == ("pcol_summer", "Summer 25", "summer-25")
    assert product_ids(collection) == SUMMER
    stored = await ProductCollection.get(id="pcol_summer")
    assert (stored.title, stored.handle) == ("Summer 25", "summer-25")


async def test_a_new_title_does_not_change_the_handle(client, admin_headers, seeded):
    r = await client.post("/admin/collections/pcol_summer", json={"title": "Hot Days"}, headers=admin_headers)
    assert r.json()["collection"]["handle"] == "summer"


async def test_an_empty_or_null_handle_clears_it(client, admin_headers, seeded):
    r = await client.post("/admin/collections/pcol_summer", json={"handle": ""}, headers=admin_headers)
    assert r.status_code == 200 and r.json()["collection"]["handle"] is None
    r = await client.post("/admin/collections/pcol_essentials", json={"handle": None}, headers=admin_headers)
    assert r.status_code == 200 and r.json()["collection"]["handle"] is None


async def test_update_merges_metadata(client, admin_headers):
    created = await create(client, admin_headers, title="Meta", metadata={"keep": 1, "drop": 2, "change": 3})
    changes = {"metadata": {"drop": "", "change": 4, "data1": None, "new": "x"}}
    r = await client.post(f"/admin/collections/{created['id']}", json=changes, headers=admin_headers)
    assert r.json()["collection"]["metadata"] == {"keep": 1, "change": 4, "data1": None, "new": "x"}
    r = await client.post(f"/admin/collections/{created['id']}", json={"title": "Meta 2"}, headers=admin_headers)
    assert r.json()["collection"]["metadata"] == {"keep": 1, "change": 4, "data1": None, "new": "x"}


async def test_update_to_a_handle_another_collection_has_is_a_422(client, admin_headers, seeded):
    r = await client.post("/admin/collections/pcol_summer", json={"handle": "essentials"}, headers=admin_headers)
    assert r.status_code == 422
    assert r.json() == {
        "type": "duplicate_error", "code": "invalid_request_error",
        "message": "Product_collection with handle essentials already exists.",
    }
    assert (await ProductCollection.get(id="pcol_summer")).handle == "summer"
    r = await client.post("/admin/collections/pcol_summer", json={"handle": "summer"}, headers=admin_headers)
    assert r.status_code == 200  # its own handle is not a clash


@pytest.mark.parametrize("body,message", [
    ({"title": None}, "title must be a string"),
    ({"title": ""}, "title should not be empty"),
    ({"handle": 1}, "handle must be a string"),
    ({"handle": "h" * 256}, "handle must be shorter than or equal to 255 characters"),
    ({"metadata": []}, "metadata must be an object"),
    ({"id": "pcol_x"}, "property id should not exist"),
])
async def test_update_refuses_a_bad_body(client, admin_headers, seeded, body, message):
    r = await client.post("/admin/collections/pcol_summer", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert (await ProductCollection.get(id="pcol_summer")).title == "Summer"


async def test_update_of_an_unknown_collection_is_a_404(client, admin_headers):
    r = await client.post("/admin/collections/pcol_nope", json={"title": "x"}, headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Product collection with id: pcol_nope was not found"}


# ---------------------------------------------------------------- delete


async def test_delete_soft_deletes_and_leaves_the_products_pointing_at_it(client, admin_headers, seeded):
    r = await client.delete("/admin/collections/pcol_summer", headers=admin_headers)
    assert r.status_code == 200
    assert r.json() == {"id": "pcol_summer", "object": "product-collection", "deleted": True}
    stored = await ProductCollection.get(id="pcol_summer")
    assert stored.deleted_at is not None
    assert await collection_of("prod_cap") == "pcol_summer"


async def test_delete_of_an_unknown_or_already_deleted_collection_is_a_404(client, admin_headers, seeded):
    r = await client.delete("/admin/collections/pcol_nope", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Product collection with id: pcol_nope was not found"}
    await client.delete("/admin/collections/pcol_summer", headers=admin_headers)
    r = await client.delete("/admin/collections/pcol_summer", headers=admin_headers)
    assert r.status_code == 404


# ---------------------------------------------------------------- add products


async def test_adding_products_moves_them_into_the_collection(client, admin_headers, seeded):
    r = await client.post("/admin/collections/pcol_essentials/products/batch",
                          json={"product_ids": ["prod_mug", "prod_coffee", "prod_t_shirt", "prod_mug"]},
                          headers=admin_headers)
    assert r.status_code == 200
    collection = r.json()["collection"]
    assert collection["id"] == "pcol_essentials"
    assert product_ids(collection) == ESSENTIALS | {"prod_mug", "prod_coffee", "prod_t_shirt"}
    assert all(p["profiles"] for p in collection["products"])
    assert await collection_of("prod_t_shirt") == "pcol_essentials"  # taken out of Summer
    summer = (await client.get("/admin/collections/pcol_summer", headers=admin_headers)).json()["collection"]
    assert product_ids(summer) == SUMMER - {"prod_t_shirt"}


async def test_adding_products_runs_one_update(client, admin_headers, seeded):
    async with count_queries() as queries:
        r = await client.post("/admin/collections/pcol_summer/products/batch",
                              json={"product_ids": ["prod_mug", "prod_coffee", "prod_socks"]}, headers=admin_headers)
    assert r.status_code == 200
    updates = [q for q in queries if q.lstrip().upper().startswith("UPDATE") and '"product"' in q]
    assert len(updates) == 1, queries


async def test_adding_an_unknown_product_is_a_404_naming_it_and_changes_nothing(client, admin_headers, seeded):
    await Product.filter(id="prod_cap").update(deleted_at=datetime.now(timezone.utc))
    r = await client.post("/admin/collections/pcol_essentials/products/batch",
                          json={"product_ids": ["prod_mug", "prod_nope", "prod_cap"]}, headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Products with ids: prod_nope, prod_cap were not found"}
    assert await collection_of("prod_mug") is None
    r = await client.post("/admin/collections/pcol_essentials/products/batch",
                          json={"product_ids": ["prod_nope"]}, headers=admin_headers)
    assert r.json()["message"] == "Product with id: prod_nope was not found"


async def test_adding_to_an_unknown_collection_is_a_404(client, admin_headers, seeded):
    r = await client.post("/admin/collections/pcol_nope/products/batch", json={"product_ids": ["prod_mug"]},
                          headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Product collection with id: pcol_nope was not found"}
    assert await collection_of("prod_mug") is None


BAD_BATCHES = [
    ({}, "product_ids should not be empty"),
    ({"product_ids": []}, "product_ids should not be empty"),
    ({"product_ids": "prod_mug"}, "product_ids must be an array"),
    ({"product_ids": ["prod_mug", 1]}, "product_ids must be an array of strings"),
    ({"product_ids": ["x"] * 10_001}, "product_ids must contain no more than 10000 elements"),
    ({"product_ids": ["prod_mug"], "x": 1}, "property x should not exist"),
]


@pytest.mark.parametrize("body,message", BAD_BATCHES)
async def test_adding_with_a_bad_body_is_a_400(client, admin_headers, seeded, body, message):
    r = await client.post("/admin/collections/pcol_summer/products/batch", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert await collection_of("prod_mug") is None


# ---------------------------------------------------------------- remove products


async def test_removing_products_clears_only_those_in_this_collection(client, admin_headers, seeded):
    r = await delete_batch(client, "/admin/collections/pcol_summer/products/batch", admin_headers,
                           {"product_ids": ["prod_cap", "prod_shorts", "prod_hoodie", "prod_mug", "prod_cap"]})
    assert r.status_code == 200
    assert r.json() == {
        "id": "pcol_summer", "object": "product-collection",
        "removed_products": ["prod_cap", "prod_shorts", "prod_hoodie", "prod_mug"],
    }
    assert await collection_of("prod_cap") is None and await collection_of("prod_shorts") is None
    assert await collection_of("prod_hoodie") == "pcol_essentials"  # another collection's product stays
    assert set(await Product.filter(collection_id="pcol_summer").values_list("id", flat=True)) == {
        "prod_t_shirt", "prod_tote_bag",
    }


async def test_removing_an_unknown_product_is_a_404_and_changes_nothing(client, admin_headers, seeded):
    r = await delete_batch(client, "/admin/collections/pcol_summer/products/batch", admin_headers,
                           {"product_ids": ["prod_cap", "prod_nope"]})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Product with id: prod_nope was not found"}
    assert await collection_of("prod_cap") == "pcol_summer"


async def test_removing_from_an_unknown_collection_is_a_404(client, admin_headers, seeded):
    r = await delete_batch(client, "/admin/collections/pcol_nope/products/batch", admin_headers,
                           {"product_ids": ["prod_cap"]})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Product collection with id: pcol_nope was not found"}


@pytest.mark.parametrize("body,message", BAD_BATCHES)
async def test_removing_with_a_bad_body_is_a_400(client, admin_headers, seeded, body, message):
    r = await delete_batch(client, "/admin/collections/pcol_summer/products/batch", admin_headers, body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert await collection_of("prod_cap") == "pcol_summer"


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/collections"),
    ("POST", "/admin/collections"),
    ("GET", "/admin/collections/pcol_summer"),
    ("POST", "/admin/collections/pcol_summer"),
    ("DELETE", "/admin/collections/pcol_summer"),
    ("POST", "/admin/collections/pcol_summer/products/batch"),
    ("DELETE", "/admin/collections/pcol_summer/products/batch"),
])
async def test_every_route_needs_a_signed_in_admin(client, seeded, method, path):
    r = await client.request(method, path, json={"title": "x", "product_ids": ["prod_mug"]})
    assert r.status_code == 401
    assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert (await ProductCollection.get(id="pcol_summer")).deleted_at is None
    assert await ProductCollection.all().count() == 2


async def test_list_narrows_to_the_collections_a_discount_condition_names(client, admin_headers):
    from models import Region
    from services.discounts.conditions import ConditionInput
    from services.discounts.discounts import RuleInput, create_discount

    summer, winter, _ = [await ProductCollection.create(title=t, handle=t) for t in ("summer", "winter", "spring")]
    region = await Region.create(name="EU", currency_code="eur", tax_rate=0)
    discount = await create_discount(code="SUN", regions=[region.id], relations=("rule", "rule.conditions"), rule=RuleInput(
        type="percentage", value=5, conditions=[
            ConditionInput(operator="in", resources={"product_collections": [summer.id, winter.id]}),
        ]))
    condition_id = discount.rule.conditions.related_objects[0].id
    r = await client.get(f"/admin/collections?discount_condition_id={condition_id}", headers=admin_headers)
    assert r.status_code == 200
    assert {c["handle"] for c in r.json()["collections"]} == {"summer", "winter"} and r.json()["count"] == 2
    r = await client.get("/admin/collections?discount_condition_id=discon_unknown", headers=admin_headers)
    assert r.json()["collections"] == [] and r.json()["count"] == 0

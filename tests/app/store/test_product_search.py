"""`POST /store/products/search` (Medusa v1's search route, medusa-js `products.search({ q })`):
`{hits}` from the database, the products the list's `q` finds, by title, within the request's
publishable key's channels (issue 37 item 5, first step)."""

from __future__ import annotations

import pytest

from models import Product
from tests.app.store.test_publishable_api_keys import channel_with, key_for, with_key


async def search(client, body: dict, headers: dict | None = None) -> dict:
    r = await client.post("/store/products/search", json=body, headers=headers or {})
    assert r.status_code == 200, r.text
    return r.json()


async def test_a_search_answers_hits_by_title_from_the_database(client, seeded):
    body = await search(client, {"q": "shirt"})
    # Title, variant title or SKU, description, collection: as the list's q; by title
    assert [h["title"] for h in body["hits"]] == ["Medusa Sweatshirt", "Medusa T-Shirt"]
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 20)
    hit = body["hits"][1]
    assert hit["id"] == "prod_t_shirt" and [v["sku"] for v in hit["variants"]][:1] == ["T-SHIRT-S"]
    assert {"options", "images", "tags", "collection"} <= set(hit)
    assert [h["id"] for h in (await search(client, {"q": "SWEATPANTS-M"}))["hits"]] == ["prod_sweatpants"]
    assert (await search(client, {"q": "nothing like it"}))["hits"] == []


async def test_hits_page_with_limit_and_offset(client, seeded):
    everything = await search(client, {})
    assert everything["count"] == await Product.filter(status="published", deleted_at=None).count()
    titles = [h["title"] for h in everything["hits"]]
    assert titles == sorted(titles)
    page = await search(client, {"limit": 3, "offset": 2})
    assert [h["title"] for h in page["hits"]] == titles[2:5]
    assert (await search(client, {"limit": 1000}))["limit"] == 100


async def test_a_publishable_key_searches_only_its_channels(client, seeded):
    key = await key_for(await channel_with("Pop-up", "prod_mug"))
    body = await search(client, {"q": "medusa"}, with_key(key))
    assert [h["id"] for h in body["hits"]] == ["prod_mug"] and body["count"] == 1


@pytest.mark.parametrize("body,message", [
    ({"q": 42}, "q must be a string"),
    ({"limit": 0}, "limit must not be less than 1"),
    ({"offset": -1}, "offset must not be less than 0"),
    ({"filter": "tags = x"}, "property filter should not exist"),
])
async def test_a_bad_search_is_a_400(client, seeded, body, message):
    r = await client.post("/store/products/search", json=body)
    assert r.status_code == 400 and r.json()["type"] == "invalid_data", r.text
    assert message in r.json()["message"]

"""`POST /store/products/search` (Medusa v1's search route, medusa-js `products.search({ q })`):
`{hits}` from the database's own full-text index, ranked, every word a prefix, a typo forgiven on
PostgreSQL, within the request's publishable key's channels, the index kept in step by the
database."""

from __future__ import annotations

import pytest

from models import Product, ProductTag, ProductVariant
from tests.conftest import count_queries, requires_postgres
from tests.app.store.test_publishable_api_keys import channel_with, key_for, with_key


async def search(client, body: dict, headers: dict | None = None) -> dict:
    r = await client.post("/store/products/search", json=body, headers=headers or {})
    assert r.status_code == 200, r.text
    return r.json()


async def test_a_search_answers_ranked_hits_from_the_database(client, seeded):
    # Given a mug whose description speaks of hoodies
    await Product.filter(id="prod_mug").update(description="A mug for every hoodie lover")
    body = await search(client, {"q": "Hoodie"})
    # I expect the title's match above the description's
    assert [h["id"] for h in body["hits"]] == ["prod_hoodie", "prod_mug"]
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 20)
    hit = body["hits"][0]
    assert [v["sku"] for v in hit["variants"]][:1] == ["HOODIE-M"]
    assert {"options", "images", "tags", "collection"} <= set(hit)
    assert [h["id"] for h in (await search(client, {"q": "SWEATPANTS-M"}))["hits"]][:1] == ["prod_sweatpants"]
    assert (await search(client, {"q": "nothing like it"}))["hits"] == []


async def test_every_word_matches_as_a_prefix_as_a_shopper_types(client, seeded):
    assert {h["id"] for h in (await search(client, {"q": "swea"}))["hits"]} == {"prod_sweatpants", "prod_sweatshirt"}
    assert [h["id"] for h in (await search(client, {"q": "medusa sweatp"}))["hits"]][:1] == ["prod_sweatpants"]
    assert [h["id"] for h in (await search(client, {"q": "tote-b"}))["hits"]][:1] == ["prod_tote_bag"]


async def test_tags_subtitles_and_variant_titles_are_searched(client, seeded):
    tag = await ProductTag.create(value="Wintertime")
    await (await Product.get(id="prod_socks")).tags.add(tag)
    await Product.filter(id="prod_cap").update(subtitle="Embroidered visor")
    await ProductVariant.filter(sku="COFFEE-250G").update(title="Espresso roast")
    assert [h["id"] for h in (await search(client, {"q": "winter"}))["hits"]] == ["prod_socks"]
    assert [h["id"] for h in (await search(client, {"q": "visor"}))["hits"]] == ["prod_cap"]
    assert [h["id"] for h in (await search(client, {"q": "espress"}))["hits"]] == ["prod_coffee"]
    # A tag renamed is searched by its new name
    await ProductTag.filter(id=tag.id).update(value="Snowfall")
    assert (await search(client, {"q": "wintertime"}))["hits"] == []
    assert [h["id"] for h in (await search(client, {"q": "snowf"}))["hits"]] == ["prod_socks"]


@requires_postgres("typo tolerance is PostgreSQL's trigram similarity")
async def test_a_typo_still_finds_the_product_on_postgres(client, seeded):
    assert [h["id"] for h in (await search(client, {"q": "hodie"}))["hits"]][:1] == ["prod_hoodie"]
    assert [h["id"] for h in (await search(client, {"q": "sweatshrt"}))["hits"]][:1] == ["prod_sweatshirt"]


async def test_the_index_follows_a_title_change_and_a_delete(client, seeded, admin_headers):
    for title in ("Medusa Zephyr", "Medusa Beanie"):
        r = await client.post("/admin/products/prod_cap", json={"title": title}, headers=admin_headers)
        assert r.status_code == 200, r.text
    assert [h["id"] for h in (await search(client, {"q": "beanie"}))["hits"]] == ["prod_cap"]
    assert (await search(client, {"q": "zephyr"}))["hits"] == []
    r = await client.delete("/admin/products/prod_hoodie", headers=admin_headers)
    assert r.status_code == 200, r.text
    assert (await search(client, {"q": "hoodie"}))["hits"] == []


async def test_a_search_asked_again_is_answered_after_one_statement_until_the_catalogue_changes(
        client, seeded, admin_headers):
    # Given a search answered once
    first = await client.post("/store/products/search", json={"q": "hoodie", "limit": 5})
    # When the same search is asked again
    async with count_queries() as statements:
        again = await client.post("/store/products/search", json={"q": "hoodie", "limit": 5})
    # I expect the same bytes after reading the catalogue's version only
    assert again.status_code == 200 and again.content == first.content
    assert len(statements) == 1 and "catalogue_version" in statements[0], statements
    # and another page, or another key's channels, searched on their own
    other = await client.post("/store/products/search", json={"q": "hoodie", "limit": 5, "offset": 1})
    assert other.status_code == 200 and other.json()["offset"] == 1
    # and a change to the catalogue seen by the next search
    r = await client.post("/admin/products/prod_hoodie", json={"title": "Medusa Parka"}, headers=admin_headers)
    assert r.status_code == 200, r.text
    assert [h["title"] for h in (await search(client, {"q": "parka"}))["hits"]] == ["Medusa Parka"]
    assert [h["title"] for h in (await search(client, {"q": "hoodie", "limit": 5}))["hits"]] != \
        [h["title"] for h in first.json()["hits"]]


async def test_a_search_takes_the_same_statements_for_one_hit_or_ten(client, seeded):
    await search(client, {"q": "cap"})  # the store's default channel, read once and kept
    counts = []
    for q in ("hoodie", "medusa"):
        async with count_queries() as statements:
            body = await search(client, {"q": q})
        counts.append(len(statements))
    assert len(body["hits"]) == 10
    assert counts[0] == counts[1]


async def test_hits_page_with_limit_and_offset(client, seeded):
    everything = await search(client, {})
    assert everything["count"] == await Product.filter(status="published", deleted_at=None).count()
    titles = [h["title"] for h in everything["hits"]]
    assert titles == sorted(titles)
    page = await search(client, {"limit": 3, "offset": 2})
    assert [h["title"] for h in page["hits"]] == titles[2:5]
    assert (await search(client, {"limit": 1000}))["limit"] == 100


async def test_ranked_hits_page_with_limit_and_offset(client, seeded):
    everything = await search(client, {"q": "medusa"})
    ranked = [h["id"] for h in everything["hits"]]
    page = await search(client, {"q": "medusa", "limit": 3, "offset": 2})
    assert [h["id"] for h in page["hits"]] == ranked[2:5] and page["count"] == everything["count"] == 10
    past = await search(client, {"q": "medusa", "offset": 50})
    assert past["hits"] == [] and past["count"] == 10


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


# ---------------------------------------------------------------- `q=` on the lists: engine ∪ substring


async def list_ids(client, path: str, headers: dict | None = None) -> tuple[list[str], int]:
    r = await client.get(path, headers=headers or {})
    assert r.status_code == 200, r.text
    return [p["id"] for p in r.json()["products"]], r.json()["count"]


@pytest.mark.parametrize("side", ["store", "admin"])
async def test_q_on_the_lists_finds_by_tag_and_words_as_the_engine_does_and_still_by_substring(
        client, seeded, admin_headers, side):
    headers = admin_headers if side == "admin" else {}
    tag = await ProductTag.create(value="Wintertime")
    await (await Product.get(id="prod_socks")).tags.add(tag)
    # A tag, and two words in any order, which Medusa's substring never finds
    assert (await list_ids(client, f"/{side}/products?q=wintertime", headers)) == (["prod_socks"], 1)
    assert (await list_ids(client, f"/{side}/products?q=shirt%20medusa", headers))[0] != []
    # The middle of a word, which the engine's prefixes never find, still found
    found, count = await list_ids(client, f"/{side}/products?q=eatpa", headers)
    assert (found, count) == (["prod_sweatpants"], 1)


@pytest.mark.parametrize("side", ["store", "admin"])
async def test_q_on_the_lists_keeps_the_lists_order_pages_and_count(client, seeded, admin_headers, side):
    headers = admin_headers if side == "admin" else {}
    # "sweat": the engine (prefix) and the substring both; "medusa" in tags or titles of many
    everything, count = await list_ids(client, f"/{side}/products?q=medusa&order=handle&limit=100", headers)
    assert count == len(everything) > 3
    handles = [(await Product.get(id=i)).handle for i in everything]
    assert handles == sorted(handles)
    pages = [await list_ids(client, f"/{side}/products?q=medusa&order=handle&limit=2&offset={o}", headers)
             for o in range(0, count, 2)]
    assert [i for page, _ in pages for i in page] == everything
    assert {c for _, c in pages} == {count}


async def test_q_on_the_admin_list_finds_drafts_and_the_store_list_does_not(client, seeded, admin_headers):
    await Product.filter(id="prod_socks").update(status="draft", subtitle="Alpine ribbed")
    assert (await list_ids(client, "/admin/products?q=alpine", admin_headers)) == (["prod_socks"], 1)
    assert (await list_ids(client, "/store/products?q=alpine")) == ([], 0)


@requires_postgres("typo tolerance is PostgreSQL's trigram similarity")
@pytest.mark.parametrize("side", ["store", "admin"])
async def test_q_on_the_lists_forgives_a_typo_on_postgres(client, seeded, admin_headers, side):
    headers = admin_headers if side == "admin" else {}
    assert "prod_hoodie" in (await list_ids(client, f"/{side}/products?q=hodie", headers))[0]

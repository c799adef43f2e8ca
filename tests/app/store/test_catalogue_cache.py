"""Catalogue reads a CDN or browser can keep (app/web/store_cache.py): an ETag from the catalogue's
version, a 304 that loads nothing, Cache-Control from STORE_CACHE_SECONDS, private answers for a
signed-in customer or a cart."""

from dataclasses import replace
from datetime import timedelta

import pytest
from sanic import Sanic

from models import MoneyAmount, PriceList, ProductCategory, ProductVariant
from services.core.clock import now
from tests.cart_factories import new_cart, option_id, region_id, shopper
from tests.conftest import count_queries



async def _urls() -> list[str]:
    """One URL of each kind of catalogue read, on the demo store."""
    category = await ProductCategory.create(name="Hats", handle="hats", is_active=True, is_internal=False)
    na = await region_id("NA")
    return [
        "/store/collections", "/store/collections/pcol_summer",
        "/store/product-categories", f"/store/product-categories/{category.id}",
        f"/store/products?region_id={na}", f"/store/products/prod_cap?region_id={na}",
        "/store/regions", f"/store/regions/{na}",
        f"/store/shipping-options?region_id={na}",
    ]


async def test_every_catalogue_read_carries_a_tag_and_a_revalidation_answers_304_loading_nothing(client, seeded):
    for url in await _urls():
        # Given an answer and its tag
        first = await client.get(url)
        assert first.status_code == 200, (url, first.text)
        tag = first.headers["etag"]
        assert tag.startswith('"') and first.headers["cache-control"] == "public, max-age=0, must-revalidate"
        assert "Origin" in first.headers["vary"]
        # When the client asks again with it
        async with count_queries() as statements:
            again = await client.get(url, headers={"If-None-Match": tag})
        # I expect a 304 without a body, after one statement: the catalogue's version
        assert again.status_code == 304 and again.content == b"", url
        assert again.headers["etag"] == tag and again.headers["cache-control"] == first.headers["cache-control"]
        assert len(statements) <= 1, (url, statements)


async def test_a_kept_answer_is_the_built_one_and_another_query_is_another_tag(client, seeded):
    first = await client.get("/store/collections")
    async with count_queries() as statements:
        second = await client.get("/store/collections")
    assert second.status_code == 200 and second.content == first.content
    assert second.headers["etag"] == first.headers["etag"] and len(statements) == 1  # the version only
    other = await client.get("/store/collections?limit=1")
    assert other.headers["etag"] != first.headers["etag"] and len(other.json()["collections"]) == 1
    stale = await client.get("/store/collections?limit=1", headers={"If-None-Match": first.headers["etag"]})
    assert stale.status_code == 200
    listed = await client.get("/store/collections", headers={"If-None-Match": f'W/{first.headers["etag"]}, "x"'})
    assert listed.status_code == 304  # a weak match and a list count (RFC 9110's If-None-Match)


@pytest.mark.parametrize("url, change, shows", [
    ("/store/collections", ("/admin/collections/pcol_summer", {"title": "Winter"}),
     lambda b: [c["title"] for c in b["collections"]]),
    ("/store/collections/pcol_summer", ("/admin/collections/pcol_summer", {"title": "Winter"}),
     lambda b: b["collection"]["title"]),
    ("/store/products/prod_cap", ("/admin/products/prod_cap", {"title": "Medusa Cap II"}),
     lambda b: b["product"]["title"]),
    ("/store/products", ("/admin/products/prod_cap", {"title": "Medusa Cap II"}),
     lambda b: sorted(p["title"] for p in b["products"])),
    ("/store/regions", ("/admin/regions/{NA}", {"name": "North America"}), lambda b: [r["name"] for r in b["regions"]]),
    ("/store/shipping-options?region_id={NA}", ("/admin/shipping-options/{OPTION}", {"amount": 777}),
     lambda b: sorted(o["amount"] for o in b["shipping_options"])),
])
async def test_a_change_through_the_admin_moves_the_tag_on_the_next_request(client, seeded, admin_headers, url, change,
                                                                              shows):
    names = {"NA": await region_id("NA"), "OPTION": await option_id("NA Flat Rate")}
    url = url.format(**names)
    before = await client.get(url)
    r = await client.post(change[0].format(**names), json=change[1], headers=admin_headers)
    assert r.status_code == 200, r.text
    after = await client.get(url, headers={"If-None-Match": before.headers["etag"]})
    assert after.status_code == 200 and after.headers["etag"] != before.headers["etag"]
    assert shows(after.json()) != shows(before.json())


async def test_a_category_moved_out_of_sight_changes_the_category_read(client, seeded):
    category = await ProductCategory.create(name="Hats", handle="hats", is_active=True, is_internal=False)
    before = await client.get("/store/product-categories")
    await ProductCategory.filter(id=category.id).update(is_internal=True)  # any writer, not only the services
    after = await client.get("/store/product-categories", headers={"If-None-Match": before.headers["etag"]})
    assert after.status_code == 200 and "hats" not in [c["handle"] for c in after.json()["product_categories"]]


async def test_stock_moves_the_product_reads_and_not_the_others(client, seeded):
    product, collections = await client.get("/store/products/prod_cap"), await client.get("/store/collections")
    variant = await ProductVariant.filter(product_id="prod_cap").first()
    await ProductVariant.filter(id=variant.id).update(inventory_quantity=variant.inventory_quantity - 1)
    moved = await client.get("/store/products/prod_cap", headers={"If-None-Match": product.headers["etag"]})
    assert moved.status_code == 200
    shown = {v["id"]: v["inventory_quantity"] for v in moved.json()["product"]["variants"]}
    assert shown[variant.id] == variant.inventory_quantity - 1
    kept = await client.get("/store/collections", headers={"If-None-Match": collections.headers["etag"]})
    assert kept.status_code == 304


async def test_a_price_list_opening_moves_the_product_tag_with_no_write(client, seeded, monkeypatch):
    # Given a sale that opens in an hour, written before the first read
    variant = await ProductVariant.filter(product_id="prod_cap").first()
    sale = await PriceList.create(name="Later", type="sale", status="active", starts_at=now() + timedelta(hours=1))
    await MoneyAmount.create(variant_id=variant.id, currency_code="usd", amount=1, price_list_id=sale.id)
    url = "/store/products/prod_cap?currency_code=usd"
    before = await client.get(url)
    assert (await client.get(url, headers={"If-None-Match": before.headers["etag"]})).status_code == 304
    # When the hour has passed
    later = now() + timedelta(hours=2)
    monkeypatch.setattr("services.catalog.version_reads.now", lambda: later)
    monkeypatch.setattr("services.catalog.pricing.now", lambda: later)
    # I expect the sale's price, under a new tag
    after = await client.get(url, headers={"If-None-Match": before.headers["etag"]})
    assert after.status_code == 200
    prices = {v["id"]: v["calculated_price"] for v in after.json()["product"]["variants"]}
    assert prices[variant.id] == 1


async def test_cache_control_follows_store_cache_seconds(client, seeded, monkeypatch):
    app = Sanic.get_app("commerce_test")
    monkeypatch.setattr(app.ctx, "settings", replace(app.ctx.settings, store_cache_seconds=300))
    r = await client.get("/store/regions")
    assert r.headers["cache-control"] == "public, max-age=300"
    assert (await client.get("/store/regions", headers={"If-None-Match": r.headers["etag"]})).headers[
        "cache-control"] == "public, max-age=300"


async def test_a_signed_in_customers_products_and_a_carts_are_private_and_untagged(client, seeded):
    _, signed_in = await shopper(client)
    for headers, url in ((signed_in, "/store/products"), (signed_in, "/store/products/prod_cap"),
                         ({}, f"/store/products?cart_id={(await new_cart(client))['id']}")):
        r = await client.get(url, headers=headers)
        assert r.status_code == 200, r.text
        assert r.headers["cache-control"] == "private, no-store" and "etag" not in r.headers
    # Anything else the same customer reads is the same for everyone
    assert "etag" in (await client.get("/store/collections", headers=signed_in)).headers


async def test_product_tags_vary_by_publishable_key_and_origin(client, seeded, admin_headers):
    r = await client.post("/admin/publishable-api-keys", json={"title": "Pop-up"}, headers=admin_headers)
    key = r.json()["publishable_api_key"]["id"]
    plain = await client.get("/store/products")
    keyed = await client.get("/store/products", headers={"x-publishable-api-key": key})
    assert plain.headers["etag"] != keyed.headers["etag"]
    assert "x-publishable-api-key" in plain.headers["vary"] and "Cookie" in plain.headers["vary"]
    cross = await client.get("/store/products", headers={"Origin": "http://localhost:8000"})
    assert [v.strip() for v in cross.headers["vary"].split(",")].count("Origin") == 1
    # A revoked key is refused at once, whatever tag the client holds
    await client.post(f"/admin/publishable-api-keys/{key}/revoke", headers=admin_headers)
    refused = await client.get("/store/products", headers={"x-publishable-api-key": key,
                                                            "If-None-Match": keyed.headers["etag"]})
    assert refused.status_code == 400


async def test_a_carts_shipping_options_are_not_tagged(client, seeded):
    cart = await new_cart(client)
    r = await client.get(f"/store/shipping-options/{cart['id']}")
    assert r.status_code == 200 and "etag" not in r.headers

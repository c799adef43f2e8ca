"""One entity's metadata holds at most METADATA_MAX_BYTES of JSON (services/core/metadata.py):
a body over it is a 400 naming the bound, wherever the metadata sits (a product, a nested
variant, a cart's line, a customer), and so is an update whose merge would grow it past it."""

from __future__ import annotations

import pytest

from models import Product
from services.core import metadata as metadata_rules
from tests.cart_factories import new_cart, shopper

LIMIT = metadata_rules.DEFAULT_MAX_BYTES


def over_the_bound() -> dict:
    return {"blob": "x" * LIMIT}


def refused_naming_the_bound(r) -> None:
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["type"] == "invalid_data"
    assert f"metadata must hold at most {LIMIT} bytes of JSON (METADATA_MAX_BYTES)" in body["message"]


@pytest.mark.parametrize("body", [
    {"title": "Mug", "metadata": over_the_bound()},
    {"title": "Mug", "variants": [{"title": "Blue", "prices": [{"currency_code": "usd", "amount": 100}],
                                   "metadata": over_the_bound()}]},
], ids=["product", "nested-variant"])
async def test_an_over_large_metadata_on_an_admin_write_is_a_400_naming_the_bound(client, admin_headers, body):
    refused_naming_the_bound(await client.post("/admin/products", json=body, headers=admin_headers))
    assert await Product.filter(title="Mug").count() == 0


async def test_an_over_large_metadata_on_a_store_write_is_a_400_naming_the_bound(client, seeded):
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    refused_naming_the_bound(await client.post(f"/store/carts/{cart['id']}/line-items", json={
        "variant_id": "variant_cap_black", "quantity": 1, "metadata": over_the_bound()}))
    line = cart["items"][0]["id"]
    refused_naming_the_bound(await client.post(f"/store/carts/{cart['id']}/line-items/{line}",
                                               json={"quantity": 1, "metadata": over_the_bound()}))
    _, headers = await shopper(client)
    refused_naming_the_bound(await client.post("/store/customers/me", json={"metadata": over_the_bound()},
                                               headers=headers))


async def test_metadata_cannot_grow_past_the_bound_through_repeated_updates(client, admin_headers):
    r = await client.post("/admin/products", json={"title": "Mug"}, headers=admin_headers)
    product = r.json()["product"]
    half = LIMIT // 2
    # Given updates each well within the bound, merging new keys
    r = await client.post(f"/admin/products/{product['id']}", json={"metadata": {"a": "x" * half}},
                          headers=admin_headers)
    assert r.status_code == 200, r.text
    # When one more would take the merged metadata past it
    r = await client.post(f"/admin/products/{product['id']}", json={"metadata": {"b": "x" * half}},
                          headers=admin_headers)
    # I expect a 400, the product as it was; and a change that shrinks it accepted
    assert r.status_code == 400 and "METADATA_MAX_BYTES" in r.json()["message"], r.text
    assert set((await Product.get(id=product["id"])).metadata) == {"a"}
    r = await client.post(f"/admin/products/{product['id']}", json={"metadata": {"a": "", "b": "small"}},
                          headers=admin_headers)
    assert r.status_code == 200 and r.json()["product"]["metadata"] == {"b": "small"}, r.text


async def test_metadata_moved_in_over_the_bound_stays_and_may_shrink_but_not_grow(client, admin_headers):
    r = await client.post("/admin/products", json={"title": "Mug"}, headers=admin_headers)
    product_id = r.json()["product"]["id"]
    await Product.filter(id=product_id).update(metadata={"big": "x" * (2 * LIMIT), "old": "y" * 100})
    grow = await client.post(f"/admin/products/{product_id}", json={"metadata": {"new": "z"}}, headers=admin_headers)
    assert grow.status_code == 400, grow.text
    shrink = await client.post(f"/admin/products/{product_id}", json={"metadata": {"old": ""}}, headers=admin_headers)
    assert shrink.status_code == 200, shrink.text
    r = await client.get(f"/admin/products/{product_id}", headers=admin_headers)
    assert set(r.json()["product"]["metadata"]) == {"big"}


def test_the_bound_is_a_setting():
    from app.config import ConfigError, Settings

    assert Settings.from_env({"METADATA_MAX_BYTES": "1048576"}).metadata_max_bytes == 1 << 20
    assert Settings.from_env({}).metadata_max_bytes == LIMIT
    with pytest.raises(ConfigError):
        Settings.from_env({"METADATA_MAX_BYTES": "0"})


async def test_the_lines_of_a_cart_hold_the_bound_together(client, seeded):
    # Given a cart whose one line holds most of the bound in metadata
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    most = {"note": "x" * (LIMIT * 3 // 4)}
    r = await client.post(f"/store/carts/{cart['id']}/line-items/{cart['items'][0]['id']}",
                          json={"quantity": 1, "metadata": most})
    assert r.status_code == 200, r.text
    # When another line would take the lines past it together, by a new line or an update
    second = {"variant_id": "variant_cap_black", "quantity": 1, "metadata": {"note": "y" * (LIMIT // 2)}}
    r = await client.post(f"/store/carts/{cart['id']}/line-items", json=second)
    # I expect a 400 naming the bound, and the cart as it was; a small line still fits
    assert r.status_code == 400 and "METADATA_MAX_BYTES" in r.json()["message"], r.text
    r = await client.get(f"/store/carts/{cart['id']}")
    assert len(r.json()["cart"]["items"]) == 1
    r = await client.post(f"/store/carts/{cart['id']}/line-items",
                          json={**second, "metadata": {"note": "small"}})
    assert r.status_code == 200 and len(r.json()["cart"]["items"]) == 2, r.text
    small_line = next(i for i in r.json()["cart"]["items"] if i["metadata"] == {"note": "small"})
    r = await client.post(f"/store/carts/{cart['id']}/line-items/{small_line['id']}",
                          json={"quantity": 1, "metadata": {"more": "z" * (LIMIT // 2)}})
    assert r.status_code == 400 and "METADATA_MAX_BYTES" in r.json()["message"], r.text

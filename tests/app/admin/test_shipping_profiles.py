"""Admin shipping profiles: `/admin/shipping-profiles` (Medusa's tests
admin/shipping-profile.spec.ts), and what the storefront sees of products moved between them."""

from __future__ import annotations

import pytest

from models import Product, ShippingOption, ShippingProfile
from tests.cart_factories import new_cart, option_id, shipping_option
from tests.conftest import count_queries

PROFILE_COLUMNS = {"id", "name", "type", "metadata", "created_at", "updated_at", "deleted_at"}
DEMO_PRODUCTS = {
    "prod_t_shirt", "prod_sweatshirt", "prod_sweatpants", "prod_shorts", "prod_hoodie", "prod_cap", "prod_mug",
    "prod_tote_bag", "prod_socks", "prod_coffee",
}


async def create(client, headers, **body) -> dict:
    r = await client.post("/admin/shipping-profiles", json={"name": "Bulky", "type": "custom", **body},
                          headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["shipping_profile"]


async def update(client, headers, profile: str, **body):
    return await client.post(f"/admin/shipping-profiles/{profile}", json=body, headers=headers)


async def profile_of(kind: str) -> str:
    return (await ShippingProfile.get(type=kind)).id


# ---------------------------------------------------------------- list


async def test_list_shows_every_live_profile_oldest_first_without_relations(client, admin_headers, seeded):
    bulky = await create(client, admin_headers)
    r = await client.get("/admin/shipping-profiles", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"shipping_profiles", "count", "offset", "limit"}
    assert [(p["name"], p["type"]) for p in body["shipping_profiles"]] == [
        ("Default Shipping Profile", "default"), ("Gift Card Profile", "gift_card"), ("Bulky", "custom"),
    ]
    assert all(set(p) == PROFILE_COLUMNS for p in body["shipping_profiles"])
    assert (body["count"], body["offset"], body["limit"]) == (3, 0, 1000)
    await client.delete(f"/admin/shipping-profiles/{bulky['id']}", headers=admin_headers)
    body = (await client.get("/admin/shipping-profiles", headers=admin_headers)).json()
    assert [p["type"] for p in body["shipping_profiles"]] == ["default", "gift_card"]


async def test_list_runs_as_many_statements_for_one_profile_as_for_many(client, admin_headers, seeded):
    await ShippingProfile.bulk_create([ShippingProfile(name=f"Profile {n}", type="custom") for n in range(20)])
    async with count_queries() as one:
        r1 = await client.get("/admin/shipping-profiles?limit=1&expand=products,shipping_options",
                              headers=admin_headers)
    async with count_queries() as many:
        r10 = await client.get("/admin/shipping-profiles?limit=10&expand=products,shipping_options",
                               headers=admin_headers)
    assert len(r1.json()["shipping_profiles"]) == 1 and len(r10.json()["shipping_profiles"]) == 10
    assert r1.json()["count"] == r10.json()["count"] == 22
    assert len(r1.json()["shipping_profiles"][0]["products"]) == 10
    assert len(one) == len(many), many


async def test_list_refuses_an_unknown_query_key(client, admin_headers, seeded):
    r = await client.get("/admin/shipping-profiles?type=custom", headers=admin_headers)
    assert (r.status_code, r.json()) == (400, {"type": "invalid_data", "message": "property type should not exist"})


async def test_the_admin_routes_need_a_signed_in_user(client, seeded):
    assert (await client.get("/admin/shipping-profiles")).status_code == 401
    r = await client.post("/admin/shipping-profiles", json={"name": "Bulky", "type": "custom"})
    assert r.status_code == 401
    assert not await ShippingProfile.exists(name="Bulky")


# ---------------------------------------------------------------- retrieve


async def test_get_shows_the_profile_with_its_products_and_shipping_options(client, admin_headers, seeded):
    default = await profile_of("default")
    r = await client.get(f"/admin/shipping-profiles/{default}", headers=admin_headers)
    assert r.status_code == 200
    profile = r.json()["shipping_profile"]
    assert set(profile) == PROFILE_COLUMNS | {"products", "shipping_options"}
    assert {p["id"] for p in profile["products"]} == DEMO_PRODUCTS
    assert all([q["id"] for q in p["profiles"]] == [default] for p in profile["products"])
    assert {o["name"] for o in profile["shipping_options"]} == {"NA Flat Rate", "EU Flat Rate"}
    r = await client.get(f"/admin/shipping-profiles/{default}?expand=", headers=admin_headers)
    assert set(r.json()["shipping_profile"]) == PROFILE_COLUMNS


async def test_get_of_an_unknown_profile_is_a_404(client, admin_headers, seeded):
    r = await client.get("/admin/shipping-profiles/sp_missing", headers=admin_headers)
    assert (r.status_code, r.json()) == (
        404, {"type": "not_found", "message": "Profile with id: sp_missing was not found"},
    )


# ---------------------------------------------------------------- create


async def test_create_answers_the_new_profile(client, admin_headers, seeded):
    profile = await create(client, admin_headers, metadata={"carrier": "freight"})
    assert profile["id"].startswith("sp_")
    assert set(profile) == PROFILE_COLUMNS
    assert (profile["name"], profile["type"], profile["metadata"], profile["deleted_at"]) == (
        "Bulky", "custom", {"carrier": "freight"}, None,
    )


@pytest.mark.parametrize("body,status,message", [
    ({"name": "Bulky", "type": "bulky"}, 400, "type must be one of 'default', 'custom', 'gift_card'"),
    ({"type": "custom"}, 400, "name should not be empty"),
    ({"name": "Bulky"}, 400, "type should not be empty"),
    ({"name": "Bulky", "type": "custom", "products": []}, 400, "property products should not exist"),
    ({"name": "Bulky", "type": "default"}, 422, "Shipping_profile with type default already exists."),
    ({"name": "Bulky", "type": "gift_card"}, 422, "Shipping_profile with type gift_card already exists."),
])
async def test_create_refuses_an_invalid_profile(client, admin_headers, seeded, body, status, message):
    r = await client.post("/admin/shipping-profiles", json=body, headers=admin_headers)
    assert r.status_code == status and r.json()["message"] == message
    assert not await ShippingProfile.exists(name="Bulky")


# ---------------------------------------------------------------- update


async def test_update_renames_and_merges_metadata(client, admin_headers, seeded):
    profile = await create(client, admin_headers, metadata={"carrier": "freight", "days": 5})
    r = await update(client, admin_headers, profile["id"], name="Oversized", metadata={"carrier": "", "days": 7})
    assert r.status_code == 200, r.text
    changed = r.json()["shipping_profile"]
    assert (changed["name"], changed["metadata"]) == ("Oversized", {"days": 7})
    assert (changed["products"], changed["shipping_options"]) == ([], [])


async def test_update_moves_products_and_options_into_the_profile(client, admin_headers, seeded):
    profile = await create(client, admin_headers)
    freight = await shipping_option("Freight", amount=5000)
    moved = ["prod_t_shirt", "prod_sweatshirt", "prod_sweatpants", "prod_shorts", "prod_hoodie"]
    r = await update(client, admin_headers, profile["id"], products=moved, shipping_options=[freight.id])
    assert r.status_code == 200, r.text
    changed = r.json()["shipping_profile"]
    assert {p["id"] for p in changed["products"]} == set(moved)
    assert all(p["profile_id"] == profile["id"] for p in changed["products"])
    assert [o["id"] for o in changed["shipping_options"]] == [freight.id]
    assert await Product.filter(profile_id=await profile_of("default")).count() == len(DEMO_PRODUCTS) - 5


async def test_the_store_ships_moved_products_with_their_new_profiles_options(client, admin_headers, seeded):
    profile = await create(client, admin_headers)
    freight = await shipping_option("Freight", amount=5000)
    await update(client, admin_headers, profile["id"], products=["prod_cap"], shipping_options=[freight.id])
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await client.get(f"/store/shipping-options/{cart['id']}")
    assert [(o["name"], o["profile"]["id"]) for o in r.json()["shipping_options"]] == [("Freight", profile["id"])]


async def test_update_with_an_unknown_product_or_option_is_a_404_and_changes_nothing(client, admin_headers, seeded):
    profile = await create(client, admin_headers)
    na = await option_id("NA Flat Rate")
    r = await update(client, admin_headers, profile["id"], name="Oversized", products=["prod_cap", "prod_missing"])
    assert (r.status_code, r.json()) == (
        404, {"type": "not_found", "message": "Product with id: prod_missing was not found"},
    )
    r = await update(client, admin_headers, profile["id"], products=["prod_cap"], shipping_options=[na, "so_missing"])
    assert (r.status_code, r.json()) == (
        404, {"type": "not_found", "message": "Shipping Option with so_missing was not found"},
    )
    assert (await ShippingProfile.get(id=profile["id"])).name == "Bulky"
    assert (await Product.get(id="prod_cap")).profile_id == await profile_of("default")
    assert (await ShippingOption.get(id=na)).profile_id == await profile_of("default")


@pytest.mark.parametrize("kind,new_type,status,message", [
    ("default", "custom", 400, "The type of the default shipping profile cannot be changed"),
    ("gift_card", "default", 400, "The type of the gift card shipping profile cannot be changed"),
    ("custom", "default", 422, "Shipping_profile with type default already exists."),
    ("custom", "parcel", 400, "type must be one of 'default', 'custom', 'gift_card'"),
])
async def test_update_keeps_one_default_and_one_gift_card_profile(
    client, admin_headers, seeded, kind, new_type, status, message,
):
    profile = (await create(client, admin_headers))["id"] if kind == "custom" else await profile_of(kind)
    r = await update(client, admin_headers, profile, type=new_type)
    assert r.status_code == status and r.json()["message"] == message
    assert (await ShippingProfile.get(id=profile)).type == kind


async def test_update_of_an_unknown_profile_is_a_404(client, admin_headers, seeded):
    r = await update(client, admin_headers, "sp_missing", name="x")
    assert (r.status_code, r.json()["message"]) == (404, "Profile with id: sp_missing was not found")


# ---------------------------------------------------------------- delete


async def test_delete_soft_deletes_an_empty_profile_and_is_idempotent(client, admin_headers, seeded):
    profile = (await create(client, admin_headers))["id"]
    for target in (profile, profile, "sp_missing"):
        r = await client.delete(f"/admin/shipping-profiles/{target}", headers=admin_headers)
        assert (r.status_code, r.json()) == (200, {"id": target, "object": "shipping_profile", "deleted": True})
    assert (await ShippingProfile.get(id=profile)).deleted_at is not None
    assert (await client.get(f"/admin/shipping-profiles/{profile}", headers=admin_headers)).status_code == 404


@pytest.mark.parametrize("kind,message", [
    ("default", "The default shipping profile cannot be deleted"),
    ("gift_card", "The gift card shipping profile cannot be deleted"),
])
async def test_the_default_and_gift_card_profiles_cannot_be_deleted(client, admin_headers, seeded, kind, message):
    profile = await profile_of(kind)
    r = await client.delete(f"/admin/shipping-profiles/{profile}", headers=admin_headers)
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed", "message": message})
    assert (await ShippingProfile.get(id=profile)).deleted_at is None


async def test_a_profile_holding_products_or_options_cannot_be_deleted(client, admin_headers, seeded):
    with_product = (await create(client, admin_headers, name="Caps"))["id"]
    await update(client, admin_headers, with_product, products=["prod_cap"])
    with_option = (await create(client, admin_headers, name="Freight"))["id"]
    await update(client, admin_headers, with_option, shipping_options=[await option_id("NA Flat Rate")])
    for profile in (with_product, with_option):
        r = await client.delete(f"/admin/shipping-profiles/{profile}", headers=admin_headers)
        assert r.status_code == 400 and r.json()["type"] == "not_allowed"
        assert (await ShippingProfile.get(id=profile)).deleted_at is None

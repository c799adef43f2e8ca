"""Admin shipping options: `/admin/shipping-options` (Medusa's tests admin/shipping-options.js),
and what the storefront sees of the changes."""

from __future__ import annotations

import pytest

from models import ShippingOption, ShippingOptionRequirement, ShippingProfile
from tests.cart_factories import new_cart, option_id, region_id, shipping_option
from tests.conftest import count_queries

OPTION_COLUMNS = {
    "id", "name", "region_id", "profile_id", "provider_id", "price_type", "amount", "is_return", "admin_only",
    "data", "metadata", "created_at", "updated_at", "deleted_at", "includes_tax",
}
RELATIONS = {"region", "profile", "requirements"}
PRICE_KEYS = {"price_incl_tax", "tax_rates", "tax_amount"}


async def create(client, headers, **body) -> dict:
    r = await client.post("/admin/shipping-options", json=await new_option(**body), headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["shipping_option"]


async def new_option(**body) -> dict:
    """A valid create body for the demo store's NA region, changed by `body`."""
    defaults = {
        "name": "Express", "region_id": await region_id("NA"), "provider_id": "manual",
        "data": {"id": "manual-fulfillment"}, "price_type": "flat_rate", "amount": 2500,
    }
    return {**defaults, **body}


async def update(client, headers, option: str, **body):
    return await client.post(f"/admin/shipping-options/{option}", json=body, headers=headers)


async def cart_option_names(client, cart: dict) -> set[str]:
    r = await client.get(f"/store/shipping-options/{cart['id']}")
    assert r.status_code == 200, r.text
    return {o["name"] for o in r.json()["shipping_options"]}


def requirement_types(option: dict) -> dict[str, int]:
    return {r["type"]: r["amount"] for r in option["requirements"]}


# ---------------------------------------------------------------- list


async def test_list_shows_every_live_option_with_its_region_profile_requirements_and_taxes(
    client, admin_headers, seeded,
):
    await shipping_option("Staff pickup", admin_only=True)
    r = await client.get("/admin/shipping-options", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"shipping_options", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (5, 0, 50)
    by_name = {o["name"]: o for o in body["shipping_options"]}
    assert set(by_name) == {
        "NA Flat Rate", "EU Flat Rate", "NA Gift Card Delivery", "EU Gift Card Delivery", "Staff pickup",
    }
    eu = by_name["EU Flat Rate"]
    assert set(eu) == OPTION_COLUMNS | RELATIONS | PRICE_KEYS
    assert eu["region"]["name"] == "EU" and eu["profile"]["type"] == "default" and eu["requirements"] == []
    assert [p["id"] for p in eu["region"]["fulfillment_providers"]] == ["manual"]
    assert [p["id"] for p in eu["region"]["payment_providers"]] == ["manual"]
    assert (eu["amount"], eu["tax_amount"], eu["price_incl_tax"]) == (1000, 250, 1250)
    assert eu["tax_rates"] == [{"rate": 25.0, "name": "default", "code": "default"}]
    assert by_name["NA Gift Card Delivery"]["profile"]["type"] == "gift_card"


async def test_list_narrows_to_a_region_returns_admin_only_ids_and_a_name_search(client, admin_headers, seeded):
    staff = await shipping_option("Staff pickup", admin_only=True)
    await shipping_option("NA Returns", is_return=True)

    async def names(query: str) -> set[str]:
        r = await client.get(f"/admin/shipping-options?{query}", headers=admin_headers)
        assert r.status_code == 200, r.text
        return {o["name"] for o in r.json()["shipping_options"]}

    # The dashboard's region page asks for the outbound and the return options of a region.
    na = await region_id("NA")
    assert await names(f"region_id={na}&is_return=false") == {"NA Flat Rate", "NA Gift Card Delivery", "Staff pickup"}
    assert await names(f"region_id={na}&is_return=true") == {"NA Returns"}
    assert await names("admin_only=true") == {"Staff pickup"}
    assert "Staff pickup" not in await names("admin_only=false")
    assert await names("q=gift") == {"NA Gift Card Delivery", "EU Gift Card Delivery"}
    assert await names("name=EU%20Flat%20Rate") == {"EU Flat Rate"}
    assert await names(f"id[]={staff.id}") == {"Staff pickup"}


async def test_list_pages_and_orders(client, admin_headers, seeded):
    r = await client.get("/admin/shipping-options?order=name&limit=2&offset=1", headers=admin_headers)
    body = r.json()
    assert [o["name"] for o in body["shipping_options"]] == ["EU Gift Card Delivery", "NA Flat Rate"]
    assert (body["count"], body["offset"], body["limit"]) == (4, 1, 2)


@pytest.mark.parametrize("query,message", [
    ("admin_only=maybe", "admin_only must be a boolean value"),
    ("is_return=yes", "is_return must be a boolean value"),
    ("provider=manual", "property provider should not exist"),
    ("order=data", "Order field data is not valid"),
    ("expand=countries", "Requested relations [countries] are not valid"),
])
async def test_list_refuses_a_bad_query(client, admin_headers, seeded, query, message):
    r = await client.get(f"/admin/shipping-options?{query}", headers=admin_headers)
    assert (r.status_code, r.json()) == (400, {"type": "invalid_data", "message": message})


async def test_list_runs_as_many_statements_for_one_option_as_for_many(client, admin_headers, seeded):
    for n in range(30):
        await shipping_option(f"Option {n}", region="EU" if n % 2 else "NA", requirements={"min_subtotal": n})
    async with count_queries() as one:
        r1 = await client.get("/admin/shipping-options?limit=1", headers=admin_headers)
    async with count_queries() as many:
        r30 = await client.get("/admin/shipping-options?limit=30", headers=admin_headers)
    assert len(r1.json()["shipping_options"]) == 1 and len(r30.json()["shipping_options"]) == 30
    assert r1.json()["count"] == r30.json()["count"] == 34
    assert {len(o["requirements"]) for o in r30.json()["shipping_options"]} == {1}
    assert len(one) == len(many), many


async def test_the_admin_routes_need_a_signed_in_user(client, seeded):
    r = await client.get("/admin/shipping-options")
    assert r.status_code == 401 and r.json()["type"] == "unauthorized"
    r = await client.post("/admin/shipping-options", json=await new_option())
    assert r.status_code == 401
    assert not await ShippingOption.exists(name="Express")


# ---------------------------------------------------------------- retrieve


async def test_get_shows_one_option_with_its_relations_unpriced(client, admin_headers, seeded):
    express = await shipping_option("Express", amount=2500, requirements={"min_subtotal": 1000})
    r = await client.get(f"/admin/shipping-options/{express.id}", headers=admin_headers)
    assert r.status_code == 200
    option = r.json()["shipping_option"]
    assert set(option) == OPTION_COLUMNS | RELATIONS
    assert (option["name"], option["amount"], option["region"]["name"]) == ("Express", 2500, "NA")
    assert requirement_types(option) == {"min_subtotal": 1000}
    assert option["requirements"][0]["id"].startswith("sor_")


async def test_get_of_an_unknown_or_deleted_option_is_a_404(client, admin_headers, seeded):
    r = await client.get("/admin/shipping-options/so_missing", headers=admin_headers)
    assert (r.status_code, r.json()) == (
        404, {"type": "not_found", "message": "Shipping Option with so_missing was not found"},
    )
    eu = await option_id("EU Flat Rate")
    await client.delete(f"/admin/shipping-options/{eu}", headers=admin_headers)
    assert (await client.get(f"/admin/shipping-options/{eu}", headers=admin_headers)).status_code == 404


# ---------------------------------------------------------------- create


async def test_create_answers_the_option_with_medusas_defaults_in_the_default_profile(client, admin_headers, seeded):
    option = await create(client, admin_headers, requirements=[
        {"type": "min_subtotal", "amount": 1000}, {"type": "max_subtotal", "amount": 100000},
    ], metadata={"carrier": "ups"})
    assert option["id"].startswith("so_")
    assert set(option) == OPTION_COLUMNS | RELATIONS
    default = await ShippingProfile.get(type="default")
    assert (option["profile_id"], option["profile"]["id"]) == (default.id, default.id)
    assert (option["is_return"], option["admin_only"], option["amount"], option["price_type"]) == (
        False, False, 2500, "flat_rate",
    )
    assert (option["data"], option["metadata"], option["provider_id"]) == (
        {"id": "manual-fulfillment"}, {"carrier": "ups"}, "manual",
    )
    assert requirement_types(option) == {"min_subtotal": 1000, "max_subtotal": 100000}
    assert all(r["id"].startswith("sor_") and r["shipping_option_id"] == option["id"] for r in option["requirements"])


async def test_a_created_option_is_offered_to_carts_that_meet_its_requirements(client, admin_headers, seeded):
    await create(client, admin_headers, name="Express", requirements=[{"type": "min_subtotal", "amount": 2000}])
    await create(client, admin_headers, name="Small parcel", amount=300,
                 requirements=[{"type": "max_subtotal", "amount": 2000}])
    small = await new_cart(client, "NA", {"variant_cap_black": 1})  # subtotal 1 500
    big = await new_cart(client, "NA", {"variant_cap_black": 2})  # subtotal 3 000
    assert await cart_option_names(client, small) == {"NA Flat Rate", "Small parcel"}
    assert await cart_option_names(client, big) == {"NA Flat Rate", "Express"}
    r = await client.post(f"/store/carts/{big['id']}/shipping-methods",
                          json={"option_id": await option_id("Express")})
    assert r.status_code == 200 and r.json()["cart"]["shipping_total"] == 2500


async def test_admin_only_and_return_options_are_never_offered_to_the_store(client, admin_headers, seeded):
    staff = await create(client, admin_headers, name="Staff pickup", admin_only=True)
    await create(client, admin_headers, name="NA Returns", is_return=True, data={"id": "manual-fulfillment-return"})
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    assert await cart_option_names(client, cart) == {"NA Flat Rate"}
    listed = {o["name"] for o in (await client.get("/store/shipping-options")).json()["shipping_options"]}
    assert "Staff pickup" not in listed and "NA Returns" in listed
    r = await client.post(f"/store/carts/{cart['id']}/shipping-methods", json={"option_id": staff["id"]})
    assert r.status_code == 400


async def test_create_puts_the_option_in_the_profile_given(client, admin_headers, seeded):
    gift_cards = await ShippingProfile.get(type="gift_card")
    option = await create(client, admin_headers, name="Gift card post", profile_id=gift_cards.id, amount=0)
    assert option["profile"]["type"] == "gift_card"
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    assert "Gift card post" not in await cart_option_names(client, cart)  # the cap ships with the default profile


@pytest.mark.parametrize("changes,message", [
    ({"price_type": "free"}, 'Invalid price type, must be one of "flat_rate" or "calculated"'),
    ({"price_type": "calculated"}, "The fulfillment provider cannot calculate prices for this option"),
    ({"amount": None}, "Shipping options of type `flat_rate` must have an `amount`"),
    ({"amount": -1}, "amount must not be less than 0"),
    ({"amount": 12.5}, "amount must be an integer number"),
    ({"amount": 2**63}, "amount must not be greater than 9223372036854775807"),
    ({"provider_id": "webshipper"}, "The fulfillment provider is not available in the provided region"),
    ({"requirements": [{"type": "min_subtotal", "amount": 1}, {"type": "min_subtotal", "amount": 2}]},
     "Only one requirement of each type is allowed"),
    ({"requirements": [{"type": "min_subtotal", "amount": 500}, {"type": "max_subtotal", "amount": 400}]},
     "Max. subtotal must be greater than Min. subtotal"),
    ({"requirements": [{"type": "max_items", "amount": 5}]},
     'Invalid option type, must be one of "min_subtotal" or "max_subtotal"'),
    ({"admin_only": "false"}, "admin_only must be a boolean value"),
    ({"includes_tax": "yes"}, "includes_tax must be a boolean value"),
    ({"data": None}, "data must be an object"),
    ({"name": ""}, "name should not be empty"),
])
async def test_create_refuses_an_invalid_option_and_keeps_nothing(client, admin_headers, seeded, changes, message):
    body = await new_option(**changes)
    r = await client.post("/admin/shipping-options", json=body, headers=admin_headers)
    assert (r.status_code, r.json()) == (400, {"type": "invalid_data", "message": message})
    assert not await ShippingOption.exists(name="Express")
    assert await ShippingOptionRequirement.all().count() == 0


async def test_create_without_required_fields_names_them(client, admin_headers, seeded):
    r = await client.post("/admin/shipping-options", json={}, headers=admin_headers)
    assert r.status_code == 400
    message = r.json()["message"]
    for name in ("name", "region_id", "provider_id", "data", "price_type"):
        assert f"{name} should not be empty" in message


async def test_create_in_an_unknown_region_or_profile_is_a_404(client, admin_headers, seeded):
    r = await client.post("/admin/shipping-options", json=await new_option(region_id="reg_missing"),
                          headers=admin_headers)
    assert (r.status_code, r.json()) == (404, {"type": "not_found", "message": "Region with reg_missing was not found"})
    r = await client.post("/admin/shipping-options", json=await new_option(profile_id="sp_missing"),
                          headers=admin_headers)
    assert (r.status_code, r.json()) == (
        404, {"type": "not_found", "message": "Shipping_profile with profile_id sp_missing does not exist."},
    )
    assert not await ShippingOption.exists(name="Express")


# ---------------------------------------------------------------- update


async def test_update_changes_name_amount_admin_only_and_merges_metadata(client, admin_headers, seeded):
    option = await create(client, admin_headers, metadata={"carrier": "ups", "speed": "fast"})
    r = await update(client, admin_headers, option["id"], name="Express+", amount=3000, admin_only=True,
                     metadata={"carrier": "dhl", "speed": ""}, requirements=[])
    assert r.status_code == 200, r.text
    changed = r.json()["shipping_option"]
    assert set(changed) == OPTION_COLUMNS | RELATIONS
    assert (changed["name"], changed["amount"], changed["admin_only"], changed["metadata"]) == (
        "Express+", 3000, True, {"carrier": "dhl"},
    )
    assert changed["updated_at"] >= option["updated_at"]


async def test_the_store_sees_an_updated_price_and_loses_an_option_turned_admin_only(client, admin_headers, seeded):
    na = await option_id("NA Flat Rate")
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    await update(client, admin_headers, na, amount=1500)
    r = await client.get(f"/store/shipping-options/{cart['id']}")
    assert [(o["name"], o["amount"]) for o in r.json()["shipping_options"]] == [("NA Flat Rate", 1500)]
    await update(client, admin_headers, na, admin_only=True)
    assert await cart_option_names(client, cart) == set()


async def test_update_replaces_the_requirements_keeping_those_listed_by_id(client, admin_headers, seeded):
    option = await create(client, admin_headers, requirements=[
        {"type": "min_subtotal", "amount": 1000}, {"type": "max_subtotal", "amount": 5000},
    ])
    by_type = {r["type"]: r["id"] for r in option["requirements"]}
    r = await update(client, admin_headers, option["id"], requirements=[
        {"id": by_type["min_subtotal"], "type": "min_subtotal", "amount": 2000},
    ])
    assert r.status_code == 200, r.text
    changed = r.json()["shipping_option"]
    assert [(q["id"], q["type"], q["amount"]) for q in changed["requirements"]] == [
        (by_type["min_subtotal"], "min_subtotal", 2000),
    ]
    dropped = await ShippingOptionRequirement.get(id=by_type["max_subtotal"])
    assert dropped.deleted_at is not None  # soft-deleted, as in Medusa
    r = await update(client, admin_headers, option["id"], requirements=[
        {"id": by_type["min_subtotal"], "type": "min_subtotal", "amount": 2000},
        {"type": "max_subtotal", "amount": 9000},
    ])
    assert requirement_types(r.json()["shipping_option"]) == {"min_subtotal": 2000, "max_subtotal": 9000}
    # Without `requirements` (Medusa v1 refuses that) the set is kept.
    r = await update(client, admin_headers, option["id"], name="Express+")
    assert requirement_types(r.json()["shipping_option"]) == {"min_subtotal": 2000, "max_subtotal": 9000}


async def test_the_store_honours_requirements_changed_by_the_admin(client, admin_headers, seeded):
    na = await option_id("NA Flat Rate")
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})  # subtotal 1 500
    await update(client, admin_headers, na, requirements=[{"type": "min_subtotal", "amount": 2000}])
    assert await cart_option_names(client, cart) == set()
    await update(client, admin_headers, na, requirements=[])
    assert await cart_option_names(client, cart) == {"NA Flat Rate"}


async def test_update_refuses_a_requirement_id_of_another_option(client, admin_headers, seeded):
    other = await shipping_option("Other", requirements={"min_subtotal": 100})
    theirs = await ShippingOptionRequirement.get(shipping_option_id=other.id)
    option = await create(client, admin_headers)
    for requirement_id in ("sor_missing", theirs.id):
        r = await update(client, admin_headers, option["id"],
                         requirements=[{"id": requirement_id, "type": "min_subtotal", "amount": 5}])
        assert (r.status_code, r.json()) == (400, {
            "type": "invalid_data",
            "message": f"Shipping option requirement with id {requirement_id} does not exist",
        })
    assert (await ShippingOptionRequirement.get(id=theirs.id)).shipping_option_id == other.id


@pytest.mark.parametrize("body,message", [
    ({"requirements": [{"type": "weight", "amount": 5}]}, "Requirement type must be one of min_subtotal, max_subtotal"),
    ({"requirements": [{"type": "min_subtotal", "amount": 5}, {"type": "min_subtotal", "amount": 6}]},
     "Only one requirement of each type is allowed"),
    ({"requirements": [{"type": "max_subtotal", "amount": 5}, {"type": "min_subtotal", "amount": 6}]},
     "Max. subtotal must be greater than Min. subtotal"),
    ({"price_type": "calculated"}, "The fulfillment provider cannot calculate prices for this option"),
    ({"amount": None}, "amount must be an integer number"),
    ({"name": None}, "name must be a string"),
    ({"region_id": "reg_other"}, "property region_id should not exist"),
    ({"is_return": True}, "property is_return should not exist"),
    ({"data": {}}, "property data should not exist"),
])
async def test_update_refuses_invalid_changes_and_keeps_the_option(client, admin_headers, seeded, body, message):
    na = await option_id("NA Flat Rate")
    r = await update(client, admin_headers, na, **body)
    assert (r.status_code, r.json()) == (400, {"type": "invalid_data", "message": message})
    option = await ShippingOption.get(id=na)
    assert (option.amount, option.price_type, option.name) == (1000, "flat_rate", "NA Flat Rate")
    assert await ShippingOptionRequirement.all().count() == 0


async def test_an_amount_sent_for_a_calculated_option_is_ignored(client, admin_headers, seeded):
    # The demo seed may hold `calculated` options; no provider here can price them.
    calculated = await shipping_option("Carrier rates", amount=None, price_type="calculated")
    r = await update(client, admin_headers, calculated.id, amount=700, price_type="calculated", name="Rates")
    assert r.status_code == 200, r.text
    option = r.json()["shipping_option"]
    assert (option["name"], option["price_type"], option["amount"]) == ("Rates", "calculated", None)
    r = await update(client, admin_headers, calculated.id, price_type="flat_rate")
    assert r.json()["message"] == "Shipping options of type `flat_rate` must have an `amount`"
    r = await update(client, admin_headers, calculated.id, price_type="flat_rate", amount=700)
    assert (r.json()["shipping_option"]["price_type"], r.json()["shipping_option"]["amount"]) == ("flat_rate", 700)


async def test_update_of_an_unknown_option_is_a_404(client, admin_headers, seeded):
    r = await update(client, admin_headers, "so_missing", name="x", requirements=[])
    assert (r.status_code, r.json()["type"]) == (404, "not_found")


# ---------------------------------------------------------------- delete


async def test_delete_hides_the_option_from_the_admin_and_the_store(client, admin_headers, seeded):
    na = await option_id("NA Flat Rate")
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    r = await client.delete(f"/admin/shipping-options/{na}", headers=admin_headers)
    assert (r.status_code, r.json()) == (200, {"id": na, "object": "shipping-option", "deleted": True})
    assert (await ShippingOption.get(id=na)).deleted_at is not None  # soft
    listed = (await client.get("/admin/shipping-options", headers=admin_headers)).json()
    assert na not in {o["id"] for o in listed["shipping_options"]} and listed["count"] == 3
    assert await cart_option_names(client, cart) == set()
    r = await client.post(f"/store/carts/{cart['id']}/shipping-methods", json={"option_id": na})
    assert r.status_code == 404


async def test_deleting_an_unknown_or_deleted_option_succeeds(client, admin_headers, seeded):
    na = await option_id("NA Flat Rate")
    for option in (na, na, "so_missing"):
        r = await client.delete(f"/admin/shipping-options/{option}", headers=admin_headers)
        assert (r.status_code, r.json()) == (200, {"id": option, "object": "shipping-option", "deleted": True})

"""Admin regions: `/admin/regions`, their countries, providers and fulfillment options (Medusa's
test `admin/region.js`)."""

from datetime import datetime, timezone

import pytest

from models import Country, Currency, FulfillmentProvider, PaymentProvider, Region, Store
from services import fulfillment
from tests.cart_factories import new_cart
from tests.conftest import count_queries

REGION_COLUMNS = {
    "id", "name", "currency_code", "tax_rate", "tax_code", "gift_cards_taxable", "automatic_taxes",
    "tax_provider_id", "metadata", "includes_tax", "created_at", "updated_at", "deleted_at",
}
RELATIONS = {"countries", "payment_providers", "fulfillment_providers", "currency"}
MANUAL = [{"id": "manual", "is_installed": True}]
MANUAL_OPTIONS = [{"id": "manual-fulfillment"}, {"id": "manual-fulfillment-return", "is_return": True}]


@pytest.fixture
async def store_currencies():
    """The store sells in usd (its default) and eur."""
    store = await Store.first()
    await store.currencies.add(await Currency.get(code="eur"))


def body(**changes) -> dict:
    return {"name": "Europe", "currency_code": "EUR", "tax_rate": 20, "payment_providers": ["manual"],
            "fulfillment_providers": ["manual"], "countries": ["DE", "fr"], **changes}


async def create(client, headers, **changes) -> dict:
    r = await client.post("/admin/regions", json=body(**changes), headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["region"]


async def region_of(code: str) -> str | None:
    return (await Country.get(iso_2=code)).region_id


def codes(region: dict) -> list[str]:
    return sorted(c["iso_2"] for c in region["countries"])


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/regions"),
    ("POST", "/admin/regions"),
    ("GET", "/admin/regions/reg_1"),
    ("DELETE", "/admin/regions/reg_1"),
    ("POST", "/admin/regions/reg_1/countries"),
    ("DELETE", "/admin/regions/reg_1/payment-providers/manual"),
    ("GET", "/admin/regions/reg_1/fulfillment-options"),
])
async def test_every_route_needs_a_signed_in_user(client, method, path):
    await Region.create(id="reg_1", name="EU", currency_code="usd")
    r = await client.request(method, path, json={} if method == "POST" else None)
    assert r.status_code == 401 and r.json()["type"] == "unauthorized"
    assert await Region.filter(id="reg_1", deleted_at=None).exists()


# ---------------------------------------------------------------- the whole story


async def test_a_region_is_created_listed_read_changed_and_deleted(client, admin_headers, store_currencies):
    # Given a region created with two countries and the manual providers
    r = await client.post("/admin/regions", json=body(tax_code="VAT", metadata={"a": 1}), headers=admin_headers)
    assert r.status_code == 200, r.text
    region = r.json()["region"]
    assert set(region) == REGION_COLUMNS | RELATIONS
    assert region["id"].startswith("reg_")
    assert (region["name"], region["currency_code"], region["tax_rate"], region["tax_code"]) == (
        "Europe", "eur", 20, "VAT")
    assert (region["automatic_taxes"], region["gift_cards_taxable"], region["tax_provider_id"]) == (True, True, None)
    assert region["metadata"] == {"a": 1} and region["deleted_at"] is None
    assert codes(region) == ["de", "fr"]
    assert region["payment_providers"] == MANUAL and region["fulfillment_providers"] == MANUAL
    assert region["currency"]["code"] == "eur"
    region_id = region["id"]

    # it is listed and read
    listed = (await client.get("/admin/regions", headers=admin_headers)).json()
    assert (listed["count"], listed["offset"], listed["limit"]) == (1, 0, 50)
    assert listed["regions"] == [region]
    r = await client.get(f"/admin/regions/{region_id}", headers=admin_headers)
    assert r.status_code == 200 and r.json()["region"] == region

    # an update changes the columns given, merges metadata and replaces the countries
    r = await client.post(f"/admin/regions/{region_id}", headers=admin_headers, json={
        "name": "EU", "tax_rate": 19.5, "tax_code": None, "automatic_taxes": False, "gift_cards_taxable": False,
        "tax_provider_id": "system", "countries": ["fr", "IT"], "metadata": {"a": "", "b": 2},
    })
    assert r.status_code == 200, r.text
    updated = r.json()["region"]
    assert (updated["name"], updated["tax_rate"], updated["tax_code"], updated["tax_provider_id"]) == (
        "EU", 19.5, None, "system")
    assert (updated["automatic_taxes"], updated["gift_cards_taxable"]) == (False, False)
    assert updated["metadata"] == {"b": 2}
    assert codes(updated) == ["fr", "it"]
    assert await region_of("de") is None  # left out of the list: out of the region

    # countries are added and removed one at a time (any case)
    r = await client.post(f"/admin/regions/{region_id}/countries", json={"country_code": "DK"}, headers=admin_headers)
    assert r.status_code == 200 and codes(r.json()["region"]) == ["dk", "fr", "it"]
    r = await client.delete(f"/admin/regions/{region_id}/countries/IT", headers=admin_headers)
    assert r.status_code == 200 and codes(r.json()["region"]) == ["dk", "fr"]

    # providers are enabled and disabled
    r = await client.post(f"/admin/regions/{region_id}/payment-providers", json={"provider_id": "system"},
                          headers=admin_headers)
    assert r.status_code == 200 and [p["id"] for p in r.json()["region"]["payment_providers"]] == ["manual", "system"]
    r = await client.delete(f"/admin/regions/{region_id}/payment-providers/manual", headers=admin_headers)
    assert r.status_code == 200 and [p["id"] for p in r.json()["region"]["payment_providers"]] == ["system"]
    r = await client.delete(f"/admin/regions/{region_id}/fulfillment-providers/manual", headers=admin_headers)
    assert r.status_code == 200 and r.json()["region"]["fulfillment_providers"] == []
    r = await client.get(f"/admin/regions/{region_id}/fulfillment-options", headers=admin_headers)
    assert r.status_code == 200 and r.json() == {"fulfillment_options": []}
    r = await client.post(f"/admin/regions/{region_id}/fulfillment-providers", json={"provider_id": "manual"},
                          headers=admin_headers)
    assert r.status_code == 200 and r.json()["region"]["fulfillment_providers"] == MANUAL

    # the fulfillment options are the manual provider's
    r = await client.get(f"/admin/regions/{region_id}/fulfillment-options", headers=admin_headers)
    assert r.status_code == 200
    assert r.json() == {"fulfillment_options": [{"provider_id": "manual", "options": MANUAL_OPTIONS}]}

    # deleted: gone from the list and the get, its countries free
    r = await client.delete(f"/admin/regions/{region_id}", headers=admin_headers)
    assert r.status_code == 200 and r.json() == {"id": region_id, "object": "region", "deleted": True}
    assert (await client.get("/admin/regions", headers=admin_headers)).json()["count"] == 0
    r = await client.get(f"/admin/regions/{region_id}", headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == f"Region with {region_id} was not found"
    assert await Country.filter(region_id=region_id).count() == 0
    assert (await Region.get(id=region_id)).deleted_at is not None


# ---------------------------------------------------------------- create


@pytest.mark.parametrize("changes,status,message", [
    ({"name": None}, 400, "name must be a string"),
    ({"name": ""}, 400, "name should not be empty"),
    ({"name": "x" * 256}, 400, "name must be shorter than or equal to 255 characters"),
    ({"tax_rate": "20"}, 400, "tax_rate must be a number"),
    ({"tax_rate": 101}, 400, "The tax_rate must be between 0 and 100"),
    ({"tax_rate": -1}, 400, "The tax_rate must be between 0 and 100"),
    ({"countries": "de"}, 400, "countries must be an array"),
    ({"countries": ["de", 1]}, 400, "countries must be a string"),
    ({"countries": ["zz"]}, 400, "Invalid country code"),
    ({"countries": ["deu"]}, 400, "Invalid country code"),
    ({"currency_code": "gbp"}, 400, "Invalid currency code"),  # not one of the store's
    ({"currency_code": "xxxx"}, 400, "Invalid currency code"),
    ({"payment_providers": ["stripe"]}, 404, "Payment provider stripe was not found"),
    ({"fulfillment_providers": ["manual", "ups"]}, 404, "Fulfillment provider ups was not found"),
    ({"includes_tax": "yes"}, 400, "includes_tax must be a boolean value"),
    ({"automatic_taxes": False}, 400, "property automatic_taxes should not exist"),
    ({"tax_provider_id": "system"}, 400, "property tax_provider_id should not exist"),
])
async def test_create_with_bad_input_is_refused_and_writes_nothing(client, admin_headers, store_currencies,
                                                                    changes, status, message):
    r = await client.post("/admin/regions", json=body(**changes), headers=admin_headers)
    assert r.status_code == status, r.text
    assert message in r.json()["message"]
    assert await Region.all().count() == 0
    assert await Country.filter(region_id__not_isnull=True).count() == 0


@pytest.mark.parametrize("missing", ["name", "currency_code", "tax_rate", "payment_providers",
                                     "fulfillment_providers", "countries"])
async def test_create_needs_every_field_medusa_requires(client, admin_headers, store_currencies, missing):
    payload = body()
    del payload[missing]
    r = await client.post("/admin/regions", json=payload, headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == f"{missing} should not be empty"


async def test_create_with_empty_lists_makes_a_region_without_countries_or_providers(client, admin_headers):
    region = await create(client, admin_headers, currency_code="usd", countries=[], payment_providers=[],
                          fulfillment_providers=[])
    assert region["countries"] == region["payment_providers"] == region["fulfillment_providers"] == []


async def test_a_country_of_another_region_is_refused_with_medusas_duplicate_error(
    client, admin_headers, store_currencies,
):
    usa = await create(client, admin_headers, name="NA", currency_code="usd", countries=["us"])
    other = await create(client, admin_headers, countries=["de"])
    expected = f"United States already exists in region {usa['id']}"
    attempts = [
        client.post("/admin/regions", json=body(countries=["fr", "us"]), headers=admin_headers),
        client.post(f"/admin/regions/{other['id']}", json={"countries": ["de", "US"], "name": "Changed"},
                    headers=admin_headers),
        client.post(f"/admin/regions/{other['id']}/countries", json={"country_code": "us"}, headers=admin_headers),
    ]
    for attempt in attempts:
        r = await attempt
        assert r.status_code == 422, r.text
        assert r.json()["type"] == "duplicate_error" and r.json()["message"] == expected
    # nothing of the refused requests was kept
    assert await Region.filter(deleted_at=None).count() == 2
    assert await region_of("us") == usa["id"] and await region_of("de") == other["id"]
    assert await region_of("fr") is None
    assert (await Region.get(id=other["id"])).name == "Europe"


async def test_a_deleted_regions_countries_can_be_used_again_at_once(client, admin_headers, store_currencies):
    first = await create(client, admin_headers)
    assert (await client.delete(f"/admin/regions/{first['id']}", headers=admin_headers)).status_code == 200
    second = await create(client, admin_headers, name="Europe again")
    assert codes(second) == ["de", "fr"]


# ---------------------------------------------------------------- list and get


async def test_list_finds_by_name_orders_by_any_column_and_pages(client, admin_headers, store_currencies):
    await create(client, admin_headers, name="United States", currency_code="usd", countries=["us"])
    await create(client, admin_headers, name="United Kingdom", countries=["gb"])
    await create(client, admin_headers, name="Germany", countries=["de"])
    r = await client.get("/admin/regions?q=united&order=currency_code", headers=admin_headers)
    assert r.status_code == 200
    assert [x["name"] for x in r.json()["regions"]] == ["United Kingdom", "United States"]
    page = (await client.get("/admin/regions?limit=2&order=name", headers=admin_headers)).json()
    assert [x["name"] for x in page["regions"]] == ["Germany", "United Kingdom"] and page["count"] == 3
    # the dashboard loads every region at once
    assert (await client.get("/admin/regions?limit=1000", headers=admin_headers)).json()["limit"] == 1000
    r = await client.get("/admin/regions?expand=currency&fields=name", headers=admin_headers)
    assert set(r.json()["regions"][0]) == {"id", "name", "created_at", "currency"}


async def test_list_compares_dates_and_shows_deleted_regions_only_when_asked(client, admin_headers, store_currencies):
    kept = await create(client, admin_headers, name="Kept", countries=[])
    gone = await create(client, admin_headers, name="Gone", countries=[])
    await client.delete(f"/admin/regions/{gone['id']}", headers=admin_headers)
    r = await client.get("/admin/regions?updated_at[gt]=2005-10-10", headers=admin_headers)
    assert [x["id"] for x in r.json()["regions"]] == [kept["id"]]
    r = await client.get("/admin/regions?created_at[lt]=2005-10-10", headers=admin_headers)
    assert r.json()["regions"] == []
    r = await client.get("/admin/regions?deleted_at[gt]=2005-10-10", headers=admin_headers)
    assert [x["id"] for x in r.json()["regions"]] == [gone["id"]]


@pytest.mark.parametrize("query,message", [
    ("expand=tax_rates", "Requested relations [tax_rates] are not valid"),
    ("order=metadata", "Order field metadata is not valid"),
    ("name=EU", "property name should not exist"),
])
async def test_list_refuses_unknown_relations_orders_and_filters(client, admin_headers, query, message):
    r = await client.get(f"/admin/regions?{query}", headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == message


async def test_list_runs_as_many_statements_for_twenty_regions_as_for_one(client, admin_headers):
    manual = await PaymentProvider.get(id="manual")
    shipping = await FulfillmentProvider.get(id="manual")
    countries = await Country.all().order_by("id").limit(20)
    for i, country in enumerate(countries):
        region = await Region.create(name=f"R{i}", currency_code="usd")
        await region.payment_providers.add(manual)
        await region.fulfillment_providers.add(shipping)
        country.region_id = region.id
        await country.save(update_fields=["region_id"])
    async with count_queries() as one:
        r1 = await client.get("/admin/regions?limit=1", headers=admin_headers)
    async with count_queries() as twenty:
        r20 = await client.get("/admin/regions?limit=20", headers=admin_headers)
    assert len(r1.json()["regions"]) == 1 and len(r20.json()["regions"]) == 20
    assert all(len(x["countries"]) == 1 and x["payment_providers"] == MANUAL for x in r20.json()["regions"])
    # The page, its count, countries, each kind of provider (link rows, then rows) and currencies,
    # plus the admin's sign-in check.
    assert len(one) == len(twenty) == 9, twenty


async def test_get_of_an_unknown_region_is_medusas_404(client, admin_headers):
    r = await client.get("/admin/regions/reg_missing", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Region with reg_missing was not found"}


# ---------------------------------------------------------------- update


@pytest.mark.parametrize("changes,status,message", [
    ({"name": None}, 400, "name must be a string"),
    ({"tax_rate": 100.5}, 400, "The tax_rate must be between 0 and 100"),
    ({"automatic_taxes": "yes"}, 400, "automatic_taxes must be a boolean value"),
    ({"currency_code": "jpy"}, 400, "Invalid currency code"),
    ({"tax_provider_id": "avalara"}, 404, "Tax provider avalara was not found"),
    ({"payment_providers": ["stripe"]}, 404, "Payment provider stripe was not found"),
    ({"countries": ["de", "zz"]}, 400, "Invalid country code"),
    ({"includes_tax": None}, 400, "includes_tax must be a boolean value"),
])
async def test_update_with_bad_input_is_refused_and_changes_nothing(client, admin_headers, store_currencies,
                                                                    changes, status, message):
    region = await create(client, admin_headers)
    r = await client.post(f"/admin/regions/{region['id']}", json={"name": "Changed", **changes},
                          headers=admin_headers)
    assert r.status_code == status, r.text
    assert message in r.json()["message"]
    after = (await client.get(f"/admin/regions/{region['id']}", headers=admin_headers)).json()["region"]
    assert after == region


async def test_update_with_empty_lists_removes_every_country_and_provider(client, admin_headers, store_currencies):
    region = await create(client, admin_headers)
    r = await client.post(f"/admin/regions/{region['id']}", headers=admin_headers,
                          json={"countries": [], "payment_providers": [], "fulfillment_providers": []})
    assert r.status_code == 200
    changed = r.json()["region"]
    assert changed["countries"] == changed["payment_providers"] == changed["fulfillment_providers"] == []
    assert await region_of("de") is None


async def test_update_of_an_unknown_or_deleted_region_is_a_404(client, admin_headers, store_currencies):
    region = await create(client, admin_headers)
    await client.delete(f"/admin/regions/{region['id']}", headers=admin_headers)
    for region_id in ("reg_missing", region["id"]):
        r = await client.post(f"/admin/regions/{region_id}", json={"name": "X"}, headers=admin_headers)
        assert r.status_code == 404 and r.json()["message"] == f"Region with {region_id} was not found"


# ---------------------------------------------------------------- delete


async def test_delete_is_idempotent(client, admin_headers, store_currencies):
    region = await create(client, admin_headers)
    for region_id in (region["id"], region["id"], "reg_missing"):
        r = await client.delete(f"/admin/regions/{region_id}", headers=admin_headers)
        assert r.status_code == 200 and r.json() == {"id": region_id, "object": "region", "deleted": True}


# ---------------------------------------------------------------- countries and providers


async def test_adding_a_country_twice_or_removing_one_not_in_the_region_changes_nothing(
    client, admin_headers, store_currencies,
):
    region = await create(client, admin_headers)
    before = (await Region.get(id=region["id"])).updated_at
    r = await client.post(f"/admin/regions/{region['id']}/countries", json={"country_code": "de"},
                          headers=admin_headers)
    assert r.status_code == 200 and codes(r.json()["region"]) == ["de", "fr"]
    for code in ("us", "zz"):
        r = await client.delete(f"/admin/regions/{region['id']}/countries/{code}", headers=admin_headers)
        assert r.status_code == 200 and codes(r.json()["region"]) == ["de", "fr"]
    assert (await Region.get(id=region["id"])).updated_at == before


@pytest.mark.parametrize("payload,message", [
    ({}, "country_code should not be empty"),
    ({"country_code": 1}, "country_code must be a string"),
    ({"country_code": "zz"}, "Invalid country code"),
])
async def test_adding_a_bad_country_code_is_a_400(client, admin_headers, store_currencies, payload, message):
    region = await create(client, admin_headers)
    r = await client.post(f"/admin/regions/{region['id']}/countries", json=payload, headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == message


async def test_provider_routes_are_idempotent_and_name_unknown_providers(client, admin_headers, store_currencies):
    region = await create(client, admin_headers)
    path = f"/admin/regions/{region['id']}"
    r = await client.post(f"{path}/payment-providers", json={"provider_id": "manual"}, headers=admin_headers)
    assert r.status_code == 200 and r.json()["region"]["payment_providers"] == MANUAL
    r = await client.delete(f"{path}/payment-providers/system", headers=admin_headers)
    assert r.status_code == 200 and r.json()["region"]["payment_providers"] == MANUAL
    r = await client.post(f"{path}/payment-providers", json={"provider_id": "stripe"}, headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == "Payment provider stripe was not found"
    r = await client.post(f"{path}/fulfillment-providers", json={"provider_id": "ups"}, headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == "Fulfillment provider ups was not found"
    r = await client.post("/admin/regions/reg_missing/payment-providers", json={"provider_id": "manual"},
                          headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == "Region with reg_missing was not found"


async def test_fulfillment_options_of_a_provider_not_registered_here_are_a_404(client, admin_headers):
    region = await Region.create(name="R", currency_code="usd")
    await region.fulfillment_providers.add(await FulfillmentProvider.create(id="webshipper"))
    assert not fulfillment.is_registered("webshipper")
    r = await client.get(f"/admin/regions/{region.id}/fulfillment-options", headers=admin_headers)
    assert r.status_code == 404
    assert r.json()["message"] == "Could not find a fulfillment provider with id: webshipper"
    r = await client.get("/admin/regions/reg_missing/fulfillment-options", headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == "Region with reg_missing was not found"


# ---------------------------------------------------------------- what carts see


async def test_a_cart_sees_a_removed_provider_and_a_changed_tax_rate_at_its_next_read(
    client, admin_headers, seeded,
):
    # Given a cart in the EU region (25 %), read once so this process remembers the region's parts
    eu = await Region.get(name="EU")
    cart = await new_cart(client, "EU", {"variant_t_shirt_s": 1})
    subtotal = cart["subtotal"]
    assert cart["tax_total"] == round(subtotal * 0.25)
    assert [p["id"] for p in cart["region"]["payment_providers"]] == ["manual"]

    # When the admin removes the payment provider, the cart's next answer shows it gone
    r = await client.delete(f"/admin/regions/{eu.id}/payment-providers/manual", headers=admin_headers)
    assert r.status_code == 200
    cart = (await client.get(f"/store/carts/{cart['id']}")).json()["cart"]
    assert cart["region"]["payment_providers"] == []

    # and when the admin lowers the rate, the next answer is taxed at it
    r = await client.post(f"/admin/regions/{eu.id}", json={"tax_rate": 10}, headers=admin_headers)
    assert r.status_code == 200
    cart = (await client.get(f"/store/carts/{cart['id']}")).json()["cart"]
    assert cart["region"]["tax_rate"] == 10 and cart["tax_total"] == round(subtotal * 0.10)


async def test_a_cart_sees_a_country_added_to_its_region(client, admin_headers, seeded):
    eu = await Region.get(name="EU")
    cart = await new_cart(client, "EU")
    assert "it" not in [c["iso_2"] for c in cart["region"]["countries"]]
    r = await client.post(f"/store/carts/{cart['id']}", json={"shipping_address": {"country_code": "it"}})
    assert r.status_code == 400
    r = await client.post(f"/admin/regions/{eu.id}/countries", json={"country_code": "it"}, headers=admin_headers)
    assert r.status_code == 200
    cart = (await client.get(f"/store/carts/{cart['id']}")).json()["cart"]
    assert "it" in [c["iso_2"] for c in cart["region"]["countries"]]
    r = await client.post(f"/store/carts/{cart['id']}", json={"shipping_address": {"country_code": "it"}})
    assert r.status_code == 200, r.text


async def test_every_change_bumps_the_regions_updated_at(client, admin_headers, store_currencies):
    region = await create(client, admin_headers)
    path = f"/admin/regions/{region['id']}"
    changes = [
        ("POST", path, {"countries": ["de"]}),
        ("POST", f"{path}/countries", {"country_code": "it"}),
        ("DELETE", f"{path}/countries/it", None),
        ("POST", f"{path}/payment-providers", {"provider_id": "system"}),
        ("DELETE", f"{path}/payment-providers/system", None),
        ("DELETE", f"{path}/fulfillment-providers/manual", None),
        ("POST", f"{path}/fulfillment-providers", {"provider_id": "manual"}),
        ("POST", path, {"tax_rate": 5}),
    ]
    before = datetime.fromisoformat(region["updated_at"])
    for method, url, payload in changes:
        r = await client.request(method, url, json=payload, headers=admin_headers)
        assert r.status_code == 200, r.text
        after = (await Region.get(id=region["id"])).updated_at
        assert after > before, (method, url)
        before = after
    assert before <= datetime.now(timezone.utc)

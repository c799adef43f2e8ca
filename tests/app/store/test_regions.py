"""Store regions: `GET /store/regions` and `GET /store/regions/{id}`."""

from datetime import datetime, timezone

import pytest

from models import Country, FulfillmentProvider, PaymentProvider, Region
from tests.conftest import count_queries

REGION_COLUMNS = {
    "id", "name", "currency_code", "tax_rate", "tax_code", "gift_cards_taxable", "automatic_taxes",
    "tax_provider_id", "metadata", "includes_tax", "created_at", "updated_at", "deleted_at",
}
DEFAULT_RELATIONS = {"countries", "payment_providers", "fulfillment_providers", "currency"}
COUNTRY_KEYS = {"id", "iso_2", "iso_3", "num_code", "name", "display_name", "region_id"}
CURRENCY_KEYS = {"code", "symbol", "symbol_native", "name", "includes_tax"}


@pytest.fixture
async def region_ids(seeded):
    """The seeded regions' real ids by name."""
    return {r.name: r.id for r in await Region.all()}


async def test_list_shows_both_seeded_regions_with_medusa_field_names_and_default_relations(client, region_ids):
    r = await client.get("/store/regions")
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"regions", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 100)
    by_name = {region["name"]: region for region in body["regions"]}
    assert set(by_name) == {"NA", "EU"}
    for region in body["regions"]:
        assert set(region) == REGION_COLUMNS | DEFAULT_RELATIONS
        assert "object" not in region and region["includes_tax"] is False
        assert region["id"] == region_ids[region["name"]] and region["id"].startswith("reg_")
        assert region["deleted_at"] is None
        assert region["payment_providers"] == [{"id": "manual", "is_installed": True}]
        assert region["fulfillment_providers"] == [{"id": "manual", "is_installed": True}]
        for country in region["countries"]:
            assert set(country) == COUNTRY_KEYS and country["region_id"] == region["id"]
        assert set(region["currency"]) == CURRENCY_KEYS
        assert region["currency"]["code"] == region["currency_code"]

    na, eu = by_name["NA"], by_name["EU"]
    assert na["currency_code"] == "usd" and na["tax_rate"] == 0
    assert eu["currency_code"] == "eur" and eu["tax_rate"] == 25
    assert eu["automatic_taxes"] is True and eu["gift_cards_taxable"] is True and eu["tax_code"] is None
    assert sorted(c["iso_2"] for c in na["countries"]) == ["ca", "us"]
    assert sorted(c["iso_2"] for c in eu["countries"]) == ["de", "dk", "fr"]
    germany = next(c for c in eu["countries"] if c["iso_2"] == "de")
    assert (germany["iso_3"], germany["num_code"], germany["name"], germany["display_name"]) == (
        "deu", 276, "GERMANY", "Germany"
    )
    assert eu["currency"]["symbol"] == "€" and na["currency"]["symbol"] == "$"


async def test_list_is_newest_first_by_default(client, region_ids):
    names = [r["name"] for r in (await client.get("/store/regions")).json()["regions"]]
    assert names == ["EU", "NA"]  # the seed creates NA first
    names = [r["name"] for r in (await client.get("/store/regions?order=name")).json()["regions"]]
    assert names == ["EU", "NA"]
    names = [r["name"] for r in (await client.get("/store/regions?order=-name")).json()["regions"]]
    assert names == ["NA", "EU"]


async def test_limit_and_offset_page_through_the_regions(client, region_ids):
    r = await client.get("/store/regions?limit=1&offset=1")
    assert r.status_code == 200
    body = r.json()
    assert (len(body["regions"]), body["count"], body["offset"], body["limit"]) == (1, 2, 1, 1)
    first = (await client.get("/store/regions?limit=1")).json()["regions"]
    assert len(first) == 1 and first[0]["id"] != body["regions"][0]["id"]
    beyond = (await client.get("/store/regions?limit=1&offset=5")).json()
    assert beyond["regions"] == [] and beyond["count"] == 2


async def test_expand_currency_loads_only_the_currency(client, region_ids):
    r = await client.get("/store/regions?expand=currency")
    assert r.status_code == 200
    for region in r.json()["regions"]:
        assert set(region) == REGION_COLUMNS | {"currency"}
        assert region["currency"]["code"] == region["currency_code"]


async def test_empty_expand_loads_no_relation(client, region_ids):
    for region in (await client.get("/store/regions?expand=")).json()["regions"]:
        assert set(region) == REGION_COLUMNS


async def test_fields_selects_columns_and_keeps_id_created_at_and_the_relations(client, region_ids):
    r = await client.get("/store/regions?fields=name")
    assert r.status_code == 200
    for region in r.json()["regions"]:
        assert set(region) == {"id", "name", "created_at"} | DEFAULT_RELATIONS
    r = await client.get(f"/store/regions/{region_ids['EU']}?fields=name,tax_rate&expand=currency")
    assert r.json()["region"] == {
        "id": region_ids["EU"], "name": "EU", "tax_rate": 25,
        "currency": r.json()["region"]["currency"],
    }


@pytest.mark.parametrize("query,message", [
    ("expand=x", "Requested relations [x] are not valid"),
    ("expand=currency,tax_rates", "Requested relations [tax_rates] are not valid"),
    ("q=europe", "property q should not exist"),
    ("order=nope", "Order field nope is not valid"),
    ("limit=abc", "limit must be a number conforming to the specified constraints"),
])
async def test_unknown_query_keys_relations_and_orders_are_a_400(client, region_ids, query, message):
    r = await client.get(f"/store/regions?{query}")
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_get_by_id_returns_the_region_with_its_default_relations(client, region_ids):
    r = await client.get(f"/store/regions/{region_ids['NA']}")
    assert r.status_code == 200
    region = r.json()["region"]
    assert set(r.json()) == {"region"}
    assert set(region) == REGION_COLUMNS | DEFAULT_RELATIONS
    assert region["id"] == region_ids["NA"] and region["name"] == "NA" and region["currency"]["code"] == "usd"
    assert sorted(c["iso_2"] for c in region["countries"]) == ["ca", "us"]


async def test_get_accepts_the_list_keys_like_medusa(client, region_ids):
    r = await client.get(f"/store/regions/{region_ids['NA']}?limit=5&offset=3&order=name")
    assert r.status_code == 200 and r.json()["region"]["id"] == region_ids["NA"]
    r = await client.get(f"/store/regions/{region_ids['NA']}?expand=nope")
    assert r.status_code == 400 and r.json()["message"] == "Requested relations [nope] are not valid"


async def test_unknown_region_id_is_a_404_with_medusas_message(client, region_ids):
    r = await client.get("/store/regions/invalid-region-id")
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Region with invalid-region-id was not found"}


async def test_a_soft_deleted_region_is_hidden_from_list_and_get(client, region_ids):
    await Region.filter(id=region_ids["EU"]).update(deleted_at=datetime.now(timezone.utc))
    body = (await client.get("/store/regions")).json()
    assert [r["name"] for r in body["regions"]] == ["NA"] and body["count"] == 1
    r = await client.get(f"/store/regions/{region_ids['EU']}")
    assert r.status_code == 404 and r.json()["message"] == f"Region with {region_ids['EU']} was not found"


async def test_created_at_comparison_filters_the_list(client, region_ids):
    await Region.filter(id=region_ids["NA"]).update(created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    older = (await client.get("/store/regions?created_at[lt]=2021-01-01")).json()
    assert [r["name"] for r in older["regions"]] == ["NA"] and older["count"] == 1
    newer = (await client.get("/store/regions?created_at[gt]=2021-01-01T00:00:00Z")).json()
    assert [r["name"] for r in newer["regions"]] == ["EU"]
    both = (await client.get("/store/regions?created_at[gte]=2019-12-31&created_at[lte]=2100-01-01")).json()
    assert both["count"] == 2
    r = await client.get("/store/regions?created_at[lt]=not-a-date")
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"
    r = await client.get("/store/regions?created_at[near]=2021-01-01")
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"


async def test_list_runs_as_many_statements_for_fifty_regions_as_for_one(client, region_ids):
    # Given fifty regions, each with a country, providers and a currency of its own
    countries = await Country.filter(region_id=None).order_by("id").limit(48)
    currencies = ["usd", "eur", "gbp", "dkk"]
    manual_pay, manual_ful = await PaymentProvider.get(id="manual"), await FulfillmentProvider.get(id="manual")
    for i, country in enumerate(countries):
        region = await Region.create(name=f"Region {i}", currency_code=currencies[i % 4], tax_rate=i)
        await region.payment_providers.add(manual_pay)
        await region.fulfillment_providers.add(manual_ful)
        country.region_id = region.id
        await country.save(update_fields=["region_id"])
    # When one page of one and one page of fifty are read
    async with count_queries() as one:
        r1 = await client.get("/store/regions?limit=1")
    async with count_queries() as fifty:
        r50 = await client.get("/store/regions?limit=50")
    # I expect the same statements, whatever the page size
    assert len(r1.json()["regions"]) == 1 and r1.json()["count"] == 50
    regions = r50.json()["regions"]
    assert len(regions) == 50 and r50.json()["count"] == 50
    assert all(r["countries"] and r["payment_providers"] and r["currency"] for r in regions)
    assert one and len(fifty) == len(one), (one, fifty)

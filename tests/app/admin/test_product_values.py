"""Product tags and types as the admin's filters and the storefront list them
(`/admin/product-tags`, `/admin/product-types`, `/store/product-tags`, `/store/product-types`)."""

from datetime import datetime, timedelta, timezone

import pytest

from models import DiscountCondition, DiscountRule, ProductTag, ProductType
from tests.conftest import count_queries

SHOWN = {"id", "value", "created_at", "updated_at"}
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


async def labels(model, *values: str) -> list:
    """Rows made a minute apart, in the order given."""
    rows = []
    for i, value in enumerate(values):
        row = await model.create(value=value)
        await model.filter(id=row.id).update(created_at=START + timedelta(minutes=i))
        rows.append(row)
    return rows


@pytest.mark.parametrize("path", ["/admin/product-tags", "/admin/product-types"])
async def test_the_admin_lists_need_a_signed_in_user(client, path):
    r = await client.get(path)
    assert r.status_code == 401 and r.json()["type"] == "unauthorized"


@pytest.mark.parametrize("model,path,key,limit", [
    (ProductTag, "/admin/product-tags", "product_tags", 10),
    (ProductType, "/admin/product-types", "product_types", 20),
    (ProductTag, "/store/product-tags", "product_tags", 20),
    (ProductType, "/store/product-types", "product_types", 20),
])
async def test_a_list_shows_live_values_newest_first_with_medusas_four_columns(
    client, admin_headers, model, path, key, limit,
):
    old, gone, new = await labels(model, "summer", "retired", "winter")
    await model.filter(id=gone.id).update(deleted_at=START)
    r = await client.get(path, headers=admin_headers)
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {key, "count", "offset", "limit"}
    assert [row["value"] for row in body[key]] == ["winter", "summer"]
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, limit)
    assert set(body[key][0]) == SHOWN


@pytest.mark.parametrize("path,key", [("/admin/product-tags", "product_tags"), ("/admin/product-types", "product_types")])
async def test_filters_narrow_the_list(client, admin_headers, path, key):
    model = ProductTag if key == "product_tags" else ProductType
    summer, winter, _ = await labels(model, "summer sale", "winter", "autumn")

    async def values(query: str) -> list[str]:
        r = await client.get(f"{path}?{query}", headers=admin_headers)
        assert r.status_code == 200, r.text
        return sorted(row["value"] for row in r.json()[key])

    assert await values("q=SALE") == ["summer sale"]
    assert await values("value[]=winter&value[]=autumn") == ["autumn", "winter"]
    assert await values(f"id={winter.id}") == ["winter"]
    assert await values("created_at[gt]=2026-01-01T00:00:30Z&order=value") == ["autumn", "winter"]
    assert await values("offset=1&limit=1&order=value") == ["summer sale"]


async def test_the_discount_condition_filter_lists_the_tags_it_names(client, admin_headers):
    summer, _ = await labels(ProductTag, "summer", "winter")
    rule = await DiscountRule.create(type="percentage", value=10, allocation="total")
    condition = await DiscountCondition.create(type="product_tags", operator="in", discount_rule=rule)
    await condition.product_tags.add(summer)
    r = await client.get(f"/admin/product-tags?discount_condition_id={condition.id}", headers=admin_headers)
    assert [t["value"] for t in r.json()["product_tags"]] == ["summer"] and r.json()["count"] == 1
    r = await client.get("/admin/product-tags?discount_condition_id=discon_unknown", headers=admin_headers)
    assert r.json()["product_tags"] == [] and r.json()["count"] == 0


@pytest.mark.parametrize("query,message", [
    ("expand=products", "property expand should not exist"),
    ("fields=value", "property fields should not exist"),
    ("colour=red", "property colour should not exist"),
    ("order=colour", "Order field colour is not valid"),
    ("limit=-1", "limit"),
])
async def test_a_bad_query_is_a_400(client, admin_headers, query, message):
    r = await client.get(f"/admin/product-tags?{query}", headers=admin_headers)
    assert r.status_code == 400, r.text
    assert r.json()["type"] == "invalid_data" and message in r.json()["message"]


async def test_a_list_runs_as_many_statements_for_twenty_tags_as_for_one(client, admin_headers):
    await labels(ProductTag, "one")
    async with count_queries() as one:
        assert (await client.get("/admin/product-tags", headers=admin_headers)).json()["count"] == 1
    await labels(ProductTag, *(f"tag-{i}" for i in range(19)))
    async with count_queries() as twenty:
        r = await client.get("/admin/product-tags?limit=50", headers=admin_headers)
        assert r.json()["count"] == 20
    assert len(twenty) == len(one)

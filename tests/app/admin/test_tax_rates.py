"""Admin tax rates: `/admin/tax-rates` and the batch routes that attach a rate to products, product
types and shipping options (Medusa's test `taxes/admin-tax-rates.js`)."""

from datetime import datetime, timezone

import pytest

from models import FulfillmentProvider, Product, ProductType, Region, ShippingOption, ShippingProfile, TaxRate
from services.regions.parts import region_parts
from tests.conftest import count_queries

DEFAULT_KEYS = {"id", "rate", "code", "name", "region_id", "created_at", "updated_at"}


async def region(name: str = "EU") -> Region:
    return await Region.create(name=name, currency_code="eur")


async def rate(region_: Region, name: str = "Reduced", **columns) -> TaxRate:
    columns.setdefault("code", name.lower())
    return await TaxRate.create(name=name, region_id=region_.id, **columns)


async def option(region_: Region, name: str = "Post") -> ShippingOption:
    profile = await ShippingProfile.filter(type="default").first()
    provider = await FulfillmentProvider.first()
    return await ShippingOption.create(name=name, region_id=region_.id, profile_id=profile.id,
                                       provider_id=provider.id, price_type="flat_rate", amount=500)


async def attached(rate_id: str, kind: str) -> set[str]:
    r = await TaxRate.get(id=rate_id).prefetch_related(kind)
    return {x.id for x in getattr(r, kind)}


async def updated_at(region_id: str) -> datetime:
    return (await Region.get(id=region_id)).updated_at


def batch(client, method: str, path: str, headers: dict, body: dict):
    return client.request(method, path, json=body, headers=headers)


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/tax-rates"),
    ("POST", "/admin/tax-rates"),
    ("GET", "/admin/tax-rates/txr_1"),
    ("POST", "/admin/tax-rates/txr_1"),
    ("DELETE", "/admin/tax-rates/txr_1"),
    ("POST", "/admin/tax-rates/txr_1/products/batch"),
    ("DELETE", "/admin/tax-rates/txr_1/shipping-options/batch"),
])
async def test_every_route_needs_a_signed_in_user(client, method, path):
    await rate(await region(), id="txr_1")
    r = await client.request(method, path, json={"products": []} if method != "GET" else None)
    assert r.status_code == 401 and r.json()["type"] == "unauthorized"
    assert await TaxRate.filter(id="txr_1").exists()


# ---------------------------------------------------------------- create


async def test_create_answers_200_with_a_txr_id_and_a_null_rate_when_none_is_given(client, admin_headers):
    eu = await region()
    r = await client.post("/admin/tax-rates", headers=admin_headers,
                          json={"code": "reduced", "name": "Reduced", "region_id": eu.id})
    assert r.status_code == 200, r.text
    created = r.json()["tax_rate"]
    assert set(created) == DEFAULT_KEYS
    assert created["id"].startswith("txr_") and created["rate"] is None
    assert (created["code"], created["name"], created["region_id"]) == ("reduced", "Reduced", eu.id)


async def test_create_attaches_the_rows_given_and_bumps_the_region(client, admin_headers):
    eu = await region()
    before = await updated_at(eu.id)
    product, kind, post = await Product.create(title="Book"), await ProductType.create(value="books"), await option(eu)
    r = await client.post("/admin/tax-rates?expand[]=products&expand[]=product_types&expand[]=shipping_options",
                          headers=admin_headers,
                          json={"code": "books", "name": "Books", "region_id": eu.id, "rate": 5.5,
                                "products": [product.id], "product_types": [kind.id], "shipping_options": [post.id]})
    assert r.status_code == 200, r.text
    created = r.json()["tax_rate"]
    assert created["rate"] == 5.5
    assert [p["id"] for p in created["products"]] == [product.id]
    assert [t["id"] for t in created["product_types"]] == [kind.id]
    assert [o["id"] for o in created["shipping_options"]] == [post.id]
    assert await updated_at(eu.id) > before  # carts' cached view of the region's rates is stale


@pytest.mark.parametrize("body,status,message", [
    ({"name": "R", "region_id": "reg_1"}, 400, "code should not be empty"),
    ({"code": "r", "region_id": "reg_1"}, 400, "name should not be empty"),
    ({"code": "r", "name": "R"}, 400, "region_id should not be empty"),
    ({"code": "r", "name": "R", "region_id": "reg_1", "rate": "5"}, 400, "rate must be a number"),
    ({"code": "r", "name": "R", "region_id": "reg_1", "rate": -1}, 400, "rate must not be less than 0"),
    ({"code": "r", "name": "R", "region_id": "reg_1", "rate": 101}, 400, "rate must not be greater than 100"),
    ({"code": "r", "name": "R", "region_id": "reg_1", "products": "prod_1"}, 400, "products must be an array"),
    ({"code": "r", "name": "R", "region_id": "reg_1", "other": 1}, 400, "property other should not exist"),
    ({"code": "r", "name": "R", "region_id": "reg_missing"}, 404, "Region with id: reg_missing was not found"),
    ({"code": "r", "name": "R", "region_id": "reg_1", "products": ["prod_missing"]}, 404,
     "Product with id: prod_missing was not found"),
    ({"code": "r", "name": "R", "region_id": "reg_1", "product_types": ["ptyp_missing"]}, 404,
     "Product type with id: ptyp_missing was not found"),
])
async def test_create_with_bad_input_is_refused_and_writes_nothing(client, admin_headers, body, status, message):
    await Region.create(id="reg_1", name="EU", currency_code="eur")
    r = await client.post("/admin/tax-rates", json=body, headers=admin_headers)
    assert r.status_code == status, r.text
    assert message in r.json()["message"]
    assert await TaxRate.all().count() == 0


# ---------------------------------------------------------------- list and get


async def test_list_filters_by_region_code_and_rate_comparisons(client, admin_headers):
    eu, na = await region("EU"), await region("NA")
    zero = await rate(eu, "Zero", rate=0)
    high = await rate(eu, "High", rate=85)
    other = await rate(na, "Other", rate=10)
    async def ids(query: str) -> list[str]:
        r = await client.get(f"/admin/tax-rates?{query}", headers=admin_headers)
        assert r.status_code == 200, r.text
        return sorted(x["id"] for x in r.json()["tax_rates"])
    assert await ids(f"region_id={eu.id}") == sorted([zero.id, high.id])
    assert await ids(f"region_id[]={eu.id}&region_id[]={na.id}") == sorted([zero.id, high.id, other.id])
    assert await ids("rate[gt]=80") == [high.id]
    assert await ids("rate=0") == [zero.id]  # Medusa drops a falsy filter
    assert await ids("code=other") == [other.id]
    assert await ids("q=HIG") == [high.id]
    body = (await client.get("/admin/tax-rates", headers=admin_headers)).json()
    assert (body["count"], body["offset"], body["limit"]) == (3, 0, 50)
    assert all(set(x) == DEFAULT_KEYS for x in body["tax_rates"])


async def test_list_shows_counts_and_expansions_when_asked(client, admin_headers):
    eu = await region()
    r1 = await rate(eu, "Books")
    await r1.products.add(await Product.create(title="A"), await Product.create(title="B"))
    await rate(eu, "None")
    r = await client.get("/admin/tax-rates?fields[]=id&fields[]=product_count&fields[]=shipping_option_count"
                         "&expand[]=products", headers=admin_headers)
    assert r.status_code == 200, r.text
    by_id = {x["id"]: x for x in r.json()["tax_rates"]}
    assert set(by_id[r1.id]) == {"id", "created_at", "product_count", "shipping_option_count", "products"}
    assert (by_id[r1.id]["product_count"], by_id[r1.id]["shipping_option_count"]) == (2, 0)
    assert len(by_id[r1.id]["products"]) == 2
    assert [x["product_count"] for x in by_id.values() if x["id"] != r1.id] == [0]


@pytest.mark.parametrize("query,message", [
    ("expand[]=region", "Requested relations [region] are not valid"),
    ("fields[]=secret", "Requested fields [secret] are not valid"),
    ("rate=high", "rate must be a number, or an object of lt, gt, lte, gte numbers"),
    ("rate[above]=5", "rate must be a number, or an object of lt, gt, lte, gte numbers"),
    ("other=1", "property other should not exist"),
])
async def test_list_with_a_bad_query_is_a_400(client, admin_headers, query, message):
    r = await client.get(f"/admin/tax-rates?{query}", headers=admin_headers)
    assert r.status_code == 400 and message in r.json()["message"]


async def test_list_runs_as_many_statements_for_one_rate_as_for_many(client, admin_headers):
    eu = await region()
    products = [await Product.create(title=f"P{i}") for i in range(3)]
    first = await rate(eu, "R0")
    await first.products.add(products[0])
    query = "/admin/tax-rates?expand[]=products&expand[]=product_types&fields[]=product_count&fields[]=name"
    async with count_queries() as one:
        r1 = await client.get(query, headers=admin_headers)
    for i in range(1, 20):
        made = await rate(eu, f"R{i}")
        await made.products.add(*products)
    async with count_queries() as many:
        r20 = await client.get(query, headers=admin_headers)
    assert len(r1.json()["tax_rates"]) == 1 and len(r20.json()["tax_rates"]) == 20
    assert sum(x["product_count"] for x in r20.json()["tax_rates"]) == 1 + 19 * 3
    assert len(one) == len(many), many


async def test_get_shows_a_rate_with_what_was_asked(client, admin_headers):
    eu = await region()
    made = await rate(eu, "Books", rate=7, metadata={"k": 1})
    r = await client.get(f"/admin/tax-rates/{made.id}?fields=id,rate,metadata", headers=admin_headers)
    assert r.status_code == 200
    assert r.json()["tax_rate"] == {"id": made.id, "rate": 7, "metadata": {"k": 1}}
    r = await client.get("/admin/tax-rates/txr_missing", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "TaxRate with txr_missing was not found"}


# ---------------------------------------------------------------- update and delete


async def test_update_changes_columns_and_replaces_the_lists_given(client, admin_headers):
    eu = await region()
    a, b = await Product.create(title="A"), await Product.create(title="B")
    kind = await ProductType.create(value="books")
    made = await rate(eu, "Books", rate=5)
    await made.products.add(a)
    await made.product_types.add(kind)
    before = await updated_at(eu.id)
    r = await client.post(f"/admin/tax-rates/{made.id}", headers=admin_headers,
                          json={"name": "Printed", "rate": 6.25, "products": [b.id]})
    assert r.status_code == 200, r.text
    shown = r.json()["tax_rate"]
    assert (shown["name"], shown["rate"], shown["code"]) == ("Printed", 6.25, "books")
    assert await attached(made.id, "products") == {b.id}
    assert await attached(made.id, "product_types") == {kind.id}  # not given: kept
    assert await updated_at(eu.id) > before
    r = await client.post(f"/admin/tax-rates/{made.id}", headers=admin_headers,
                          json={"rate": None, "product_types": []})
    assert r.json()["tax_rate"]["rate"] is None and await attached(made.id, "product_types") == set()


async def test_moving_a_rate_to_another_region_bumps_both_and_checks_its_shipping_options(client, admin_headers):
    eu, na = await region("EU"), await region("NA")
    made = await rate(eu, "Shipping")
    await made.shipping_options.add(await option(eu))
    r = await client.post(f"/admin/tax-rates/{made.id}", json={"region_id": na.id}, headers=admin_headers)
    assert r.status_code == 400 and r.json()["type"] == "not_allowed"
    assert (await TaxRate.get(id=made.id)).region_id == eu.id
    before = (await updated_at(eu.id), await updated_at(na.id))
    r = await client.post(f"/admin/tax-rates/{made.id}", json={"region_id": na.id, "shipping_options": []},
                          headers=admin_headers)
    assert r.status_code == 200 and r.json()["tax_rate"]["region_id"] == na.id
    assert await updated_at(eu.id) > before[0] and await updated_at(na.id) > before[1]


@pytest.mark.parametrize("body,message", [
    ({"name": None}, "name must be a string"),
    ({"code": ""}, "code should not be empty"),
    ({"rate": 1000}, "rate must not be greater than 100"),
])
async def test_update_with_bad_input_is_a_400(client, admin_headers, body, message):
    made = await rate(await region(), "Books", rate=5)
    r = await client.post(f"/admin/tax-rates/{made.id}", json=body, headers=admin_headers)
    assert r.status_code == 400 and message in r.json()["message"]
    assert (await TaxRate.get(id=made.id)).rate == 5


async def test_update_of_an_unknown_rate_is_a_404(client, admin_headers):
    r = await client.post("/admin/tax-rates/txr_missing", json={"name": "x"}, headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == "TaxRate with txr_missing was not found"


async def test_delete_removes_the_rate_and_its_attachments_and_is_idempotent(client, admin_headers):
    eu = await region()
    made = await rate(eu, "Books")
    product = await Product.create(title="A")
    await made.products.add(product)
    before = await updated_at(eu.id)
    for _ in range(2):
        r = await client.delete(f"/admin/tax-rates/{made.id}", headers=admin_headers)
        assert r.status_code == 200
        assert r.json() == {"id": made.id, "object": "tax-rate", "deleted": True}
    assert not await TaxRate.filter(id=made.id).exists()
    assert not await Product.filter(tax_rates__id=made.id).exists()
    assert await Product.filter(id=product.id).exists()
    assert await updated_at(eu.id) > before


# ---------------------------------------------------------------- batch routes


async def test_product_batches_add_and_remove_links(client, admin_headers):
    eu = await region()
    made = await rate(eu, "Books")
    a, b = await Product.create(title="A"), await Product.create(title="B")
    path = f"/admin/tax-rates/{made.id}/products/batch"
    r = await batch(client, "POST", path + "?expand[]=products", admin_headers, {"products": [a.id, b.id, a.id]})
    assert r.status_code == 200, r.text
    assert {p["id"] for p in r.json()["tax_rate"]["products"]} == {a.id, b.id}
    r = await batch(client, "POST", path, admin_headers, {"products": [a.id]})  # already there: kept once
    assert r.status_code == 200 and await attached(made.id, "products") == {a.id, b.id}
    before = await updated_at(eu.id)
    r = await batch(client, "DELETE", path, admin_headers, {"products": [a.id, "prod_unknown"]})
    assert r.status_code == 200 and set(r.json()["tax_rate"]) == DEFAULT_KEYS
    assert await attached(made.id, "products") == {b.id}
    assert await updated_at(eu.id) > before


async def test_a_cart_read_after_a_batch_sees_the_new_rate_at_once(client, admin_headers):
    eu = await region()
    made = await rate(eu, "Books", rate=5)
    book = await Product.create(title="Book")
    assert (await region_parts(eu)).overrides.products == {}  # remembered by this process
    r = await batch(client, "POST", f"/admin/tax-rates/{made.id}/products/batch", admin_headers,
                    {"products": [book.id]})
    assert r.status_code == 200
    parts = await region_parts(await Region.get(id=eu.id))  # as a cart read loads its region
    assert [line.rate_id for line in parts.overrides.products[book.id]] == [made.id]


async def test_product_type_batches_add_and_remove_links(client, admin_headers):
    made = await rate(await region(), "Books")
    kind = await ProductType.create(value="books")
    path = f"/admin/tax-rates/{made.id}/product-types/batch"
    r = await batch(client, "POST", path + "?fields[]=product_type_count", admin_headers, {"product_types": [kind.id]})
    assert r.status_code == 200 and r.json()["tax_rate"]["product_type_count"] == 1
    r = await batch(client, "DELETE", path, admin_headers, {"product_types": [kind.id]})
    assert r.status_code == 200 and await attached(made.id, "product_types") == set()


async def test_adding_an_unknown_product_is_a_404_and_attaches_nothing(client, admin_headers):
    made = await rate(await region(), "Books")
    known = await Product.create(title="A")
    r = await batch(client, "POST", f"/admin/tax-rates/{made.id}/products/batch", admin_headers,
                    {"products": [known.id, "prod_missing"]})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Product with id: prod_missing was not found"}
    assert await attached(made.id, "products") == set()
    await Product.filter(id=known.id).update(deleted_at=datetime.now(timezone.utc))
    r = await batch(client, "POST", f"/admin/tax-rates/{made.id}/products/batch", admin_headers,
                    {"products": [known.id]})
    assert r.status_code == 404  # a deleted product is not attached


async def test_a_batch_on_an_unknown_rate_is_a_404(client, admin_headers):
    product = await Product.create(title="A")
    r = await batch(client, "POST", "/admin/tax-rates/txr_missing/products/batch", admin_headers,
                    {"products": [product.id]})
    assert r.status_code == 404 and r.json()["message"] == "TaxRate with txr_missing was not found"


async def test_a_shipping_option_of_another_region_is_refused(client, admin_headers):
    eu, na = await region("EU"), await region("NA")
    made = await rate(eu, "Shipping")
    mine, foreign = await option(eu), await option(na)
    r = await batch(client, "POST", f"/admin/tax-rates/{made.id}/shipping-options/batch", admin_headers,
                    {"shipping_options": [mine.id, foreign.id]})
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed", "message": (
        "Shipping Option and Tax Rate must belong to the same Region to be associated. "
        f"Shipping Option with id: {foreign.id} belongs to Region with id: {na.id} and "
        f"Tax Rate with id: {made.id} belongs to Region with id: {eu.id}")}
    assert await attached(made.id, "shipping_options") == set()
    r = await batch(client, "POST", f"/admin/tax-rates/{made.id}/shipping-options/batch", admin_headers,
                    {"shipping_options": [mine.id]})
    assert r.status_code == 200 and await attached(made.id, "shipping_options") == {mine.id}


@pytest.mark.parametrize("body,message", [
    ({}, "products should not be empty"),
    ({"products": "prod_1"}, "products must be an array"),
    ({"products": [1]}, "products must be a string"),
    ({"product_types": []}, "property product_types should not exist"),
])
async def test_a_batch_with_bad_input_is_a_400(client, admin_headers, body, message):
    made = await rate(await region(), "Books")
    r = await batch(client, "POST", f"/admin/tax-rates/{made.id}/products/batch", admin_headers, body)
    assert r.status_code == 400 and message in r.json()["message"]

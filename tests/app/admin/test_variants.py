"""Variants across products, as the draft-order and claim screens look them up:
`GET /admin/variants` and `GET /admin/variants/{id}`."""

from datetime import datetime, timezone

import pytest

from models import Cart, Customer, CustomerGroup, MoneyAmount, PriceList, Product, ProductVariant, Region
from tests.conftest import count_queries

VARIANT_COLUMNS = {
    "id", "title", "product_id", "sku", "barcode", "ean", "upc", "inventory_quantity", "allow_backorder",
    "manage_inventory", "hs_code", "origin_country", "mid_code", "material", "weight", "length", "height",
    "width", "metadata", "created_at", "updated_at", "deleted_at",
}
PRICE_KEYS = {
    "original_price", "calculated_price", "original_price_incl_tax", "calculated_price_incl_tax",
    "original_tax", "calculated_tax", "tax_rates",
}
CAP = "variant_cap_black"  # usd 1500 in the demo store


@pytest.fixture
async def admin_get(client, admin_headers, seeded):
    async def get(url: str):
        r = await client.get(url, headers=admin_headers)
        assert r.status_code == 200, r.text
        return r.json()

    return get


def ids(body: dict) -> set[str]:
    return {v["id"] for v in body["variants"]}


async def region(name: str) -> str:
    return (await Region.get(name=name)).id


async def test_every_route_needs_a_signed_in_user(client, seeded):
    for path in ("/admin/variants", "/admin/variants/variant_t_shirt_s"):
        r = await client.get(path)
        assert r.status_code == 401 and r.json() == {"type": "unauthorized", "message": "Unauthorized"}


async def test_the_list_shows_twenty_variants_with_product_prices_and_options(admin_get):
    body = await admin_get("/admin/variants")
    total = await ProductVariant.filter(deleted_at=None).count()
    assert set(body) == {"variants", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (total, 0, 20)
    assert len(body["variants"]) == min(total, 20)
    shirt = next(v for v in (await admin_get("/admin/variants?id=variant_t_shirt_s"))["variants"])
    assert set(shirt) == VARIANT_COLUMNS | PRICE_KEYS | {"product", "prices", "options"}
    assert shirt["product"]["id"] == "prod_t_shirt" and shirt["product"]["title"] == "Medusa T-Shirt"
    assert {(p["currency_code"], p["amount"]) for p in shirt["prices"]} == {("usd", 2000), ("eur", 1800)}
    assert shirt["calculated_price"] is None and shirt["original_price"] is None
    assert [o["value"] for o in shirt["options"]] == ["S"]


async def test_limit_offset_and_order_page_through_the_variants(admin_get):
    first = await admin_get("/admin/variants?order=sku&limit=2")
    second = await admin_get("/admin/variants?order=sku&limit=2&offset=2")
    skus = sorted(await ProductVariant.filter(deleted_at=None).values_list("sku", flat=True))
    assert [v["sku"] for v in first["variants"] + second["variants"]] == skus[:4]
    assert (await admin_get("/admin/variants?limit=500"))["limit"] == 100


async def test_q_searches_variant_titles_skus_and_product_titles(admin_get):
    assert ids(await admin_get("/admin/variants?q=t-shirt-m")) == {"variant_t_shirt_m"}
    shirts = set(await ProductVariant.filter(product_id="prod_t_shirt").values_list("id", flat=True))
    assert ids(await admin_get("/admin/variants?q=medusa%20t-shirt&limit=100")) == shirts


async def test_id_title_and_flag_filters(admin_get):
    assert ids(await admin_get("/admin/variants?id[]=variant_t_shirt_s,variant_t_shirt_l")) == {
        "variant_t_shirt_s", "variant_t_shirt_l",
    }
    by_title = await admin_get("/admin/variants?title=S&limit=100")
    assert by_title["variants"] and all(v["title"] == "S" for v in by_title["variants"])
    await ProductVariant.filter(id=CAP).update(allow_backorder=True, manage_inventory=False)
    assert ids(await admin_get("/admin/variants?allow_backorder=true")) == {CAP}
    assert ids(await admin_get("/admin/variants?manage_inventory=false")) == {CAP}


async def test_inventory_quantity_takes_a_number_or_comparisons(admin_get):
    await ProductVariant.filter(id=CAP).update(inventory_quantity=3)
    await ProductVariant.filter(id="variant_mug_white").update(inventory_quantity=7)
    assert ids(await admin_get("/admin/variants?inventory_quantity=3")) == {CAP}
    assert ids(await admin_get("/admin/variants?inventory_quantity[lt]=10")) == {CAP, "variant_mug_white"}
    assert ids(await admin_get("/admin/variants?inventory_quantity[gt]=3&inventory_quantity[lte]=7")) == {
        "variant_mug_white",
    }


async def test_deleted_variants_and_variants_of_deleted_products_are_hidden(admin_get, client, admin_headers):
    moment = datetime.now(timezone.utc)
    await ProductVariant.filter(id="variant_t_shirt_s").update(deleted_at=moment)
    await Product.filter(id="prod_mug").update(deleted_at=moment)
    listed = ids(await admin_get("/admin/variants?limit=100"))
    assert "variant_t_shirt_s" not in listed and not listed & {"variant_mug_white"}
    for variant_id in ("variant_t_shirt_s", "variant_mug_white", "variant_nope"):
        r = await client.get(f"/admin/variants/{variant_id}", headers=admin_headers)
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"Variant with id: {variant_id} was not found"}


async def test_a_region_prices_the_variants_with_its_taxes(admin_get):
    eu = await admin_get(f"/admin/variants?id=variant_t_shirt_s&region_id={await region('EU')}")
    shirt = eu["variants"][0]
    assert (shirt["original_price"], shirt["calculated_price"]) == (1800, 1800)
    assert shirt["calculated_tax"] == 450 and shirt["calculated_price_incl_tax"] == 2250
    assert {p["currency_code"] for p in shirt["prices"]} == {"eur"}
    usd = (await admin_get("/admin/variants?id=variant_t_shirt_s&currency_code=USD"))["variants"][0]
    assert (usd["calculated_price"], usd["tax_rates"]) == (2000, None)


async def test_a_carts_region_wins_and_a_customers_price_lists_apply(admin_get, client, admin_headers):
    cart = await Cart.create(region_id=await region("EU"))
    body = await admin_get(f"/admin/variants?id={CAP}&cart_id={cart.id}&currency_code=usd")
    assert {p["currency_code"] for p in body["variants"][0]["prices"]} == {"eur"}
    r = await client.get(f"/admin/variants?cart_id=cart_nope&id={CAP}", headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == "Cart with cart_nope was not found"
    vip = await CustomerGroup.create(name="VIP")
    sale = await PriceList.create(name="VIP sale", type="sale", status="active")
    await sale.customer_groups.add(vip)
    await MoneyAmount.create(variant_id=CAP, currency_code="usd", amount=1200, price_list_id=sale.id)
    member = await Customer.create(email="vip@example.com")
    await member.groups.add(vip)
    url = f"/admin/variants?id={CAP}&currency_code=usd"
    guest = (await admin_get(url))["variants"][0]
    priced = (await admin_get(f"{url}&customer_id={member.id}"))["variants"][0]
    assert (guest["calculated_price"], priced["calculated_price"]) == (1500, 1200)
    assert priced["calculated_price_type"] == "sale" and priced["original_price"] == 1500
    assert next(p for p in priced["prices"] if p["price_list_id"])["price_list"]["id"] == sale.id


async def test_get_shows_one_variant_with_base_prices_only(admin_get):
    sale = await PriceList.create(name="Summer", type="sale", status="active")
    await MoneyAmount.create(variant_id=CAP, currency_code="usd", amount=1000, price_list_id=sale.id)
    variant = (await admin_get(f"/admin/variants/{CAP}"))["variant"]
    assert set(variant) == VARIANT_COLUMNS | PRICE_KEYS | {"product", "prices", "options"}
    assert variant["prices"] and all(p["price_list_id"] is None for p in variant["prices"])
    assert variant["calculated_price"] is None
    chosen = (await admin_get(f"/admin/variants/{CAP}?expand=product&fields=sku,variant_rank"))["variant"]
    assert set(chosen) == {"id", "sku", "variant_rank", "product"}


async def test_inventory_is_not_a_route_without_the_inventory_modules(client, admin_headers, seeded):
    r = await client.get(f"/admin/variants/{CAP}/inventory", headers=admin_headers)
    assert r.status_code == 404


@pytest.mark.parametrize("query,message", [
    ("colour=red", "property colour should not exist"),
    ("inventory_quantity=many", "inventory_quantity must be a number conforming to the specified constraints"),
    ("inventory_quantity[about]=3", "property about should not exist"),
    ("inventory_quantity=2147483648", "inventory_quantity must not be greater than 2147483647"),
    ("inventory_quantity[lt]=-2147483649", "inventory_quantity[lt] must not be less than -2147483648"),
    ("allow_backorder=perhaps", "allow_backorder must be a boolean value"),
    ("expand=customer", "Requested relations [customer] are not valid"),
    ("order=password", "Order field password is not valid"),
])
async def test_bad_queries_are_a_400(client, admin_headers, seeded, query, message):
    r = await client.get(f"/admin/variants?{query}", headers=admin_headers)
    assert r.status_code == 400, r.text
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_an_unknown_region_is_a_404(client, admin_headers, seeded):
    r = await client.get("/admin/variants?region_id=reg_nope", headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == "Region with reg_nope was not found"


async def test_the_list_runs_as_many_statements_for_twenty_variants_as_for_one(client, admin_headers, seeded):
    sale = await PriceList.create(name="Summer", type="sale", status="active")
    for variant_id in await ProductVariant.all().values_list("id", flat=True):
        await MoneyAmount.create(variant_id=variant_id, currency_code="eur", amount=100, price_list_id=sale.id)
    url = f"/admin/variants?region_id={await region('EU')}&order=sku&limit="
    await client.get(url + "1", headers=admin_headers)  # the admin's user is now read
    async with count_queries() as one:
        r1 = await client.get(url + "1", headers=admin_headers)
    async with count_queries() as many:
        r20 = await client.get(url + "20", headers=admin_headers)
    assert len(r1.json()["variants"]) == 1 and len(r20.json()["variants"]) == 20
    assert one and len(many) == len(one), "\n".join(many)

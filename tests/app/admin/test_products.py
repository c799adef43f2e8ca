"""Admin product reads: `GET /admin/products` and `GET /admin/products/{id}`:
every status, soft-deleted products on request, variants with their base prices only."""

import re
from datetime import datetime, timezone

import pytest

from models import (
    DiscountCondition, DiscountRule, Image, MoneyAmount, Product, ProductCategory, ProductTag, ProductType,
    ProductVariant, SalesChannel, ShippingProfile,
)
from services.store.defaults import get_store
from tests.catalog_factories import full_products, hide_seeded_products, without_counts
from tests.conftest import count_queries

PRODUCT_COLUMNS = {
    "id", "title", "subtitle", "status", "external_id", "description", "handle", "is_giftcard",
    "discountable", "thumbnail", "collection_id", "type_id", "weight", "length", "height", "width",
    "hs_code", "origin_country", "mid_code", "material", "created_at", "updated_at", "deleted_at",
    "metadata", "profile_id",
}
DEFAULT_RELATIONS = {
    "variants", "profiles", "images", "options", "tags", "type", "collection", "sales_channels", "categories",
}
VARIANT_COLUMNS = {
    "id", "title", "product_id", "sku", "barcode", "ean", "upc", "variant_rank", "inventory_quantity",
    "allow_backorder", "manage_inventory", "hs_code", "origin_country", "mid_code", "material",
    "weight", "length", "height", "width", "metadata", "created_at", "updated_at", "deleted_at",
}
PRICE_KEYS = {
    "original_price", "calculated_price", "original_price_incl_tax", "calculated_price_incl_tax",
    "original_tax", "calculated_tax", "tax_rates",
}
SEEDED_IDS = {
    "prod_t_shirt", "prod_sweatshirt", "prod_sweatpants", "prod_shorts", "prod_hoodie", "prod_cap",
    "prod_mug", "prod_tote_bag", "prod_socks", "prod_coffee",
}
STATUS_MESSAGE = "each value in status must be one of the following values: draft, proposed, published, rejected"


def ids(body: dict) -> set[str]:
    return {p["id"] for p in body["products"]}


@pytest.fixture
async def admin_get(client, admin_headers, seeded):
    async def get(url: str):
        r = await client.get(url, headers=admin_headers)
        assert r.status_code == 200, r.text
        return r.json()

    return get


# ---------------------------------------------------------------- the list and its shape


async def test_list_shows_every_product_with_the_default_relations_and_limit_50(admin_get):
    body = await admin_get("/admin/products")
    assert set(body) == {"products", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (10, 0, 50)
    assert ids(body) == SEEDED_IDS
    store = await get_store()
    for product in body["products"]:
        assert set(product) == PRODUCT_COLUMNS | DEFAULT_RELATIONS | {"profile"}
        assert product["profile"]["id"] == product["profile_id"] == product["profiles"][-1]["id"]
        assert [c["id"] for c in product["sales_channels"]] == [store.default_sales_channel_id]
        for v in product["variants"]:
            assert set(v) == VARIANT_COLUMNS | {"options", "prices"} | PRICE_KEYS


async def test_drafts_and_every_other_status_are_listed_and_can_be_filtered(admin_get):
    # Given one product in each status other than published
    for product_id, status in (("prod_mug", "draft"), ("prod_cap", "proposed"), ("prod_socks", "rejected")):
        await Product.filter(id=product_id).update(status=status)
    # Then all ten are listed, and the status filter picks by status
    assert (await admin_get("/admin/products"))["count"] == 10
    assert ids(await admin_get("/admin/products?status[]=draft")) == {"prod_mug"}
    assert ids(await admin_get("/admin/products?status[]=draft,proposed")) == {"prod_mug", "prod_cap"}
    body = await admin_get("/admin/products?status[]=published&status[]=rejected")
    assert ids(body) == SEEDED_IDS - {"prod_mug", "prod_cap"} and body["count"] == 8


async def test_an_unknown_status_is_a_400_with_medusas_message(client, admin_headers, seeded):
    r = await client.get("/admin/products?status[]=published,archived", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": STATUS_MESSAGE}


async def test_limit_and_offset_page_through_the_products(admin_get):
    body = await admin_get("/admin/products?limit=3&offset=9")
    assert (len(body["products"]), body["count"], body["offset"], body["limit"]) == (1, 10, 9, 3)
    pages = [ids(await admin_get(f"/admin/products?limit=4&offset={o}&order=title")) for o in (0, 4, 8)]
    assert set().union(*pages) == SEEDED_IDS and sum(map(len, pages)) == 10


async def test_soft_deleted_products_are_hidden_unless_deleted_at_is_asked_for(admin_get, client, admin_headers):
    await Product.filter(id="prod_socks").update(deleted_at=datetime(2024, 5, 1, tzinfo=timezone.utc))
    body = await admin_get("/admin/products")
    assert "prod_socks" not in ids(body) and body["count"] == 9
    assert ids(await admin_get("/admin/products?deleted_at[gt]=2024-01-01")) == {"prod_socks"}
    assert (await admin_get("/admin/products?deleted_at[gt]=2024-06-01"))["count"] == 0
    r = await client.get("/admin/products/prod_socks", headers=admin_headers)
    assert r.status_code == 404


# ---------------------------------------------------------------- prices


async def test_variants_show_base_prices_only_and_no_chosen_price(admin_get):
    # Given a price-list price beside the T-shirt's base prices
    await MoneyAmount.create(variant_id="variant_t_shirt_s", currency_code="usd", amount=1, price_list_id="pl_sale")
    product = (await admin_get("/admin/products/prod_t_shirt"))["product"]
    small = next(v for v in product["variants"] if v["id"] == "variant_t_shirt_s")
    # The back office sees the base prices (no price-list row) and nothing chosen or taxed
    assert {p["currency_code"] for p in small["prices"]} == {"usd", "eur"}
    assert all(p["price_list_id"] is None and p["price_list"] is None for p in small["prices"])
    assert all(p["amount"] != 1 for p in small["prices"])
    for v in product["variants"]:
        assert {k: v[k] for k in PRICE_KEYS} == dict.fromkeys(PRICE_KEYS)
        assert "calculated_price_type" not in v


async def test_expanding_variants_without_prices_shows_no_prices(admin_get):
    product = (await admin_get("/admin/products/prod_t_shirt?expand=variants"))["product"]
    assert set(product) == PRODUCT_COLUMNS | {"variants"}
    assert all(set(v) == VARIANT_COLUMNS for v in product["variants"])


# ---------------------------------------------------------------- one product


async def test_get_by_id_returns_a_draft_with_every_default_relation(admin_get):
    # Given a draft T-shirt with an image, a tag and a type
    shirt = await Product.get(id="prod_t_shirt")
    await Product.filter(id=shirt.id).update(status="draft")
    await shirt.images.add(await Image.create(url="https://example.com/shirt.png"))
    await shirt.tags.add(tag := await ProductTag.create(value="cotton"))
    kind = await ProductType.create(value="apparel")
    await Product.filter(id=shirt.id).update(type_id=kind.id)

    body = await admin_get("/admin/products/prod_t_shirt")

    assert set(body) == {"product"}
    product = body["product"]
    assert set(product) == PRODUCT_COLUMNS | DEFAULT_RELATIONS | {"profile"}
    assert (product["status"], product["handle"], product["collection"]["id"]) == ("draft", "t-shirt", "pcol_summer")
    assert [i["url"] for i in product["images"]] == ["https://example.com/shirt.png"]
    assert [t["id"] for t in product["tags"]] == [tag.id] and product["type"]["value"] == "apparel"
    default_profile = await ShippingProfile.get(type="default")
    assert [p["id"] for p in product["profiles"]] == [default_profile.id] == [product["profile"]["id"]]
    assert [v["id"] for v in product["variants"]] == ["variant_t_shirt_s", "variant_t_shirt_m", "variant_t_shirt_l"]
    assert sorted(v["value"] for v in product["options"][0]["values"]) == ["L", "M", "S"]


async def test_fields_and_expand_choose_what_one_product_shows(admin_get):
    product = (await admin_get("/admin/products/prod_mug?fields=title&expand=collection"))["product"]
    assert product == {"id": "prod_mug", "title": "Medusa Mug", "collection": None}


async def test_unknown_product_is_a_404_with_medusas_message(client, admin_headers, seeded):
    r = await client.get("/admin/products/prod_nope", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Product with id: prod_nope was not found"}


async def test_reads_need_a_signed_in_admin(client, seeded):
    for url in ("/admin/products", "/admin/products/prod_mug"):
        r = await client.get(url)
        assert r.status_code == 401 and r.json() == {"type": "unauthorized", "message": "Unauthorized"}


@pytest.mark.parametrize("query,message", [
    ("fields=foo", "Requested fields [foo] are not valid"),
    ("expand=variants,customer", "Requested relations [customer] are not valid"),
    ("order=-password", "Order field password is not valid"),
    ("colour=red", "property colour should not exist"),
    ("category_id[]=pcat_1&include_category_children=perhaps", "include_category_children must be a boolean value"),
    ("is_giftcard=maybe", "is_giftcard must be a boolean value"),
    ("created_at[gt]=soon", "gt must be a date (ISO 8601) or unix seconds"),
])
async def test_unknown_fields_relations_orders_and_filters_are_a_400(client, admin_headers, seeded, query, message):
    r = await client.get(f"/admin/products?{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


# ---------------------------------------------------------------- filters and order


async def test_q_searches_titles_and_skus_and_lists_each_product_once(admin_get):
    await Product.filter(id="prod_sweatpants").update(status="draft")
    assert ids(await admin_get("/admin/products?q=sweat")) == {"prod_sweatshirt", "prod_sweatpants"}
    body = await admin_get("/admin/products?q=T-SHIRT-")  # three SKUs, one product
    assert [p["id"] for p in body["products"]] == ["prod_t_shirt"] and body["count"] == 1


async def test_q_finds_the_middle_of_a_variant_sku_in_any_case(admin_get):
    body = await admin_get("/admin/products?q=ag-blu")  # TOTE-BAG-BLUE
    assert [p["id"] for p in body["products"]] == ["prod_tote_bag"] and body["count"] == 1


async def test_q_finds_a_fragment_of_a_description_in_any_case(admin_get):
    body = await admin_get("/admin/products?q=DUCT%207%20FOR")  # "Reference product 7 for the …"
    assert [p["id"] for p in body["products"]] == ["prod_mug"] and body["count"] == 1


async def test_q_counts_every_match_past_the_page(admin_get):
    # Given two titles with "shirt", and four products in a collection whose title has "ssentia"
    body = await admin_get("/admin/products?q=SHIRT&limit=1&order=title")
    assert [p["id"] for p in body["products"]] == ["prod_sweatshirt"] and body["count"] == 2
    body = await admin_get("/admin/products?q=ssentia&limit=2&offset=1")
    assert len(body["products"]) == 2 and body["count"] == 4


async def test_id_collection_handle_title_and_giftcard_filters(admin_get):
    assert ids(await admin_get("/admin/products?id=prod_mug")) == {"prod_mug"}
    assert ids(await admin_get("/admin/products?id[]=prod_mug&id[]=prod_cap")) == {"prod_mug", "prod_cap"}
    summer = set(await Product.filter(collection_id="pcol_summer").values_list("id", flat=True))
    assert ids(await admin_get("/admin/products?collection_id[]=pcol_summer")) == summer
    assert ids(await admin_get("/admin/products?handle=cap")) == {"prod_cap"}
    assert ids(await admin_get("/admin/products?title=Medusa%20Mug")) == {"prod_mug"}
    await Product.filter(id="prod_coffee").update(is_giftcard=True)
    assert ids(await admin_get("/admin/products?is_giftcard=true")) == {"prod_coffee"}


async def test_tag_and_type_filters_take_ids(admin_get):
    cotton, summer = await ProductTag.create(value="cotton"), await ProductTag.create(value="summer")
    await (await Product.get(id="prod_t_shirt")).tags.add(cotton, summer)
    await (await Product.get(id="prod_cap")).tags.add(summer)
    body = await admin_get(f"/admin/products?tags[]={cotton.id},{summer.id}")
    assert ids(body) == {"prod_t_shirt", "prod_cap"} and body["count"] == 2 and len(body["products"]) == 2
    kind = await ProductType.create(value="drinkware")
    await Product.filter(id="prod_mug").update(type_id=kind.id)
    assert ids(await admin_get(f"/admin/products?type_id[]={kind.id}")) == {"prod_mug"}


async def test_sales_channel_filter_includes_products_outside_the_default_channel(admin_get):
    wholesale = await SalesChannel.create(name="Wholesale")
    bulk = await Product.create(title="Bulk beans", handle="bulk", status="draft")
    await bulk.sales_channels.add(wholesale)
    await (await Product.get(id="prod_coffee")).sales_channels.add(wholesale)
    assert ids(await admin_get(f"/admin/products?sales_channel_id[]={wholesale.id}")) == {bulk.id, "prod_coffee"}
    default = (await get_store()).default_sales_channel_id
    body = await admin_get(f"/admin/products?sales_channel_id[]={default},{wholesale.id}")
    assert ids(body) == SEEDED_IDS | {bulk.id} and body["count"] == 11 and len(body["products"]) == 11


async def test_price_list_filter_finds_products_with_a_price_in_those_lists(admin_get):
    for variant_id in ("variant_t_shirt_s", "variant_t_shirt_m"):
        await MoneyAmount.create(variant_id=variant_id, currency_code="usd", amount=900, price_list_id="pl_sale")
    await MoneyAmount.create(variant_id="variant_mug_white", currency_code="usd", amount=500, price_list_id="pl_vip")
    body = await admin_get("/admin/products?price_list_id[]=pl_sale")
    assert ids(body) == {"prod_t_shirt"} and body["count"] == 1
    assert ids(await admin_get("/admin/products?price_list_id[]=pl_sale,pl_vip")) == {"prod_t_shirt", "prod_mug"}
    await MoneyAmount.filter(price_list_id="pl_vip").update(deleted_at=datetime.now(timezone.utc))
    assert ids(await admin_get("/admin/products?price_list_id[]=pl_vip")) == set()


async def test_discount_condition_filter_lists_the_conditions_products(admin_get):
    rule = await DiscountRule.create(type="percentage", value=10, allocation="total")
    condition = await DiscountCondition.create(type="products", operator="in", discount_rule=rule)
    await condition.products.add(*await Product.filter(id__in=["prod_cap", "prod_mug"]))
    body = await admin_get(f"/admin/products?discount_condition_id={condition.id}")
    assert ids(body) == {"prod_cap", "prod_mug"} and body["count"] == 2
    assert (await admin_get("/admin/products?discount_condition_id=discon_nope"))["count"] == 0


async def test_order_by_title_and_newest_first_by_default(admin_get):
    titles = [p["title"] for p in (await admin_get("/admin/products?collection_id[]=pcol_essentials&order=-title"))["products"]]
    assert titles == ["Medusa Sweatshirt", "Medusa Sweatpants", "Medusa Socks", "Medusa Hoodie"]
    await Product.filter(id="prod_cap").update(created_at=datetime(2100, 1, 1, tzinfo=timezone.utc))
    assert (await admin_get("/admin/products"))["products"][0]["id"] == "prod_cap"


# ---------------------------------------------------------------- speed


def _statements(queries: list[str]) -> list[str]:
    """The SQL text of each logged statement, without its parameters or IN-list width."""
    return [re.sub(r"\(\?(,\?)*\)", "(?)", re.sub(r"\$\d+", "?", q.split(": [")[0])) for q in queries]


async def test_the_list_runs_the_same_statements_for_one_product_as_for_ten(admin_get, admin_headers, client):
    # Given every product with a tag, an image, a type, a collection and a place in a discount condition
    kind = await ProductType.create(value="merch")
    rule = await DiscountRule.create(type="percentage", value=10, allocation="total")
    condition = await DiscountCondition.create(type="products", operator="in", discount_rule=rule)
    for product in await Product.all():
        await product.tags.add(await ProductTag.create(value=f"tag {product.handle}"))
        await product.images.add(await Image.create(url=f"https://example.com/{product.handle}.png"))
        await condition.products.add(product)
        await Product.filter(id=product.id).update(type_id=kind.id, collection_id="pcol_summer")
    await admin_get("/admin/products?limit=1")  # the admin's user is now read; count the reads only
    url = f"/admin/products?discount_condition_id={condition.id}&q=medusa&order=title&limit="
    async with count_queries() as one:
        r1 = await client.get(url + "1", headers=admin_headers)
    async with count_queries() as ten:
        r10 = await client.get(url + "10", headers=admin_headers)
    assert len(r1.json()["products"]) == 1 and len(r10.json()["products"]) == 10
    assert all(p["tags"] and p["images"] and p["type"] and p["variants"] for p in r10.json()["products"])
    assert one and sorted(_statements(ten)) == sorted(_statements(one)), (one, ten)
    # the admin, the page, the count, one read per relation (two for each many-to-many)
    assert len(ten) <= 19, ten


async def test_variants_soft_deleted_are_not_shown(admin_get):
    await ProductVariant.filter(id="variant_t_shirt_m").update(deleted_at=datetime.now(timezone.utc))
    product = (await admin_get("/admin/products/prod_t_shirt"))["product"]
    assert [v["id"] for v in product["variants"]] == ["variant_t_shirt_s", "variant_t_shirt_l"]


# ---------------------------------------------------------------- categories


async def _category_tree() -> dict[str, ProductCategory]:
    """clothing > tops > hoodies, and an inactive, internal `archive`; all seen by the admin."""
    clothing = await ProductCategory.create(name="Clothing", handle="clothing", is_active=True)
    tops = await ProductCategory.create(name="Tops", handle="tops", is_active=True, parent_category=clothing)
    hoodies = await ProductCategory.create(name="Hoodies", handle="hoodies", is_active=True, parent_category=tops)
    archive = await ProductCategory.create(name="Archive", handle="archive", is_internal=True)
    await clothing.products.add(await Product.get(id="prod_shorts"))
    await tops.products.add(*await Product.filter(id__in=["prod_t_shirt", "prod_sweatshirt"]))
    await hoodies.products.add(await Product.get(id="prod_hoodie"))
    await archive.products.add(*await Product.filter(id__in=["prod_hoodie", "prod_mug"]))
    return {c.handle: c for c in (clothing, tops, hoodies, archive)}


async def test_the_category_filter_matches_products_in_those_categories_only(admin_get):
    tree = await _category_tree()
    assert ids(await admin_get(f"/admin/products?category_id[]={tree['tops'].id}")) == {"prod_t_shirt", "prod_sweatshirt"}
    body = await admin_get(f"/admin/products?category_id[]={tree['hoodies'].id},{tree['archive'].id}")
    assert ids(body) == {"prod_hoodie", "prod_mug"} and body["count"] == 2 and len(body["products"]) == 2
    assert (await admin_get("/admin/products?category_id[]=pcat_nope"))["count"] == 0


async def test_include_category_children_adds_every_category_below(admin_get):
    tree = await _category_tree()
    url = f"/admin/products?category_id[]={tree['clothing'].id}&include_category_children=true"
    body = await admin_get(url)
    assert ids(body) == {"prod_shorts", "prod_t_shirt", "prod_sweatshirt", "prod_hoodie"} and body["count"] == 4
    assert ids(await admin_get(url.replace("true", "false"))) == {"prod_shorts"}
    assert (await admin_get("/admin/products?category_id[]=pcat_nope&include_category_children=true"))["count"] == 0


async def test_products_show_their_categories_hidden_ones_too(admin_get):
    tree = await _category_tree()
    product = (await admin_get("/admin/products/prod_hoodie"))["product"]
    assert {c["id"] for c in product["categories"]} == {tree["hoodies"].id, tree["archive"].id}
    assert set(product["categories"][0]) == {
        "id", "name", "description", "handle", "is_active", "is_internal", "rank", "parent_category_id",
        "created_at", "updated_at", "metadata",
    }
    listed = {p["id"]: p for p in (await admin_get("/admin/products"))["products"]}
    assert listed["prod_cap"]["categories"] == [] and len(listed["prod_hoodie"]["categories"]) == 2


async def test_the_list_and_a_product_run_as_many_statements_for_fifty_full_products_as_for_one(
    admin_get, client, admin_headers,
):
    # Given a catalogue of one product with 10 variants (prices in two currencies and for a
    # region, options, images, tags, a type, a category), then of fifty such products
    await hide_seeded_products()
    [first] = await full_products(1)
    await admin_get("/admin/products?limit=1")  # the admin's user is now read; count the reads only
    urls = ("/admin/products", f"/admin/products/{first.id}")
    one = {}
    for url in urls:
        async with count_queries() as one[url]:
            assert (await client.get(url, headers=admin_headers)).status_code == 200
    await full_products(49, first=1)
    for url in urls:
        async with count_queries() as fifty:
            r = await client.get(url, headers=admin_headers)
        products = r.json()["products"] if "products" in r.json() else [r.json()["product"]]
        assert all(len(p["variants"]) == 10 and len(p["variants"][0]["prices"]) == 3 for p in products)
        assert all(p["categories"] and p["tags"] and p["images"] and p["options"] for p in products)
        assert one[url] and without_counts(fifty) == without_counts(one[url]), "\n".join(fifty)
        assert len(fifty) <= len(one[url]) + 1
    assert r.status_code == 200 and (await admin_get("/admin/products"))["count"] == 50


async def test_the_back_offices_product_table_and_page_read_by_rows_answer_as_one_read_per_relation(
    admin_get, monkeypatch,
):
    # Given products with sales channels, categories, soft-deleted variants and prices, a draft
    from services.catalog import products as listing

    cap = await Product.get(id="prod_cap")
    category = await ProductCategory.create(name="Hats", handle="hats")
    await category.products.add(cap)
    extra = await SalesChannel.create(name="Outlet")
    await cap.sales_channels.add(extra)
    now = datetime.now(timezone.utc)
    await ProductVariant.filter(id="variant_cap_white").update(deleted_at=now)
    await MoneyAmount.filter(variant_id="variant_t_shirt_s").limit(1).update(deleted_at=now)
    await Product.filter(id="prod_mug").update(status="draft")
    answers = []
    for by_rows in (True, False):
        # When the dashboard's product table and a product page are read with each loader
        monkeypatch.setattr(listing, "_by_rows", lambda relations, by_rows=by_rows: by_rows)
        for url in ("/admin/products?limit=15&offset=0", "/admin/products?limit=3&offset=3&order=title",
                    "/admin/products/prod_cap"):
            answers.append(await admin_get(url))
    # I expect the same answers, key for key, with the cap's channels and category
    assert answers[:3] == answers[3:]
    page = answers[2]["product"]
    assert {c["name"] for c in page["sales_channels"]} >= {"Outlet"} and page["categories"][0]["handle"] == "hats"
    assert "variant_cap_white" not in {v["id"] for v in page["variants"]}

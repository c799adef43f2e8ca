"""Admin product writes (Medusa's test `admin/product.js`):
products created with their options, variants and prices in one transaction, edited, deleted;
options and variants added, changed and removed; every answer the product as the admin reads it."""

import pytest

from models import (
    GiftCard, Image, MoneyAmount, Product, ProductOption, ProductOptionValue, ProductTag, ProductType, ProductVariant,
    Region, ShippingProfile, User,
)
from services.batch_jobs.lifecycle import create_batch_job
from services.catalog import product_variants, product_writes
from services.store.defaults import get_store
from tests.app.admin.test_products import DEFAULT_RELATIONS, PRODUCT_COLUMNS
from tests.checkout_factories import complete, ready_cart
from tests.conftest import count_queries
from tests.services.batch_jobs.test_product_export import export
from tests.services.batch_jobs.test_product_import import files, run_to_the_end  # noqa: F401 (fixture)


@pytest.fixture
async def eu():
    return await Region.create(name="EU", currency_code="eur", tax_rate=25)


async def post(client, headers, path: str, body: dict, status: int = 200) -> dict:
    r = await client.post(path, json=body, headers=headers)
    assert r.status_code == status, r.text
    return r.json()


async def create(client, headers, **body) -> dict:
    return (await post(client, headers, "/admin/products", body))["product"]


def shirt_variant(size: str, color: str, usd: int, eur: int, **more) -> dict:
    return {
        "title": f"{size} / {color}", "sku": f"SHIRT-{size}-{color}", "inventory_quantity": 10,
        "prices": [{"amount": usd, "currency_code": "usd"}, {"amount": eur, "currency_code": "eur"}],
        "options": [{"value": size}, {"value": color}], **more,
    }


SHIRT = {
    "title": "Linen Shirt", "description": "Light", "status": "published",
    "options": [{"title": "Size"}, {"title": "Color"}],
    "variants": [
        shirt_variant("S", "White", 3000, 2800), shirt_variant("S", "Blue", 3000, 2800),
        shirt_variant("M", "White", 3200, 3000), shirt_variant("M", "Blue", 3200, 3000),
    ],
}


def prices_of(variant: dict) -> dict[str, int]:
    return {p["currency_code"]: p["amount"] for p in variant["prices"]}


def values_of(variant: dict) -> list[str]:
    return [o["value"] for o in variant["options"]]


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("POST", "/admin/products"),
    ("POST", "/admin/products/prod_1"),
    ("DELETE", "/admin/products/prod_1"),
    ("POST", "/admin/products/prod_1/metadata"),
    ("POST", "/admin/products/prod_1/options"),
    ("POST", "/admin/products/prod_1/options/opt_1"),
    ("DELETE", "/admin/products/prod_1/options/opt_1"),
    ("POST", "/admin/products/prod_1/variants"),
    ("POST", "/admin/products/prod_1/variants/variant_1"),
    ("DELETE", "/admin/products/prod_1/variants/variant_1"),
])
async def test_every_write_needs_a_signed_in_user(client, method, path):
    await Product.create(id="prod_1", title="Mug", handle="mug")
    r = await client.request(method, path, json={"title": "x"} if method == "POST" else None)
    assert r.status_code == 401
    assert r.json()["type"] == "unauthorized"
    assert await Product.filter(id="prod_1", title="Mug", deleted_at=None).exists()


# ---------------------------------------------------------------- the story


async def test_a_product_is_created_edited_and_pruned_and_the_store_sees_each_change(client, admin_headers, eu):
    # Given a published shirt with two options and four variants priced in usd and eur
    product = await create(client, admin_headers, **SHIRT)
    assert set(product) == PRODUCT_COLUMNS | DEFAULT_RELATIONS | {"profile"}
    assert product["id"].startswith("prod_") and product["handle"] == "linen-shirt"
    assert (product["status"], product["discountable"], product["is_giftcard"]) == ("published", True, False)
    assert [o["title"] for o in product["options"]] == ["Size", "Color"]
    assert [v["title"] for v in product["variants"]] == ["S / White", "S / Blue", "M / White", "M / Blue"]
    assert [v["variant_rank"] for v in product["variants"]] == [0, 1, 2, 3]
    assert [values_of(v) for v in product["variants"]][:2] == [["S", "White"], ["S", "Blue"]]
    assert all(v["options"][0]["option_id"] == product["options"][0]["id"] for v in product["variants"])
    assert [prices_of(v) for v in product["variants"]][2] == {"usd": 3200, "eur": 3000}
    store = await get_store()
    assert [c["id"] for c in product["sales_channels"]] == [store.default_sales_channel_id]
    default_profile = await ShippingProfile.get(type="default")
    assert product["profile_id"] == default_profile.id == product["profile"]["id"]
    # and the admin's read answers the same
    r = await client.get(f"/admin/products/{product['id']}", headers=admin_headers)
    assert r.json()["product"] == product

    # When the title, one variant's usd price and an uploaded image change
    r = await client.post("/admin/uploads", headers=admin_headers, files={"files": ("shirt.png", b"png", "image/png")})
    [upload] = r.json()["uploads"]
    small_white = product["variants"][0]
    usd = next(p for p in small_white["prices"] if p["currency_code"] == "usd")
    eur = next(p for p in small_white["prices"] if p["currency_code"] == "eur")
    product = (await post(client, admin_headers, f"/admin/products/{product['id']}", {
        "title": "Linen Shirt II", "images": [upload["url"]],
    }))["product"]
    assert product["title"] == "Linen Shirt II" and product["handle"] == "linen-shirt"
    assert [i["url"] for i in product["images"]] == [upload["url"]] and product["thumbnail"] == upload["url"]
    product = (await post(client, admin_headers, f"/admin/products/{product['id']}/variants/{small_white['id']}", {
        "prices": [{"id": usd["id"], "amount": 2500, "currency_code": "usd"}, {"amount": 2300, "currency_code": "eur"}],
    }))["product"]
    changed = product["variants"][0]
    assert prices_of(changed) == {"usd": 2500, "eur": 2300}
    # the prices keep their ids: changed in place
    assert {p["id"] for p in changed["prices"]} == {usd["id"], eur["id"]}

    # Then the store lists it with the new prices at once
    r = await client.get(f"/store/products/{product['id']}?currency_code=usd")
    assert r.status_code == 200, r.text
    shown = r.json()["product"]
    assert shown["title"] == "Linen Shirt II"
    assert shown["variants"][0]["calculated_price"] == 2500

    # When a variant is deleted, an option added, then deleted again
    gone = product["variants"][3]["id"]
    r = await client.delete(f"/admin/products/{product['id']}/variants/{gone}", headers=admin_headers)
    body = r.json()
    assert r.status_code == 200 and {k: body[k] for k in ("variant_id", "object", "deleted")} == {
        "variant_id": gone, "object": "product-variant", "deleted": True}
    assert [v["id"] for v in body["product"]["variants"]] == [v["id"] for v in product["variants"][:3]]
    product = (await post(client, admin_headers, f"/admin/products/{product['id']}/options", {"title": "Fit"}))["product"]
    fit = product["options"][2]
    assert fit["title"] == "Fit"
    assert [values_of(v) for v in product["variants"]][0] == ["S", "White", "Default Value"]
    r = await client.delete(f"/admin/products/{product['id']}/options/{fit['id']}", headers=admin_headers)
    body = r.json()
    assert r.status_code == 200 and (body["option_id"], body["object"], body["deleted"]) == (fit["id"], "option", True)
    assert [o["title"] for o in body["product"]["options"]] == ["Size", "Color"]
    assert [values_of(v) for v in body["product"]["variants"]][0] == ["S", "White"]
    # Then the store shows three variants
    shown = (await client.get(f"/store/products/{product['id']}?currency_code=eur")).json()["product"]
    assert [v["title"] for v in shown["variants"]] == ["S / White", "S / Blue", "M / White"]
    assert shown["variants"][0]["calculated_price"] == 2300


async def test_deleting_a_product_soft_deletes_it_with_its_variants_and_frees_its_handle(client, admin_headers, eu):
    product = await create(client, admin_headers, **SHIRT)
    r = await client.delete(f"/admin/products/{product['id']}", headers=admin_headers)
    assert r.status_code == 200 and r.json() == {"id": product["id"], "object": "product", "deleted": True}
    assert (await Product.get(id=product["id"])).deleted_at is not None
    assert await ProductVariant.filter(product_id=product["id"], deleted_at=None).count() == 0
    assert await ProductOption.filter(product_id=product["id"], deleted_at=None).count() == 0
    assert await ProductOptionValue.filter(variant__product_id=product["id"], deleted_at=None).count() == 0
    assert (await client.get(f"/admin/products/{product['id']}", headers=admin_headers)).status_code == 404
    # the same handle and SKUs can be used again; a second delete still answers 200
    again = await create(client, admin_headers, **SHIRT)
    assert again["handle"] == "linen-shirt" and again["id"] != product["id"]
    r = await client.delete(f"/admin/products/{product['id']}", headers=admin_headers)
    assert r.status_code == 200 and r.json()["deleted"] is True


# ---------------------------------------------------------------- create


async def test_create_takes_medusas_defaults_and_reuses_tags_types_and_images_by_value(client, admin_headers):
    old_tag = await ProductTag.create(value="linen")
    old_type = await ProductType.create(value="Shirts")
    old_image = await Image.create(url="https://img.test/a.png")
    product = await create(client, admin_headers, title="Test create", images=["https://img.test/a.png",
                           "https://img.test/b.png"], tags=[{"value": "linen"}, {"value": "summer"}],
                           type={"id": "ptyp_whatever", "value": "Shirts"}, metadata={"source": "ui"})
    assert (product["handle"], product["status"], product["discountable"]) == ("test-create", "draft", True)
    assert product["thumbnail"] == "https://img.test/a.png" and product["metadata"] == {"source": "ui"}
    assert product["images"][0]["id"] == old_image.id and len(product["images"]) == 2
    assert {t["value"]: t["id"] for t in product["tags"]}["linen"] == old_tag.id
    assert product["type"]["id"] == old_type.id and product["type_id"] == old_type.id
    assert product["options"] == [] and product["variants"] == []
    assert await ProductTag.filter(value="summer").count() == 1


async def test_a_second_product_with_the_same_title_needs_its_own_handle(client, admin_headers):
    await create(client, admin_headers, title="Mug")
    r = await client.post("/admin/products", json={"title": "Mug"}, headers=admin_headers)
    assert r.status_code == 422
    assert r.json() == {"type": "duplicate_error", "message": "Product with handle mug already exists.",
                        "code": "invalid_request_error"}
    assert (await create(client, admin_headers, title="Mug", handle="mug-2"))["handle"] == "mug-2"


async def test_a_gift_card_is_never_discountable_and_ships_under_the_gift_card_profile(client, admin_headers):
    product = await create(client, admin_headers, title="Gift", is_giftcard=True, discountable=True)
    assert product["is_giftcard"] is True and product["discountable"] is False
    assert product["profile_id"] == (await ShippingProfile.get(type="gift_card")).id


async def variants_in_one_create(client, headers, n: int) -> list[str]:
    variants = [{
        "title": f"Size {i}", "sku": f"SKU-{n}-{i}", "options": [{"value": f"{i}"}],
        "prices": [{"amount": 100 + i, "currency_code": c} for c in ("usd", "eur", "dkk")],
    } for i in range(n)]
    async with count_queries() as queries:
        product = await create(client, headers, title=f"Many {n}", options=[{"title": "Size"}], variants=variants)
    assert len(product["variants"]) == n and all(len(v["prices"]) == 3 for v in product["variants"])
    return list(queries)


async def test_creating_a_product_runs_as_many_statements_for_100_variants_as_for_10(client, admin_headers):
    ten = await variants_in_one_create(client, admin_headers, 10)
    hundred = await variants_in_one_create(client, admin_headers, 100)
    # 25, and product.created: its event, its job and the job handed to the broker (after commit)
    assert len(hundred) == len(ten) <= 28, "\n".join(hundred)
    assert await MoneyAmount.filter(variant__product__title="Many 100").count() == 300


@pytest.mark.parametrize("change,status,message", [
    ({"colour": "red"}, 400, "property colour should not exist"),
    ({"status": "archived"}, 400, "status must be one of the following values: draft, proposed, published, rejected"),
    ({"weight": 1.5}, 400, "weight must be an integer number"),
    ({"collection_id": "pcol_ghost"}, 404, "Product_collection with collection_id pcol_ghost does not exist."),
    ({"categories": [{"id": "pcat_ghost"}]}, 404, "Product_category with product_category_id pcat_ghost does not exist."),
    ({"sales_channels": [{"id": "sc_a"}, {"id": "sc_b"}]}, 400, "Sales Channels sc_a, sc_b do not exist"),
    ({"variants": [{"title": "A", "options": [{"value": "S"}], "prices": [{"amount": 1, "currency_code": "xyz"}]}]},
     404, "Currency with currency_code xyz does not exist."),
    ({"variants": [{"title": "A", "options": [{"value": "S"}], "prices": [{"amount": 1, "region_id": "reg_ghost"}]}]},
     404, "Region with reg_ghost was not found"),
    ({"variants": [{"title": "A", "options": [{"value": "S"}], "prices": [{"amount": 1}]}]}, 400,
     'Failed XOR relation between "region_id" and "currency_code"., '
     'Failed XOR relation between "currency_code" and "region_id".'),
    ({"variants": [{"title": "A", "options": [{"value": "S"}], "prices": [{"amount": -1, "currency_code": "usd"}]}]},
     400, "amount must not be less than 0"),
    ({"variants": [{"title": "A", "options": [], "prices": []}]}, 400,
     "Product options length does not match variant options length. Product has 1 and variant has 0."),
    ({"variants": [{"title": "A", "options": [{"value": "S"}], "prices": []},
                   {"title": "B", "options": [{"value": "S"}], "prices": []}]}, 422,
     "Variant with title A with provided options already exists"),
    ({"variants": [{"title": "A", "sku": "X", "options": [{"value": "S"}], "prices": []},
                   {"title": "B", "sku": "X", "options": [{"value": "M"}], "prices": []}]}, 422,
     "Product_variant with sku X already exists."),
])
async def test_a_refused_create_says_why_and_leaves_no_row_behind(client, admin_headers, change, status, message):
    body = {"title": "Shirt", "options": [{"title": "Size"}], "images": ["https://img.test/new.png"],
            "tags": [{"value": "fresh"}], "type": {"value": "Fresh"}, **change}
    r = await client.post("/admin/products", json=body, headers=admin_headers)
    assert r.status_code == status, r.text
    assert r.json()["message"] == message
    for model in (Product, ProductVariant, ProductOption, MoneyAmount, ProductTag, ProductType, Image):
        assert await model.all().count() == 0, model


async def test_codes_held_by_a_live_variant_are_refused_and_a_deleted_ones_are_free(client, admin_headers):
    first = await create(client, admin_headers, title="A", variants=[
        {"title": "One", "sku": "S1", "ean": "E1", "upc": "U1", "barcode": "B1", "prices": []}])
    for code in ("sku", "ean", "upc", "barcode"):
        value = first["variants"][0][code]
        r = await client.post("/admin/products", json={"title": "B", "variants": [
            {"title": "Two", code: value, "prices": []}]}, headers=admin_headers)
        assert r.status_code == 422 and r.json()["message"] == f"Product_variant with {code} {value} already exists."
    await client.delete(f"/admin/products/{first['id']}", headers=admin_headers)
    again = await create(client, admin_headers, title="B", variants=[{"title": "Two", "sku": "S1", "prices": []}])
    assert again["variants"][0]["sku"] == "S1"


async def test_a_handle_or_code_taken_by_a_racing_request_is_the_same_422(client, admin_headers, monkeypatch):
    # Given a racing request took the handle and the SKU after this one checked them
    async def unchecked(*args, **kwargs):
        return None

    await create(client, admin_headers, title="Mug", variants=[{"title": "One", "sku": "MUG-1", "prices": []}])
    monkeypatch.setattr(product_writes, "ensure_handle_free", unchecked)
    monkeypatch.setattr(product_writes, "ensure_codes_free", unchecked)
    monkeypatch.setattr(product_variants, "ensure_codes_free", unchecked)
    r = await client.post("/admin/products", json={"title": "Mug"}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["message"] == "Product with handle mug already exists."
    r = await client.post("/admin/products", json={"title": "Cup", "variants": [
        {"title": "One", "sku": "MUG-1", "prices": []}]}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["message"] == "Product_variant with sku MUG-1 already exists."
    await create(client, admin_headers, title="Plate", variants=[{"title": "One", "barcode": "B-1", "prices": []}])
    r = await client.post("/admin/products", json={"title": "Bowl", "variants": [
        {"title": "One", "barcode": "B-1", "prices": []}]}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["message"] == "Product_variant with barcode B-1 already exists."
    assert await Product.filter(deleted_at=None).count() == 2


# ---------------------------------------------------------------- update


async def test_an_update_reconciles_the_variants_with_the_list_given(client, admin_headers, eu):
    product = await create(client, admin_headers, **SHIRT)
    options = [o["id"] for o in product["options"]]
    s_white, s_blue, m_white, _ = product["variants"]
    body = {"variants": [
        {"id": m_white["id"], "title": "Medium White", "prices": [{"amount": 3500, "currency_code": "usd"}]},
        {"id": s_white["id"]},
        {"title": "L / White", "sku": "SHIRT-L-White", "options": [
            {"option_id": options[0], "value": "L"}, {"option_id": options[1], "value": "White"}],
         "prices": [{"amount": 4000, "currency_code": "usd"}]},
    ]}
    product = (await post(client, admin_headers, f"/admin/products/{product['id']}", body))["product"]
    # re-ranked in the order given, the others deleted, the new one made with stock 0
    assert [v["title"] for v in product["variants"]] == ["Medium White", "S / White", "L / White"]
    assert [v["variant_rank"] for v in product["variants"]] == [0, 1, 2]
    assert prices_of(product["variants"][0]) == {"usd": 3500}  # the eur price was not given: removed
    assert prices_of(product["variants"][1]) == {"usd": 3000, "eur": 2800}  # no prices given: kept
    assert product["variants"][2]["inventory_quantity"] == 0 and values_of(product["variants"][2]) == ["L", "White"]
    assert (await ProductVariant.get(id=s_blue["id"])).deleted_at is not None
    # a variant of another product is refused, and nothing changes
    other = await create(client, admin_headers, title="Other", variants=[{"title": "O", "prices": []}])
    r = await client.post(f"/admin/products/{product['id']}", headers=admin_headers,
                          json={"title": "Changed", "variants": [{"id": other["variants"][0]["id"]}]})
    assert r.status_code == 404
    assert r.json()["message"] == f"Variants with id: {other['variants'][0]['id']} are not associated with this product"
    assert (await Product.get(id=product["id"])).title == "Linen Shirt"


async def test_an_update_sets_clears_and_replaces_the_fields_given(client, admin_headers):
    collection = (await post(client, admin_headers, "/admin/collections", {"title": "Summer"}))["collection"]
    product = await create(client, admin_headers, title="Mug", collection_id=collection["id"], subtitle="Big",
                           tags=[{"value": "a"}, {"value": "b"}], type={"value": "Cups"}, metadata={"x": 1, "y": 2})
    product = (await post(client, admin_headers, f"/admin/products/{product['id']}", {
        "collection_id": None, "subtitle": None, "tags": [{"value": "c"}], "metadata": {"x": "", "z": 3},
        "status": "proposed", "sales_channels": [],
    }))["product"]
    assert product["collection_id"] is None and product["collection"] is None and product["subtitle"] is None
    assert [t["value"] for t in product["tags"]] == ["c"] and product["type"]["value"] == "Cups"
    assert product["metadata"] == {"y": 2, "z": 3} and product["status"] == "proposed"
    assert product["sales_channels"] == [] and product["handle"] == "mug"
    r = await client.post(f"/admin/products/{product['id']}", json={"status": None}, headers=admin_headers)
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"
    r = await client.post("/admin/products/prod_ghost", json={"title": "x"}, headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == "Product with id: prod_ghost was not found"
    # the metadata route sets one key; an empty value removes it
    product = (await post(client, admin_headers, f"/admin/products/{product['id']}/metadata",
                          {"key": "color", "value": "red"}))["product"]
    assert product["metadata"] == {"y": 2, "z": 3, "color": "red"}
    product = (await post(client, admin_headers, f"/admin/products/{product['id']}/metadata",
                          {"key": "y", "value": ""}))["product"]
    assert product["metadata"] == {"z": 3, "color": "red"}


# ---------------------------------------------------------------- options and variants


async def test_options_keep_variants_distinct(client, admin_headers, eu):
    product = await create(client, admin_headers, **SHIRT)
    path = f"/admin/products/{product['id']}/options"
    size, color = product["options"]
    r = await client.post(path, json={"title": "Size"}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["message"] == "An option with the title: Size already exists"
    r = await client.post(f"{path}/{color['id']}", json={"title": "size"}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["message"] == "An option with title size already exists"
    renamed = (await post(client, admin_headers, f"{path}/{color['id']}", {"title": "Colour"}))["product"]
    assert [o["title"] for o in renamed["options"]] == ["Size", "Colour"]
    r = await client.delete(f"{path}/{size['id']}", headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"].startswith("To delete an option, first delete all variants")
    r = await client.post(f"{path}/opt_ghost", json={"title": "Fit"}, headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == "Option with id: opt_ghost does not exist"
    r = await client.delete(f"{path}/opt_ghost", headers=admin_headers)
    assert r.status_code == 200 and len(r.json()["product"]["options"]) == 2


async def test_variants_are_added_changed_and_checked_against_their_siblings(client, admin_headers, eu):
    product = await create(client, admin_headers, **SHIRT)
    path = f"/admin/products/{product['id']}/variants"
    size, color = (o["id"] for o in product["options"])
    new = {"title": "L / Blue", "sku": "SHIRT-L-Blue", "prices": [{"amount": 900, "region_id": eu.id}],
           "options": [{"option_id": size, "value": "L"}, {"option_id": color, "value": "Blue"}]}
    added = (await post(client, admin_headers, path, new))["product"]["variants"][-1]
    assert added["variant_rank"] == 4 and added["inventory_quantity"] == 0 and added["manage_inventory"] is True
    assert [(p["currency_code"], p["region_id"], p["amount"]) for p in added["prices"]] == [("eur", eu.id, 900)]
    r = await client.post(path, json={**new, "sku": None}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["message"] == "Variant with title L / Blue with provided options already exists"
    r = await client.post(path, json={**new, "sku": None, "options": [{"option_id": size, "value": "XL"}]}, headers=admin_headers)
    assert r.status_code == 400
    r = await client.post("/admin/products/prod_ghost/variants", json=new, headers=admin_headers)
    assert r.status_code == 404
    # an update changes the columns, the option values and the prices given
    small = product["variants"][0]
    changed = (await post(client, admin_headers, f"{path}/{small['id']}", {
        "title": "Small", "options": [{"option_id": size, "value": "XS"}], "metadata": {"a": 1},
        "prices": [{"amount": 100, "currency_code": "usd"}],
    }))["product"]["variants"][0]
    assert (changed["title"], values_of(changed), changed["metadata"]) == ("Small", ["XS", "White"], {"a": 1})
    assert prices_of(changed) == {"usd": 100} and changed["sku"] == small["sku"]
    r = await client.post(f"{path}/{small['id']}", json={"options": [{"option_id": size, "value": "M"},
                          {"option_id": color, "value": "Blue"}]}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["message"] == "Variant with title M / Blue with provided options already exists"
    r = await client.post(f"{path}/{small['id']}", json={"sku": "SHIRT-M-Blue"}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["message"] == "Product_variant with sku SHIRT-M-Blue already exists."
    other = await create(client, admin_headers, title="Other", variants=[{"title": "O", "prices": []}])
    r = await client.post(f"{path}/{other['variants'][0]['id']}", json={"title": "Mine"}, headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == f"Variant with id: {other['variants'][0]['id']} was not found"
    r = await client.delete(f"{path}/{other['variants'][0]['id']}", headers=admin_headers)
    assert r.status_code == 200 and await ProductVariant.filter(id=other["variants"][0]["id"], deleted_at=None).exists()


async def test_a_product_without_options_takes_several_variants(client, admin_headers):
    product = await create(client, admin_headers, title="Poster", variants=[{"title": "A", "prices": []}])
    added = (await post(client, admin_headers, f"/admin/products/{product['id']}/variants",
                        {"title": "B", "prices": []}))["product"]
    assert [v["title"] for v in added["variants"]] == ["A", "B"]


# ---------------------------------------------------------------- gift cards, end to end


async def test_a_gift_card_made_in_the_dashboard_is_bought_as_a_card_of_its_denomination(client, admin_headers, seeded):
    # Given the dashboard's "Create gift card" form sends its payload
    card = await create(client, admin_headers, **{
        "is_giftcard": True, "title": "Gift Card", "description": "For anyone", "discountable": False,
        "options": [{"title": "Denominations"}],
        "variants": [{"title": f"{i + 1}", "inventory_quantity": 0, "manage_inventory": False,
                      "prices": [{"amount": amount, "currency_code": "usd"}], "options": [{"value": f"{amount}"}]}
                     for i, amount in enumerate((2500, 5000))],
        "images": None, "thumbnail": None, "status": "published",
    })
    assert card["is_giftcard"] is True and card["discountable"] is False
    assert [prices_of(v) for v in card["variants"]] == [{"usd": 2500}, {"usd": 5000}]
    # When a shopper buys the 50 card
    cart = await ready_cart(client, items={card["variants"][1]["id"]: 1})
    r = await complete(client, cart)
    # I expect an order and a gift card worth 50
    assert r.status_code == 200, r.text
    order = r.json()["data"]
    [bought] = await GiftCard.filter(order_id=order["id"])
    assert (bought.value, bought.balance) == (5000, 5000)


# ---------------------------------------------------------------- export and import


async def test_a_product_made_here_survives_an_export_and_a_reimport(client, admin_headers, eu, files):
    # Given a shirt made over HTTP, exported, then deleted
    product = await create(client, admin_headers, **SHIRT)
    admin = (await User.get(email="admin@test.com")).id
    job = await export(admin)
    assert job.status == "completed", job.result
    await client.delete(f"/admin/products/{product['id']}", headers=admin_headers)
    # When the export is imported
    job = await create_batch_job(admin, "product-import", {"fileKey": job.result["file_key"]}, False)
    job = await run_to_the_end(job.id)
    assert job.status == "completed", job.result
    # Then the shirt is back with its options, variants and prices
    [again] = await Product.filter(handle="linen-shirt", deleted_at=None)
    shown = (await client.get(f"/admin/products/{again.id}", headers=admin_headers)).json()["product"]
    assert [o["title"] for o in shown["options"]] == ["Size", "Color"]
    assert [(v["title"], v["sku"], values_of(v), prices_of(v)) for v in shown["variants"]] == [
        (v["title"], v["sku"], values_of(v), prices_of(v)) for v in product["variants"]
    ]


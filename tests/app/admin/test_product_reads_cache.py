"""The admin product list and product page kept by the catalogue's version (app/admin/products.py,
app/web/answer_cache.py): the same bytes as a built answer after one statement, a 304 for a
revalidation, every change to what they show seen on the next request whoever wrote it (the API,
the ORM, a stock move), and the reads that depend on more than the catalogue never kept."""

from tortoise import connections

from app.web.answer_cache import forget_answers
from models import MoneyAmount, Product, ProductVariant
from tests.conftest import count_queries
from tests.kept_answers import version_only

QUERIES = ["", "limit=2&offset=1", "expand=variants,variants.prices", "fields=title,handle", "order=title",
           "status[]=draft", "limit=1&expand=tags,collection"]


def _version_only(statements: list[str]) -> bool:
    return version_only(statements, "catalogue_version")


async def _get(client, headers: dict, path: str, **extra):
    return await client.get(path, headers={**headers, **extra})


async def test_a_kept_answer_is_the_built_one_after_one_statement(client, seeded, admin_headers):
    product_id = (await Product.first()).id
    paths = [f"/admin/products?{q}" for q in QUERIES] + [f"/admin/products/{product_id}",
                                                          f"/admin/products/{product_id}?expand=variants"]
    for path in paths:
        forget_answers()
        built = await _get(client, admin_headers, path)
        assert built.status_code == 200, (path, built.text)
        async with count_queries() as statements:
            again = await _get(client, admin_headers, path)
        assert again.status_code == 200 and again.content == built.content, path
        assert _version_only(statements), (path, statements)
        revalidated = await _get(client, admin_headers, path, **{"If-None-Match": built.headers["etag"]})
        assert revalidated.status_code == 304, path


async def test_every_change_is_seen_on_the_next_read(client, seeded, admin_headers):
    product = await Product.filter(deleted_at=None).order_by("-created_at", "id").first()
    variant = await ProductVariant.filter(product_id=product.id, deleted_at=None).first()
    path = "/admin/products?limit=50&expand=variants,variants.prices,tags"

    async def shown() -> dict:
        r = await _get(client, admin_headers, path)
        assert r.status_code == 200, r.text
        return next(p for p in r.json()["products"] if p["id"] == product.id)

    await shown()
    # A title through the API
    r = await client.post(f"/admin/products/{product.id}", headers=admin_headers, json={"title": "Renamed"})
    assert r.status_code == 200, r.text
    assert (await shown())["title"] == "Renamed"
    # Stock, moved by a checkout's conditional update (here the ORM's)
    await ProductVariant.filter(id=variant.id).update(inventory_quantity=4242)
    assert {v["id"]: v["inventory_quantity"] for v in (await shown())["variants"]}[variant.id] == 4242
    # A price, written by raw SQL
    price = await MoneyAmount.filter(variant_id=variant.id).first()
    mark = "$1" if connections.get("default").capabilities.dialect == "postgres" else "?"
    await connections.get("default").execute_query(f'UPDATE "money_amount" SET "amount" = 777 WHERE "id" = {mark}',
                                                   [price.id])
    prices = {p["id"]: p["amount"] for v in (await shown())["variants"] for p in v["prices"]}
    assert prices[price.id] == 777
    # A tag through the API
    r = await client.post(f"/admin/products/{product.id}", headers=admin_headers, json={"tags": [{"value": "sale"}]})
    assert r.status_code == 200, r.text
    assert [t["value"] for t in (await shown())["tags"]] == ["sale"]
    # The page too
    r = await _get(client, admin_headers, f"/admin/products/{product.id}")
    assert r.json()["product"]["title"] == "Renamed"


async def test_a_search_or_a_discount_condition_filter_is_never_kept(client, seeded, admin_headers):
    for path in ("/admin/products?q=shirt", "/admin/products?discount_condition_id=discon_none"):
        await _get(client, admin_headers, path)
        async with count_queries() as statements:
            r = await _get(client, admin_headers, path)
        assert r.status_code == 200, r.text
        assert "etag" not in r.headers and not _version_only(statements), path


async def test_a_bad_query_is_refused_every_time_and_not_kept(client, seeded, admin_headers):
    for _ in range(2):
        r = await _get(client, admin_headers, "/admin/products?expand=nope")
        assert r.status_code == 400 and "etag" not in r.headers

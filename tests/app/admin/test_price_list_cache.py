"""A price list's page and its products kept by version (app/admin/price_lists.py,
app/web/answer_cache.py): the same bytes as a built answer after the versions' reads only, a 304 for
a revalidation, every change to what they show seen on the next request whoever wrote it (the API,
a stock move, raw SQL, a customer group renamed), and a products search never kept."""

from tortoise import connections

from app.web.answer_cache import forget_answers
from models import CustomerGroup, MoneyAmount, ProductVariant
from tests.conftest import count_queries

VERSIONS = ('FROM "catalogue_version"', 'FROM "customer_list_version"')


def _versions_only(statements: list[str]) -> bool:
    """True when, but for the caller's look-up, `statements` are reads of the versions."""
    rest = [s for s in statements if 'FROM "user"' not in s]
    return bool(rest) and all(any(v in s for v in VERSIONS) for s in rest)


async def _price_list(client, headers) -> dict:
    group = await CustomerGroup.create(name="Friends")
    r = await client.post("/admin/price-lists", headers=headers, json={
        "name": "VIP sale", "description": "For friends", "type": "sale", "customer_groups": [{"id": group.id}],
        "prices": [{"amount": 800, "currency_code": "usd", "variant_id": "variant_mug_white"},
                   {"amount": 900, "currency_code": "eur", "variant_id": "variant_mug_white"}]})
    assert r.status_code == 200, r.text
    return r.json()["price_list"]


async def test_a_kept_answer_is_the_built_one_after_the_versions_reads(client, seeded, admin_headers):
    price_list = await _price_list(client, admin_headers)
    base = f"/admin/price-lists/{price_list['id']}"
    for path in (base, f"{base}?expand=prices", f"{base}?fields=name", f"{base}/products",
                 f"{base}/products?limit=1&expand=variants,variants.prices"):
        forget_answers()
        built = await client.get(path, headers=admin_headers)
        assert built.status_code == 200, (path, built.text)
        async with count_queries() as statements:
            again = await client.get(path, headers=admin_headers)
        assert again.status_code == 200 and again.content == built.content, path
        assert _versions_only(statements), (path, statements)
        revalidated = await client.get(path, headers={**admin_headers, "If-None-Match": built.headers["etag"]})
        assert revalidated.status_code == 304, path


async def test_every_change_is_seen_on_the_next_read(client, seeded, admin_headers):
    price_list = await _price_list(client, admin_headers)
    path = f"/admin/price-lists/{price_list['id']}"

    async def shown(where: str = path) -> dict:
        r = await client.get(where, headers=admin_headers)
        assert r.status_code == 200, r.text
        return r.json()

    await shown()
    await shown(f"{path}/products")
    # The list's name through the API
    r = await client.post(path, headers=admin_headers, json={"name": "Summer sale"})
    assert r.status_code == 200, r.text
    assert (await shown())["price_list"]["name"] == "Summer sale"
    # A price, written by raw SQL
    price = await MoneyAmount.filter(price_list_id=price_list["id"], currency_code="usd").first()
    mark = "$1" if connections.get("default").capabilities.dialect == "postgres" else "?"
    await connections.get("default").execute_query(f'UPDATE "money_amount" SET "amount" = 777 WHERE "id" = {mark}',
                                                   [price.id])
    assert {p["id"]: p["amount"] for p in (await shown())["price_list"]["prices"]}[price.id] == 777
    listed = [p for v in (await shown(f"{path}/products"))["products"][0]["variants"] for p in v["prices"]]
    assert {p["id"]: p["amount"] for p in listed}[price.id] == 777
    # A variant's stock, moved as a checkout moves it
    await ProductVariant.filter(id="variant_mug_white").update(inventory_quantity=4242)
    assert {p["variant"]["inventory_quantity"] for p in (await shown())["price_list"]["prices"]} == {4242}
    # A customer group's name
    await CustomerGroup.filter(name="Friends").update(name="Best friends")
    assert [g["name"] for g in (await shown())["price_list"]["customer_groups"]] == ["Best friends"]
    # The list gone
    r = await client.delete(path, headers=admin_headers)
    assert r.status_code == 200, r.text
    r = await client.get(path, headers=admin_headers)
    assert r.status_code == 404


async def test_a_products_search_is_never_kept(client, seeded, admin_headers):
    price_list = await _price_list(client, admin_headers)
    path = f"/admin/price-lists/{price_list['id']}/products?q=mug"
    await client.get(path, headers=admin_headers)
    async with count_queries() as statements:
        r = await client.get(path, headers=admin_headers)
    assert r.status_code == 200, r.text
    assert "etag" not in r.headers and not _versions_only(statements)

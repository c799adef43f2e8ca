"""Store product categories: `GET /store/product-categories` and `/{id}` (Medusa's test
`store/product-category.ts`): a shopper sees only active,
public categories under active, public ancestors."""

import pytest

from models import ProductCategory
from services.catalog.category_tree_reads import category_ids_with_descendants
from tests.conftest import count_queries

STORE_COLUMNS = {"id", "name", "description", "handle", "parent_category_id", "created_at", "updated_at", "rank"}


async def category(name: str, parent: ProductCategory | None = None, rank: int = 0, *, active: bool = True,
                   internal: bool = False) -> ProductCategory:
    return await ProductCategory.create(
        name=name, handle=name.lower().replace(" ", "-"), parent_category_id=parent.id if parent else None,
        rank=rank, is_active=active, is_internal=internal,
    )


@pytest.fixture
async def shop():
    """Clothes > (Tops > (Shirts, Staff-only [internal]), Archive [inactive] > Old tops);
    Drafts [inactive] > Coming soon (active itself)."""
    clothes = await category("Clothes")
    tops = await category("Tops", clothes, 0)
    shirts = await category("Shirts", tops, 0)
    staff = await category("Staff only", tops, 1, internal=True)
    archive = await category("Archive", clothes, 1, active=False)
    old = await category("Old tops", archive, 0)
    drafts = await category("Drafts", None, 1, active=False)
    soon = await category("Coming soon", drafts, 0)
    return {c.name: c for c in (clothes, tops, shirts, staff, archive, old, drafts, soon)}


async def store_list(client, query: str = "") -> dict:
    r = await client.get(f"/store/product-categories{query}")
    assert r.status_code == 200, r.text
    return r.json()


def names(items: list[dict]) -> list[str]:
    return [i["name"] for i in items]


async def test_the_list_hides_inactive_and_internal_categories_and_everything_under_them(client, shop):
    body = await store_list(client)
    assert (body["count"], body["offset"], body["limit"]) == (3, 0, 100)
    assert names(body["product_categories"]) == ["Clothes", "Shirts", "Tops"]
    clothes, shirts, tops = body["product_categories"]
    assert set(clothes) == STORE_COLUMNS | {"parent_category", "category_children"}
    assert clothes["parent_category"] is None and names(clothes["category_children"]) == ["Tops"]
    assert set(clothes["category_children"][0]) == STORE_COLUMNS
    assert names(tops["category_children"]) == ["Shirts"] and tops["parent_category"]["name"] == "Clothes"
    assert set(tops["parent_category"]) == STORE_COLUMNS and shirts["category_children"] == []


async def test_the_descendants_tree_is_pruned_at_every_hidden_category(client, shop):
    body = await store_list(client, "?parent_category_id=null&include_descendants_tree=true")
    [clothes] = body["product_categories"]
    assert body["count"] == 1
    [tops] = clothes["category_children"]
    assert names(tops["category_children"]) == ["Shirts"]
    assert tops["category_children"][0]["category_children"] == []
    assert set(tops) == STORE_COLUMNS | {"category_children"}


@pytest.mark.parametrize("query,expected", [
    ("?q=TOP", ["Tops"]),
    ("?handle=shirts", ["Shirts"]),
    ("?handle=old-tops", []),
    ("?parent_category_id=TOPS", ["Shirts"]),
    ("?parent_category_id=DRAFTS", []),
])
async def test_the_list_filters_within_what_is_shown(client, shop, query, expected):
    query = query.replace("TOPS", shop["Tops"].id).replace("DRAFTS", shop["Drafts"].id)
    body = await store_list(client, query)
    assert names(body["product_categories"]) == expected and body["count"] == len(expected)


@pytest.mark.parametrize("query,message", [
    ("?is_internal=true", "property is_internal should not exist"),
    ("?is_active=false", "property is_active should not exist"),
    ("?fields=mpath", "Requested fields [mpath] are not valid"),
    ("?fields=is_internal", "Requested fields [is_internal] are not valid"),
    ("?expand=products", "Requested relations [products] are not valid"),
    ("?limit=x", "limit must be a number conforming to the specified constraints"),
])
async def test_the_list_refuses_admin_filters_and_unknown_fields(client, shop, query, message):
    r = await client.get(f"/store/product-categories{query}")
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_the_list_clamps_the_limit(client, shop):
    body = await store_list(client, "?limit=500&offset=1")
    assert (body["limit"], body["offset"], body["count"]) == (100, 1, 3)


async def test_get_shows_a_visible_category_with_its_parent_and_its_shown_subtree(client, shop):
    r = await client.get(f"/store/product-categories/{shop['Clothes'].id}?fields=handle,name,description")
    assert r.status_code == 200, r.text
    clothes = r.json()["product_category"]
    assert set(clothes) == {"id", "handle", "name", "description", "parent_category", "category_children"}
    [tops] = clothes["category_children"]
    assert names(tops["category_children"]) == ["Shirts"]
    r = await client.get(f"/store/product-categories/{shop['Shirts'].id}")
    assert r.json()["product_category"]["parent_category"]["id"] == shop["Tops"].id


@pytest.mark.parametrize("name", ["Staff only", "Archive", "Old tops", "Drafts", "Coming soon"])
async def test_get_of_a_hidden_category_or_one_under_it_is_a_404(client, shop, name):
    category_id = shop[name].id
    r = await client.get(f"/store/product-categories/{category_id}")
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": f"ProductCategory with id: {category_id} was not found"}


async def test_a_store_list_with_the_tree_runs_the_same_statements_for_1_or_20_categories(client):
    async def forest(roots: int) -> None:
        for i in range(roots):
            root = await category(f"Root {i}", rank=i)
            child = await category(f"Child {i}", root)
            await category(f"Leaf {i}", child)

    query = "/store/product-categories?parent_category_id=null&include_descendants_tree=true"
    await forest(1)
    async with count_queries() as one:
        r1 = await client.get(query)
    await ProductCategory.all().delete()
    await forest(20)
    async with count_queries() as twenty:
        r20 = await client.get(query)
    assert r1.json()["count"] == 1 and r20.json()["count"] == 20
    assert all(len(root["category_children"][0]["category_children"]) == 1 for root in r20.json()["product_categories"])
    assert len(one) == len(twenty) == 3, twenty  # the catalogue version, the page and the tree below it


async def test_the_ids_a_product_filter_by_category_matches(shop):
    # The admin's view: a category and everything below it
    assert set(await category_ids_with_descendants([shop["Clothes"].id])) == {
        shop[n].id for n in ("Clothes", "Tops", "Shirts", "Staff only", "Archive", "Old tops")
    }
    # The store's: only what a shopper may see, nothing for a hidden category
    assert set(await category_ids_with_descendants([shop["Clothes"].id, "pcat_nope"], shown_only=True)) == {
        shop[n].id for n in ("Clothes", "Tops", "Shirts")
    }
    assert await category_ids_with_descendants([shop["Old tops"].id], shown_only=True) == []
    assert await category_ids_with_descendants([]) == []

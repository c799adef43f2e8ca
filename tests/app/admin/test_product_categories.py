"""Admin product categories: `/admin/product-categories` (Medusa's test `admin/product-category.ts`)."""

import asyncio

import pytest

from models import Product, ProductCategory
from tests.conftest import count_queries

CATEGORY_COLUMNS = {
    "id", "name", "description", "handle", "is_active", "is_internal", "rank", "parent_category_id",
    "created_at", "updated_at", "metadata",
}
SHOWN = CATEGORY_COLUMNS | {"parent_category", "category_children"}


async def create(client, headers, **body) -> dict:
    r = await client.post("/admin/product-categories", json=body, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["product_category"]


async def update(client, headers, category_id: str, **body):
    return await client.post(f"/admin/product-categories/{category_id}", json=body, headers=headers)


async def get(client, headers, category_id: str, query: str = "") -> dict:
    r = await client.get(f"/admin/product-categories/{category_id}{query}", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["product_category"]


async def listed(client, headers, query: str = "") -> dict:
    r = await client.get(f"/admin/product-categories{query}", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


async def category(name: str, parent: ProductCategory | None = None, rank: int = 0, **columns) -> ProductCategory:
    return await ProductCategory.create(
        name=name, handle=name.lower().replace(" ", "-"), parent_category_id=parent.id if parent else None,
        rank=rank, **columns,
    )


async def ranks_of(parent_id: str | None) -> list[tuple[str, int]]:
    rows = await ProductCategory.filter(parent_category_id=parent_id).order_by("rank")
    return [(c.name, c.rank) for c in rows]


async def assert_ranks_dense() -> None:
    """Every set of siblings is ranked 0..n-1."""
    by_parent: dict = {}
    for c in await ProductCategory.all():
        by_parent.setdefault(c.parent_category_id, []).append(c.rank)
    for parent_id, ranks in by_parent.items():
        assert sorted(ranks) == list(range(len(ranks))), (parent_id, ranks)


def ids(items: list[dict]) -> list[str]:
    return [i["id"] for i in items]


async def batch(client, headers, category_id: str, method: str, product_ids: list[str], query: str = ""):
    return await client.request(
        method, f"/admin/product-categories/{category_id}/products/batch{query}",
        json={"product_ids": [{"id": p} for p in product_ids]}, headers=headers,
    )


async def categories_of(product_id: str) -> set[str]:
    product = await Product.get(id=product_id).prefetch_related("categories")
    return {c.id for c in product.categories}


@pytest.fixture
async def tree():
    """Mens > Sweaters > (Wool, Cashmere, Cotton); Womens."""
    mens = await category("Mens")
    womens = await category("Womens", rank=1)
    sweaters = await category("Sweaters", mens)
    wool = await category("Wool", sweaters, 0)
    cashmere = await category("Cashmere", sweaters, 1)
    cotton = await category("Cotton", sweaters, 2)
    return {c.name: c for c in (mens, womens, sweaters, wool, cashmere, cotton)}


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/product-categories"),
    ("POST", "/admin/product-categories"),
    ("GET", "/admin/product-categories/pcat_1"),
    ("POST", "/admin/product-categories/pcat_1"),
    ("DELETE", "/admin/product-categories/pcat_1"),
    ("POST", "/admin/product-categories/pcat_1/products/batch"),
    ("DELETE", "/admin/product-categories/pcat_1/products/batch"),
])
async def test_every_admin_route_needs_a_signed_in_user(client, method, path):
    await ProductCategory.create(id="pcat_1", name="Mens", handle="mens")
    body = {"name": "Hijacked"} if path.endswith("pcat_1") or method == "GET" else {"product_ids": []}
    r = await client.request(method, path, json=body if method != "GET" else None)
    assert r.status_code == 401
    assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert [(c.id, c.name) for c in await ProductCategory.all()] == [("pcat_1", "Mens")]


async def test_the_dashboard_sees_the_categories_feature_switched_on(client, admin_headers):
    r = await client.get("/admin/store", headers=admin_headers)
    flags = {f["key"]: f["value"] for f in r.json()["store"]["feature_flags"]}
    assert flags["product_categories"] is True


# ---------------------------------------------------------------- create


async def test_create_answers_200_with_medusas_defaults_and_a_handle_from_the_name(client, admin_headers):
    created = await create(client, admin_headers, name="Summer Sale 2024", metadata={"source": "ui"})
    assert set(created) == SHOWN
    assert created["id"].startswith("pcat_")
    assert created["handle"] == "summer-sale-2024"
    assert (created["is_active"], created["is_internal"], created["description"]) == (False, False, "")
    assert (created["rank"], created["parent_category_id"], created["parent_category"]) == (0, None, None)
    assert created["category_children"] == [] and created["metadata"] == {"source": "ui"}


async def test_a_new_category_goes_last_among_its_siblings(client, admin_headers, tree):
    created = await create(client, admin_headers, name="Linen", parent_category_id=tree["Sweaters"].id)
    assert created["rank"] == 3
    assert created["parent_category"]["id"] == tree["Sweaters"].id
    assert set(created["parent_category"]) == CATEGORY_COLUMNS
    root = await create(client, admin_headers, name="Kids", parent_category_id=None)
    assert root["rank"] == 2 and root["parent_category_id"] is None
    assert (await create(client, admin_headers, name="Baby", parent_category_id="null"))["rank"] == 3


async def test_a_new_category_with_a_rank_moves_the_later_siblings_down(client, admin_headers, tree):
    created = await create(client, admin_headers, name="Linen", parent_category_id=tree["Sweaters"].id, rank=1)
    assert created["rank"] == 1
    assert await ranks_of(tree["Sweaters"].id) == [("Wool", 0), ("Linen", 1), ("Cashmere", 2), ("Cotton", 3)]
    beyond = await create(client, admin_headers, name="Silk", parent_category_id=tree["Sweaters"].id, rank=99)
    assert beyond["rank"] == 4
    await assert_ranks_dense()


@pytest.mark.parametrize("body,message", [
    ({}, "name should not be empty"),
    ({"name": ""}, "name should not be empty"),
    ({"name": "Hats", "description": None}, "description must be a string"),
    ({"name": "Hats", "is_active": "yes"}, "is_active must be a boolean value"),
    ({"name": "Hats", "rank": -1}, "rank must not be less than 0"),
    ({"name": "Hats", "rank": 1.5}, "rank must be an integer number"),
    ({"name": "Hats", "mpath": "x"}, "property mpath should not exist"),
    ({"name": "x" * 256}, "name must be shorter than or equal to 255 characters"),
    ({"name": "!!!"}, "handle should not be empty: the name has no letter or digit to make one from"),
])
async def test_create_refuses_bad_input_with_a_400(client, admin_headers, body, message):
    r = await client.post("/admin/product-categories", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert not await ProductCategory.exists()


async def test_create_under_an_unknown_parent_is_a_404(client, admin_headers):
    r = await client.post("/admin/product-categories", json={"name": "Hats", "parent_category_id": "pcat_nope"},
                          headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "ProductCategory with id: pcat_nope was not found"}
    assert not await ProductCategory.exists()


async def test_a_handle_is_unique_over_all_categories(client, admin_headers, tree):
    r = await client.post("/admin/product-categories", json={"name": "Other", "handle": "mens"}, headers=admin_headers)
    assert r.status_code == 422
    assert r.json() == {
        "type": "duplicate_error", "message": "Product_category with handle mens already exists.",
        "code": "invalid_request_error",
    }
    # A handle derived from the name clashes the same way
    r = await client.post("/admin/product-categories", json={"name": "Mens"}, headers=admin_headers)
    assert r.status_code == 422
    assert await ProductCategory.filter(handle="mens").count() == 1


# ---------------------------------------------------------------- get


async def test_get_shows_the_parent_and_the_whole_subtree_in_rank_order(client, admin_headers, tree):
    await category("Merino", tree["Wool"], metadata={"fibre": "wool"}, is_active=True)
    mens = await get(client, admin_headers, tree["Mens"].id)
    assert set(mens) == SHOWN and mens["parent_category"] is None
    [sweaters] = mens["category_children"]
    assert sweaters["id"] == tree["Sweaters"].id and set(sweaters) == CATEGORY_COLUMNS | {"category_children"}
    assert [c["name"] for c in sweaters["category_children"]] == ["Wool", "Cashmere", "Cotton"]
    wool, cashmere, _ = sweaters["category_children"]
    assert [c["name"] for c in wool["category_children"]] == ["Merino"]
    assert wool["category_children"][0]["category_children"] == [] and cashmere["category_children"] == []
    # Nodes read by the tree query show their columns as any other read does
    merino = wool["category_children"][0]
    assert (merino["metadata"], merino["is_active"], wool["is_active"]) == ({"fibre": "wool"}, True, False)
    assert merino["created_at"].endswith(("Z", "+00:00")) and merino["parent_category_id"] == tree["Wool"].id
    # One level down: the parent is shown, one level deep
    shown = await get(client, admin_headers, tree["Sweaters"].id)
    assert shown["parent_category"]["id"] == tree["Mens"].id and "category_children" not in shown["parent_category"]


async def test_get_without_the_tree_shows_direct_children_and_honours_expand_and_fields(client, admin_headers, tree):
    flat = await get(client, admin_headers, tree["Mens"].id, "?include_descendants_tree=false")
    assert [c["name"] for c in flat["category_children"]] == ["Sweaters"]
    assert "category_children" not in flat["category_children"][0]
    bare = await get(client, admin_headers, tree["Mens"].id, "?expand=&fields=name,handle")
    assert bare == {"id": tree["Mens"].id, "name": "Mens", "handle": "mens"}


async def test_get_of_an_unknown_category_is_medusas_404(client, admin_headers):
    r = await client.get("/admin/product-categories/pcat_missing", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "ProductCategory with id: pcat_missing was not found"}
    r = await client.get(f"/admin/product-categories/{'x' * 300}", headers=admin_headers)
    assert r.status_code == 404


@pytest.mark.parametrize("query,message", [
    ("?expand=products", "Requested relations [products] are not valid"),
    ("?fields=mpath", "Requested fields [mpath] are not valid"),
    ("?include_descendants_tree=maybe", "include_descendants_tree must be a boolean value"),
])
async def test_get_refuses_unknown_relations_and_fields(client, admin_headers, tree, query, message):
    r = await client.get(f"/admin/product-categories/{tree['Mens'].id}{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


# ---------------------------------------------------------------- list


async def test_list_orders_by_rank_then_handle_with_parents_and_direct_children(client, admin_headers, tree):
    body = await listed(client, admin_headers)
    assert (body["count"], body["offset"], body["limit"]) == (6, 0, 100)
    names = [c["name"] for c in body["product_categories"]]
    # Across levels, as Medusa orders them: rank, then handle
    assert names == ["Mens", "Sweaters", "Wool", "Cashmere", "Womens", "Cotton"]
    sweaters = body["product_categories"][1]
    assert set(sweaters) == SHOWN and sweaters["parent_category"]["id"] == tree["Mens"].id
    assert [c["name"] for c in sweaters["category_children"]] == ["Wool", "Cashmere", "Cotton"]
    assert all("category_children" not in c for c in sweaters["category_children"])


@pytest.mark.parametrize("query,expected", [
    ("?q=WOO", ["Wool"]),
    ("?q=men", ["Mens", "Womens"]),
    ("?handle=sweaters", ["Sweaters"]),
    ("?is_internal=true", ["Cotton"]),
    ("?is_active=true", ["Womens"]),
    ("?is_internal=false&parent_category_id=SWEATERS", ["Wool", "Cashmere"]),
    ("?parent_category_id=null", ["Mens", "Womens"]),
    ("?parent_category_id=pcat_none", []),
])
async def test_list_filters(client, admin_headers, tree, query, expected):
    await ProductCategory.filter(id=tree["Cotton"].id).update(is_internal=True)
    await ProductCategory.filter(id=tree["Womens"].id).update(is_active=True)
    body = await listed(client, admin_headers, query.replace("SWEATERS", tree["Sweaters"].id))
    assert [c["name"] for c in body["product_categories"]] == expected
    assert body["count"] == len(expected)


async def test_list_with_the_descendants_tree_nests_every_level(client, admin_headers, tree):
    body = await listed(client, admin_headers, "?parent_category_id=null&include_descendants_tree=true")
    mens, womens = body["product_categories"]
    assert womens["category_children"] == []
    [sweaters] = mens["category_children"]
    assert [c["name"] for c in sweaters["category_children"]] == ["Wool", "Cashmere", "Cotton"]
    assert all(c["category_children"] == [] for c in sweaters["category_children"])


async def test_list_clamps_the_limit_honours_order_and_refuses_unknown_keys(client, admin_headers, tree):
    body = await listed(client, admin_headers, "?limit=1000&offset=1&order=-name")
    assert body["limit"] == 100 and body["offset"] == 1 and body["count"] == 6
    assert [c["name"] for c in body["product_categories"]] == ["Womens", "Sweaters", "Mens", "Cotton", "Cashmere"]
    for query, message in (
        ("?color=red", "property color should not exist"),
        ("?expand=products", "Requested relations [products] are not valid"),
        ("?order=mpath", "Order field mpath is not valid"),
        ("?is_active=maybe", "is_active must be a boolean value"),
    ):
        r = await client.get(f"/admin/product-categories{query}", headers=admin_headers)
        assert r.status_code == 400 and r.json() == {"type": "invalid_data", "message": message}, query


async def make_forest(roots: int) -> None:
    """`roots` categories, each with a child and a grandchild: three levels deep."""
    for i in range(roots):
        root = await ProductCategory.create(name=f"Root {i}", handle=f"root-{i}", rank=i)
        child = await ProductCategory.create(name=f"Child {i}", handle=f"child-{i}", parent_category_id=root.id)
        await ProductCategory.create(name=f"Leaf {i}", handle=f"leaf-{i}", parent_category_id=child.id)


async def test_a_list_with_the_tree_runs_the_same_statements_for_1_or_20_categories(client, admin_headers):
    await make_forest(1)
    query = "/admin/product-categories?parent_category_id=null&include_descendants_tree=true"
    async with count_queries() as one:
        r1 = await client.get(query, headers=admin_headers)
    await ProductCategory.all().delete()
    await make_forest(20)
    async with count_queries() as twenty:
        r20 = await client.get(query, headers=admin_headers)
    assert r1.json()["count"] == 1 and r20.json()["count"] == 20
    leaves = [root["category_children"][0]["category_children"][0]["name"] for root in r20.json()["product_categories"]]
    assert leaves == [f"Leaf {i}" for i in range(20)]
    # The admin's sign-in check, the page (its count is known from a short page), the whole tree below it
    assert len(one) == len(twenty) == 3, twenty


# ---------------------------------------------------------------- update


async def test_update_changes_fields_merges_metadata_and_keeps_the_rank(client, admin_headers, tree):
    await ProductCategory.filter(id=tree["Womens"].id).update(metadata={"keep": 1, "drop": 2})
    r = await update(client, admin_headers, tree["Womens"].id, name="Ladies", handle="ladies", is_active=True,
                     is_internal=True, description="For her", metadata={"drop": "", "new": 3})
    assert r.status_code == 200, r.text
    shown = r.json()["product_category"]
    assert (shown["name"], shown["handle"], shown["description"]) == ("Ladies", "ladies", "For her")
    assert (shown["is_active"], shown["is_internal"], shown["rank"]) == (True, True, 1)
    assert shown["metadata"] == {"keep": 1, "new": 3}


async def test_a_rank_change_moves_the_siblings_between(client, admin_headers, tree):
    r = await update(client, admin_headers, tree["Cotton"].id, rank=0)
    assert r.status_code == 200 and r.json()["product_category"]["rank"] == 0
    assert await ranks_of(tree["Sweaters"].id) == [("Cotton", 0), ("Wool", 1), ("Cashmere", 2)]
    await update(client, admin_headers, tree["Cotton"].id, rank=1)
    assert await ranks_of(tree["Sweaters"].id) == [("Wool", 0), ("Cotton", 1), ("Cashmere", 2)]
    r = await update(client, admin_headers, tree["Wool"].id, rank=99)  # beyond the siblings: last
    assert r.json()["product_category"]["rank"] == 2
    assert await ranks_of(tree["Sweaters"].id) == [("Cotton", 0), ("Cashmere", 1), ("Wool", 2)]
    await assert_ranks_dense()


async def test_a_move_closes_the_gap_in_the_old_parent_and_goes_last_in_the_new(client, admin_headers, tree):
    r = await update(client, admin_headers, tree["Wool"].id, parent_category_id=tree["Mens"].id)
    assert r.status_code == 200, r.text
    moved = r.json()["product_category"]
    assert moved["parent_category"]["id"] == tree["Mens"].id and moved["rank"] == 1
    assert await ranks_of(tree["Sweaters"].id) == [("Cashmere", 0), ("Cotton", 1)]
    assert await ranks_of(tree["Mens"].id) == [("Sweaters", 0), ("Wool", 1)]
    # With a rank, it goes there; null makes it a root
    await update(client, admin_headers, tree["Cashmere"].id, parent_category_id=tree["Mens"].id, rank=0)
    assert await ranks_of(tree["Mens"].id) == [("Cashmere", 0), ("Sweaters", 1), ("Wool", 2)]
    r = await update(client, admin_headers, tree["Sweaters"].id, parent_category_id=None, rank=1)
    assert r.json()["product_category"]["parent_category"] is None
    assert await ranks_of(None) == [("Mens", 0), ("Sweaters", 1), ("Womens", 2)]
    assert [c["name"] for c in r.json()["product_category"]["category_children"]] == ["Cotton"]
    await assert_ranks_dense()


async def test_the_dashboards_drag_to_the_top_level_moves_a_subtree(client, admin_headers, tree):
    r = await update(client, admin_headers, tree["Sweaters"].id, parent_category_id="null", rank=0)
    assert r.status_code == 200
    assert await ranks_of(None) == [("Sweaters", 0), ("Mens", 1), ("Womens", 2)]
    assert await ranks_of(tree["Sweaters"].id) == [("Wool", 0), ("Cashmere", 1), ("Cotton", 2)]


@pytest.mark.parametrize("target", ["Mens", "Sweaters", "Wool"])
async def test_a_category_cannot_move_under_itself_or_its_descendants(client, admin_headers, tree, target):
    r = await update(client, admin_headers, tree["Mens"].id, parent_category_id=tree[target].id)
    assert r.status_code == 400
    assert r.json() == {
        "type": "invalid_data",
        "message": f"ProductCategory {tree['Mens'].id} cannot be moved under itself or one of its descendants",
    }
    assert (await ProductCategory.get(id=tree["Mens"].id)).parent_category_id is None
    await assert_ranks_dense()


@pytest.mark.parametrize("body,status,message", [
    ({"rank": -1}, 400, "rank must not be less than 0"),
    ({"invalid_property": "x"}, 400, "property invalid_property should not exist"),
    ({"name": None}, 400, "name must be a string"),
    ({"handle": ""}, 400, "handle should not be empty"),
    ({"description": None}, 400, "description must be a string"),
    ({"handle": "womens"}, 422, "Product_category with handle womens already exists."),
    ({"parent_category_id": "pcat_nope"}, 404, "ProductCategory with id: pcat_nope was not found"),
])
async def test_update_refuses_bad_input_and_changes_nothing(client, admin_headers, tree, body, status, message):
    r = await update(client, admin_headers, tree["Mens"].id, **body)
    assert r.status_code == status
    assert r.json()["message"] == message
    mens = await ProductCategory.get(id=tree["Mens"].id)
    assert (mens.name, mens.handle, mens.parent_category_id, mens.rank) == ("Mens", "mens", None, 0)


async def test_update_of_an_unknown_category_is_a_404(client, admin_headers):
    r = await update(client, admin_headers, "not-found-id", name="testing")
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "ProductCategory with id: not-found-id was not found"}


async def chain(levels: int, prefix: str) -> list[ProductCategory]:
    """`levels` categories, each the only child of the one before."""
    out: list[ProductCategory] = []
    for i in range(levels):
        out.append(await ProductCategory.create(
            name=f"{prefix} {i}", handle=f"{prefix}-{i}", parent_category_id=out[-1].id if out else None,
        ))
    return out


async def test_the_tree_keeps_to_64_levels(client, admin_headers):
    deep = await chain(64, "deep")
    shown = await get(client, admin_headers, deep[0].id)  # the whole tree still encodes
    for _ in range(63):
        [shown] = shown["category_children"]
    assert shown["id"] == deep[-1].id and shown["category_children"] == []
    too_deep = {"type": "invalid_data", "message": "Product categories can be nested at most 64 levels deep"}
    r = await client.post("/admin/product-categories", json={"name": "Deeper", "parent_category_id": deep[-1].id},
                          headers=admin_headers)
    assert r.status_code == 400 and r.json() == too_deep
    # Moving a two-level subtree under level 63 would make 65 levels
    short = await chain(2, "short")
    r = await update(client, admin_headers, short[0].id, parent_category_id=deep[-2].id)
    assert r.status_code == 400 and r.json() == too_deep
    r = await update(client, admin_headers, short[1].id, parent_category_id=deep[-2].id)
    assert r.status_code == 200 and r.json()["product_category"]["rank"] == 1


# ---------------------------------------------------------------- delete


async def test_delete_removes_the_category_and_its_product_links_and_closes_the_gap(client, admin_headers, tree, seeded):
    await tree["Wool"].products.add(await Product.get(id="prod_sweatshirt"))
    r = await client.delete(f"/admin/product-categories/{tree['Wool'].id}", headers=admin_headers)
    assert r.status_code == 200
    assert r.json() == {"id": tree["Wool"].id, "object": "product-category", "deleted": True}
    assert not await ProductCategory.exists(id=tree["Wool"].id)
    assert await categories_of("prod_sweatshirt") == set()
    assert await ranks_of(tree["Sweaters"].id) == [("Cashmere", 0), ("Cotton", 1)]
    r = await client.get(f"/admin/product-categories/{tree['Wool'].id}", headers=admin_headers)
    assert r.status_code == 404


async def test_delete_of_a_category_with_children_is_refused(client, admin_headers, tree):
    r = await client.delete(f"/admin/product-categories/{tree['Sweaters'].id}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {
        "type": "not_allowed",
        "message": f"Deleting ProductCategory ({tree['Sweaters'].id}) with category children is not allowed",
    }
    assert await ProductCategory.filter(parent_category_id=tree["Sweaters"].id).count() == 3


async def test_delete_of_an_unknown_category_answers_200(client, admin_headers):
    r = await client.delete("/admin/product-categories/invalid-id", headers=admin_headers)
    assert r.status_code == 200
    assert r.json() == {"id": "invalid-id", "object": "product-category", "deleted": True}


# ---------------------------------------------------------------- concurrency


async def test_concurrent_creates_and_moves_keep_every_rank_set_dense(client, admin_headers, tree):
    creates = [
        client.post("/admin/product-categories", headers=admin_headers,
                    json={"name": f"New {i}", "parent_category_id": tree["Sweaters"].id})
        for i in range(6)
    ]
    moves = [update(client, admin_headers, tree[name].id, parent_category_id=tree["Womens"].id)
             for name in ("Wool", "Cashmere")]
    answers = await asyncio.gather(*creates, *moves)
    assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
    assert await ProductCategory.filter(parent_category_id=tree["Sweaters"].id).count() == 7
    await assert_ranks_dense()


# ---------------------------------------------------------------- products


async def test_batch_add_links_products_once_and_answers_the_category(client, admin_headers, tree, seeded):
    r = await batch(client, admin_headers, tree["Wool"].id, "POST", ["prod_sweatshirt", "prod_hoodie"])
    assert r.status_code == 200, r.text
    shown = r.json()["product_category"]
    assert shown["id"] == tree["Wool"].id and set(shown) == SHOWN
    # Adding again, with a repeat, changes nothing
    r = await batch(client, admin_headers, tree["Wool"].id, "POST", ["prod_hoodie", "prod_hoodie"])
    assert r.status_code == 200
    assert await categories_of("prod_hoodie") == {tree["Wool"].id}
    assert await categories_of("prod_sweatshirt") == {tree["Wool"].id}


async def test_batch_remove_unlinks_only_the_products_named(client, admin_headers, tree, seeded):
    await batch(client, admin_headers, tree["Wool"].id, "POST", ["prod_sweatshirt", "prod_hoodie"])
    r = await batch(client, admin_headers, tree["Wool"].id, "DELETE", ["prod_hoodie", "prod_socks"])
    assert r.status_code == 200, r.text
    assert r.json()["product_category"]["id"] == tree["Wool"].id
    assert await categories_of("prod_hoodie") == set()
    assert await categories_of("prod_sweatshirt") == {tree["Wool"].id}


@pytest.mark.parametrize("method", ["POST", "DELETE"])
async def test_batch_with_an_unknown_product_changes_nothing(client, admin_headers, tree, seeded, method):
    await tree["Wool"].products.add(await Product.get(id="prod_hoodie"))
    r = await batch(client, admin_headers, tree["Wool"].id, method, ["prod_sweatshirt", "prod_nope", "prod_hoodie"])
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": "Products prod_nope do not exist"}
    assert await categories_of("prod_sweatshirt") == set()
    assert await categories_of("prod_hoodie") == {tree["Wool"].id}


@pytest.mark.parametrize("body,message", [
    ({}, "product_ids should not be empty"),
    ({"product_ids": ["prod_hoodie"]}, "product_ids must be an object"),
    ({"product_ids": [{}]}, "id should not be empty"),
    ({"product_ids": [{"id": 7}]}, "id must be a string"),
])
async def test_batch_refuses_a_malformed_body(client, admin_headers, tree, body, message):
    r = await client.post(f"/admin/product-categories/{tree['Wool'].id}/products/batch", json=body,
                          headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_batch_on_an_unknown_category_is_a_404_and_expand_is_checked(client, admin_headers):
    r = await batch(client, admin_headers, "invalid-category-id", "POST", [])
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "ProductCategory with id: invalid-category-id was not found"}
    r = await batch(client, admin_headers, "invalid-category-id", "POST", [], "?expand=products")
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": "Requested relations [products] are not valid"}

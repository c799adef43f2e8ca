"""The product lists' `q` (services/catalog/product_q.py: with three letters or digits in a row,
one query per place it looks, in one `UNION ALL`) finds the products, the count and the order that
one condition over the products joined to their variants and collection finds (the form Medusa
v1's list writes, and ours for a shorter `q`), on both backends; on PostgreSQL each place is read
by its trigram index (migration 0030)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone

from tortoise import Tortoise
from tortoise.expressions import Q, Subquery
from tortoise.transactions import in_transaction

from models import Product, ProductCollection, ProductVariant
from services.catalog.product_q import places, repeats_products
import services.core.listing as listing
import services.core.search_pages as search_pages
from services.catalog.products import (
    AdminProductFilter, StoreProductFilter, _admin_filtered, _found, _matching, _once, list_admin_products,
    list_store_products,
)
from services.core.listing import FindConfig, _Count, _ordered, _statement, find_page
from services.core.search_pages import AnyStatements
from tests.conftest import count_queries, requires_postgres

# Titles, SKUs (the middle of one, in the other case), descriptions, a collection's title, variant
# titles, LIKE's own wildcards beside letters, nothing at all.
QS = ["shirt", "T-SHIRT-", "shirt-m", "bag-bl", "DUCT 7 FOR", "ssentia", "Summer", "ort%", "shi_t", "zzz", "medusa"]
# Too short for a trigram: asked through the joins.
SHORT_QS = ["-m", "ag-bl", "%", "_", "S"]
CONFIGS = [FindConfig(limit=3), FindConfig(limit=50, order=(("title", False),)), FindConfig(limit=2, offset=2)]


def _joined(q: str, found: list[str]):
    """The list's `q` as one OR across the joins (live variants and collection only, as Medusa v1
    joins them), each product once."""
    matches = Product.filter(deleted_at=None).filter(
        Q(title__icontains=q) | Q(description__icontains=q)
        | Q(variants__title__icontains=q, variants__deleted_at=None)
        | Q(variants__sku__icontains=q, variants__deleted_at=None)
        | Q(collection__title__icontains=q, collection__deleted_at=None) | Q(id__in=found)
    )
    return Product.filter(id__in=Subquery(matches.values_list("id", flat=True)))


def _by_union(q: str, found: list[str]):
    assert not repeats_products(q), f"{q!r} is asked through the joins"
    return _matching(Product.filter(deleted_at=None), AdminProductFilter(q=q), [], found)


async def test_q_by_union_finds_the_products_count_and_order_the_joins_find(seeded):
    # Given a soft-deleted variant, a soft-deleted product, variants named as sizes, and a
    # collection renamed in another case
    now = datetime.now(timezone.utc)
    await ProductVariant.filter(id="variant_t_shirt_m").update(deleted_at=now)
    await Product.filter(id="prod_cap").update(deleted_at=now)
    await ProductCollection.filter(id="pcol_summer").update(title="SUMMER Sale")
    for q in QS:
        for found in ([], ["prod_mug", "prod_cap"]):
            for config in CONFIGS:
                # When a page is read both ways
                mine, my_count = await find_page(_by_union(q, found), config)
                theirs, their_count = await find_page(_joined(q, found), config)
                # I expect the same products in the same order, and the same count
                assert ([p.id for p in mine], my_count) == ([p.id for p in theirs], their_count), (q, found, config)


async def test_the_admin_list_reads_q_place_by_place_with_the_joins_answer(seeded):
    # Given the same changes as above
    now = datetime.now(timezone.utc)
    await ProductVariant.filter(id="variant_t_shirt_m").update(deleted_at=now)
    await Product.filter(id="prod_cap").update(deleted_at=now)
    await ProductCollection.filter(id="pcol_summer").update(title="SUMMER Sale")
    for q in QS:
        f = AdminProductFilter(q=q)
        found = await _found(f, False)
        for config in CONFIGS + [FindConfig(limit=2, offset=1, relations=("variants",))]:
            # When the admin list reads a page (each place on its own, services/catalog/products.py)
            page = await list_admin_products(f, config)
            theirs, their_count = await find_page(_joined(q, found), replace(config, relations=()))
            # I expect the joins' products, order and count
            assert ([p.id for p in page.products], page.count) == ([p.id for p in theirs], their_count), (q, config)
    # and the other filters still apply beside q
    page = await list_admin_products(AdminProductFilter(q="shirt", status=["draft"]), FindConfig(limit=50))
    assert all(p.status == "draft" for p in page.products)


async def test_a_short_q_asked_through_the_joins_lists_each_product_once(seeded):
    for q in SHORT_QS:
        assert repeats_products(q)
        f = AdminProductFilter(q=q)
        mine, my_count = await find_page(_once(_matching(Product.filter(deleted_at=None), f, [], []), f, []),
                                         FindConfig(limit=50))
        theirs, their_count = await find_page(_joined(q, []), FindConfig(limit=50))
        assert ([p.id for p in mine], my_count) == ([p.id for p in theirs], their_count), q
    assert (await find_page(_joined("-m", []), FindConfig(limit=50)))[1] >= 2  # "-M" of several SKUs


async def test_q_matches_some_products_and_not_others(seeded):
    # A guard on the comparison above: its cases find something, and not everything
    shirt, _ = await find_page(_by_union("shirt-m", []), FindConfig(limit=50))
    assert {p.id for p in shirt} == {"prod_t_shirt", "prod_sweatshirt"}
    assert (await find_page(_by_union("zzz", []), FindConfig()))[1] == 0


async def _listed(q: str, **filters) -> dict[str, set[str]]:
    """The products each list finds for `q`: the admin's (page by page, and through the joins for
    its count's estimate) and the store's."""
    f = AdminProductFilter(q=q, **filters)
    admin = await list_admin_products(f, FindConfig(limit=50))
    joined, _ = await find_page(await _admin_filtered(f, await _found(f, False), joined=True), FindConfig(limit=50))
    out = {"admin": {p.id for p in admin.products}, "admin joined": {p.id for p in joined}}
    if not filters:
        out["store"] = {p.id for p in (await list_store_products(StoreProductFilter(q=q), FindConfig(limit=50))).products}
    return out


async def test_a_deleted_variant_or_collection_no_longer_finds_its_product(seeded):
    # Given the mug with a variant and a collection whose names nothing else holds
    variant = await ProductVariant.filter(product_id="prod_mug", deleted_at=None).first()
    await ProductVariant.filter(id=variant.id).update(title="Zanzibar edition", sku="ZANZI-77")
    collection = await ProductCollection.create(title="Quixotic things", handle="quixotic")
    await Product.filter(id="prod_mug").update(collection_id=collection.id)
    qs = ["zanzi", "-77", "edition", "quixotic", "c thi"]  # by the trigram indexes, and through the joins
    for q in qs:
        assert all(found == {"prod_mug"} for found in (await _listed(q)).values()), q
    # When the variant and the collection are soft-deleted
    now = datetime.now(timezone.utc)
    await ProductVariant.filter(id=variant.id).update(deleted_at=now)
    await ProductCollection.filter(id=collection.id).update(deleted_at=now)
    # I expect no list to find the mug by them any more, as Medusa v1's join of live rows does not
    for q in qs:
        assert all(found == set() for found in (await _listed(q)).values()), q
    # but a list of soft-deleted products (the admin's `deleted_at`) to find it by them, deleted
    # with them, as Medusa's list reads deleted rows then
    await Product.filter(id="prod_mug").update(deleted_at=now)
    for q in qs:
        found = await _listed(q, deleted_at={"lte": now})
        assert all(ids == {"prod_mug"} for ids in found.values()), (q, found)


def _nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", ()):
        yield from _nodes(child)


async def _plan(sql: str, params: tuple, seqscan: bool = False) -> list[dict]:
    # Sequential scans priced out of reach (unless `seqscan`): a test shop is too small for the
    # planner to prefer an index by itself.
    async with in_transaction() as connection:
        if not seqscan:
            await connection.execute_query("SET LOCAL enable_seqscan = off")
        _, rows = await connection.execute_query(f"EXPLAIN (FORMAT JSON) {sql}", list(params))
    plan = next(iter(dict(rows[0]).values()))
    return list(_nodes((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]))


FILLER_VARIANTS = 1000  # a few hundred already tip the planner; the margin costs a fraction of a second
TRIGRAM_INDEXES = {"product_title_trgm", "product_description_trgm", "product_variant_title_trgm",
                   "product_variant_sku_trgm"}


@requires_postgres("plans are PostgreSQL's")
async def test_q_reads_each_place_it_looks_by_its_trigram_index(seeded):
    # Given a catalogue of some thousands of variants, analyzed: in a test shop's few, a whole live
    # variants' partial index (SKU, UPC …) looks as cheap to read as a trigram index's matches
    await ProductVariant.bulk_create([
        ProductVariant(product_id="prod_mug", title=f"Filler {i}", sku=f"FILLER-{i}", inventory_quantity=0)
        for i in range(FILLER_VARIANTS)])
    await Tortoise.get_connection("default").execute_script("ANALYZE product; ANALYZE product_variant")
    qs = _by_union("hoodie", ["prod_mug"])
    page = _statement(_ordered(qs, FindConfig(limit=15)).offset(0).limit(15).values_list("id", flat=True))
    count = _Count.of(qs, "postgres")
    for sql, params in (page, (count.sql, count.params)):
        nodes = await _plan(sql, params)
        used = {n.get("Index Name") for n in nodes}
        assert TRIGRAM_INDEXES <= used, f"{sql} does not use {TRIGRAM_INDEXES - used}"
        scanned = {n.get("Relation Name") for n in nodes if n["Node Type"] == "Seq Scan"}
        assert not scanned & {"product", "product_variant"}, f"{sql} reads every row of {scanned}"


@requires_postgres("estimates are PostgreSQL's")
async def test_a_q_count_past_the_exact_limit_is_estimated_from_the_joined_form(seeded, monkeypatch):
    # Given the ten demo products, each titled "Medusa …", fresh statistics, and three exact rows
    monkeypatch.setattr(listing, "COUNT_EXACT_UP_TO", 3)
    monkeypatch.setattr(search_pages, "SEARCH_COUNT_EXACT_UP_TO", 3)
    await Tortoise.get_connection("default").execute_script("ANALYZE product; ANALYZE product_variant")
    f = AdminProductFilter(q="medusa")
    # When a page of two is listed
    async with count_queries() as statements:
        page = await list_admin_products(f, FindConfig(limit=2))
    # I expect the count estimated from the plan of the joins, not of the union, which PostgreSQL
    # guesses at a couple of hundred distinct rows whatever they are
    estimates = [s for s in statements if "EXPLAIN" in s]
    assert len(estimates) == 1 and "UNION" not in estimates[0] and "product_variant" in estimates[0]
    joined = await _admin_filtered(f, await _found(f, False), joined=True)
    plan = await _plan(*_statement(joined.values_list("id", flat=True)), seqscan=True)
    # (never less than what was counted: each place up to four, the ten products at most)
    assert len(page.products) == 2 and (page.count == max(int(plan[0]["Plan Rows"]), 4) or 4 < page.count <= 10)



@requires_postgres("plans are PostgreSQL's")
async def test_the_admin_lists_places_are_read_without_reading_every_product(seeded):
    unsearched = await _admin_filtered(AdminProductFilter(), [])
    statements = AnyStatements(
        unsearched, places("hoodie", ["prod_mug"]), FindConfig(limit=15), True)
    for sql, params in (statements.matched, statements.page, statements.count):
        nodes = await _plan(sql, tuple(params))
        scanned = {n.get("Relation Name") for n in nodes if n["Node Type"] == "Seq Scan"}
        assert not scanned & {"product", "product_variant"}, f"{sql} reads every row of {scanned}"

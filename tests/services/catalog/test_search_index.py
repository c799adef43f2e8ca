"""The search index's upkeep (models/migrations/0026_product_search_batched.py, services/catalog/
search_index.py): each product's document rebuilt once per transaction (PostgreSQL, at commit) or
per import chunk (SQLite's batch), never once per row, and still in the writing transaction: it
commits and rolls back with the product change, and a search inside that transaction sees it."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest
from tortoise import connections
from tortoise.transactions import in_transaction

from models import Product, ProductTag, ProductVariant
from services.catalog import search_index
from services.catalog.search import search_product_ids, search_terms
from services.core.db import atomic
from tests.conftest import BACKEND, requires_postgres
from tests.services.batch_jobs.test_product_import import (  # noqa: F401 (fixtures)
    csv_bytes, eu, files, import_job, run_to_the_end, shirt,
)


async def found(q: str) -> list[str]:
    return (await search_product_ids(search_terms(q), [], 20, 0))[0]


async def documents(connection=None) -> dict[str, str]:
    db = connection or connections.get("default")
    sql = ("SELECT product_id, body FROM product_search" if BACKEND == "postgres" else
           "SELECT k.product_id, s.head || ' ' || s.mid || ' ' || s.tail FROM product_search s"
           " JOIN product_search_key k ON k.rowid = s.rowid")
    _, rows = await db.execute_query(sql)
    return {row[0]: " ".join(str(row[1]).split()) for row in rows}


async def a_product(handle: str, **fields) -> Product:
    product = await Product.create(title=fields.pop("title", handle.title()), handle=handle, status="published",
                                   **fields)
    for size in ("S", "M"):
        await ProductVariant.create(product_id=product.id, title=size, sku=f"{handle}-{size}".upper(),
                                    inventory_quantity=1)
    await product.tags.add(await ProductTag.create(value=f"{handle}-tag"))
    return product


async def test_an_import_indexes_each_product_with_its_variants_and_tags_and_a_reimport_follows(files, admin, eu):
    # Given a file of two products, one of them with three variants
    rows = [shirt("S", "SHIRT-S"), shirt("M", "SHIRT-M"), shirt("L", "SHIRT-L"),
            {**shirt("One", "CAP-1"), "Product Handle": "cap", "Product Title": "Wool Cap", "Product Tags": "winter",
             "Option 1 Value": "One"}]
    job = await import_job(admin.id, csv_bytes(rows))
    assert (await run_to_the_end(job.id)).status == "completed"
    # I expect both found by title, SKU, tag and variant title, each with one document
    shirt_id = (await Product.get(handle="t-shirt")).id
    cap_id = (await Product.get(handle="cap")).id
    for q, expected in (("medusa t-shirt", [shirt_id]), ("shirt-l", [shirt_id]), ("winter", [cap_id]),
                        ("wool", [cap_id]), ("cotton", [shirt_id])):
        assert await found(q) == expected, q
    docs = await documents()
    assert set(docs) >= {shirt_id, cap_id}
    assert all(sku in docs[shirt_id] for sku in ("SHIRT-S", "SHIRT-M", "SHIRT-L"))
    assert await connections.get("default").execute_query_dict("SELECT * FROM product_search_dirty") == []
    # When the same file comes again with the cap renamed
    rows[3]["Product Title"] = "Fleece Hat"
    job = await import_job(admin.id, csv_bytes(rows))
    assert (await run_to_the_end(job.id)).status == "completed"
    assert await found("fleece") == [cap_id]
    assert await found("wool") == []


@pytest.mark.parametrize("batched", [False, True], ids=["row by row", "batched"])
async def test_the_index_follows_variants_tags_titles_and_deletes(store_state, batched):
    hat, scarf = await a_product("hat"), await a_product("scarf")
    tag = await ProductTag.get(value="hat-tag")
    async with atomic() as unit:
        async with search_index.batch(unit.connection) if batched else _nothing():
            await ProductVariant.filter(sku="HAT-S").update(sku="BERET-S")
            await ProductVariant.filter(sku="HAT-M").update(product_id=scarf.id)  # moved to the scarf
            await ProductVariant.filter(sku="SCARF-S").update(deleted_at=datetime.now(timezone.utc))
            await ProductTag.filter(id=tag.id).update(value="headwear")
            await (await Product.get(id=scarf.id)).tags.clear()
            await Product.filter(id=scarf.id).update(title="Long Scarf")
    docs = await documents()
    assert "BERET-S" in docs[hat.id] and "HAT-M" not in docs[hat.id] and "headwear" in docs[hat.id]
    assert "HAT-M" in docs[scarf.id] and "SCARF-S" not in docs[scarf.id] and "scarf-tag" not in docs[scarf.id]
    assert await found("beret") == [hat.id]
    assert await found("headwear") == [hat.id]
    assert await found("long") == [scarf.id]
    async with atomic() as unit:
        async with search_index.batch(unit.connection) if batched else _nothing():
            await Product.filter(id=hat.id).update(deleted_at=datetime.now(timezone.utc))
            await ProductVariant.filter(product_id=scarf.id).delete()
            await Product.filter(id=scarf.id).delete()
    assert set(await documents()).isdisjoint({hat.id, scarf.id})
    assert await found("beret") == [] and await found("scarf") == []


class _nothing:
    async def __aenter__(self):
        return None

    async def __aexit__(self, *exc):
        return False


class _Rollback(Exception):
    pass


async def test_the_index_rolls_back_with_the_product_and_a_search_in_the_transaction_sees_its_writes(store_state):
    with pytest.raises(_Rollback):
        async with in_transaction():
            product = await a_product("kilt")
            assert await found("kilt-tag") == [product.id]  # inside: its own write
            raise _Rollback
    assert await found("kilt") == []
    assert "kilt" not in " ".join((await documents()).values())
    async with in_transaction():
        product = await a_product("kilt")
    assert await found("kilt-m") == [product.id]


@requires_postgres()
async def test_on_postgres_a_transaction_rebuilds_each_product_once_at_commit(store_state):
    # Given a product written row by row in one transaction (a product, two variants, a tag: four
    # writes that each touched its document under 0022's row triggers)
    # (pg_stat_xact_user_tables may still hold this backend's counts of earlier transactions,
    # flushed when it goes idle outside one: the test compares with the transaction's start.)
    stats = ("SELECT n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_xact_user_tables"
             " WHERE relname = 'product_search'")
    async with in_transaction() as connection:

        async def written() -> tuple[int, ...]:
            return tuple(a - b for a, b in zip((await connection.execute_query(stats))[1][0], start))

        start = tuple((await connection.execute_query(stats))[1][0])
        product = await a_product("poncho")
        # I expect no document written yet: only a note, for commit
        assert await written() == (0, 0, 0)
        # and one written, once, when a search in the transaction catches up
        assert await found("poncho") == [product.id]
        assert await written() == (1, 0, 0)
    assert await found("poncho-s") == [product.id]


async def test_on_sqlite_a_batch_notes_the_products_and_indexes_them_at_its_end(store_state):
    if BACKEND != "sqlite":
        pytest.skip("SQLite's pause of the row triggers")
    async with atomic() as unit:
        async with search_index.batch(unit.connection):
            product = await a_product("tabard")
            _, dirty = await unit.connection.execute_query("SELECT product_id FROM product_search_dirty")
            assert [row[0] for row in dirty] == [product.id]
            assert product.id not in await documents(unit.connection)
        assert "TABARD-S" in (await documents(unit.connection))[product.id]
        _, left = await unit.connection.execute_query(
            "SELECT (SELECT count(*) FROM product_search_dirty), (SELECT count(*) FROM product_search_pause)")
        assert tuple(left[0]) == (0, 0)
    assert await found("tabard") == [product.id]


async def _waiting_on_a_lock() -> bool:
    _, rows = await connections.get("default").execute_query(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")
    return rows[0][0] > 0


@requires_postgres()
async def test_on_postgres_two_transactions_changing_one_product_both_reach_its_document(store_state):
    product = await a_product("cape")
    rebuilt, release = asyncio.Event(), asyncio.Event()

    async def add_variant(sku: str, hold: bool) -> None:
        async with in_transaction() as connection:
            await ProductVariant.create(product_id=product.id, title=sku, sku=sku, inventory_quantity=1,
                                        using_db=connection)
            await search_index.catch_up(connection)  # as at commit
            if hold:
                rebuilt.set()
                await release.wait()

    # Given a first transaction that has rebuilt the document (with its variant) and not committed
    first = asyncio.create_task(add_variant("CAPE-RED", hold=True))
    await asyncio.wait_for(rebuilt.wait(), 30)
    # When a second rebuilds it meanwhile (it waits for the first), then the first commits
    second = asyncio.create_task(add_variant("CAPE-BLUE", hold=False))
    for _ in range(600):
        if await _waiting_on_a_lock() or second.done():
            break
        await asyncio.sleep(0.05)
    release.set()
    await asyncio.wait_for(asyncio.gather(first, second), 30)
    # I expect the document to hold both variants
    doc = (await documents())[product.id]
    assert "CAPE-RED" in doc and "CAPE-BLUE" in doc

"""The catalogue's version (services/catalog/version_reads.py): moved by triggers in the writer's own
transaction, whoever the writer is (models/migrations/0025_catalogue_version.py)."""

import asyncio
import importlib

import pytest
from tortoise import connections
from tortoise.expressions import F
from tortoise.transactions import in_transaction

from models import Product, ProductCollection, ProductVariant, SalesChannelLocation
from services.catalog.version_reads import catalogue_version, product_version
from tests.conftest import BACKEND, PATIENCE, requires_postgres
from tests.stock_location_factories import default_channel, location

MIGRATION = importlib.import_module("models.migrations.0025_catalogue_version")


async def _triggered_tables() -> set[str]:
    conn = connections.get("default")
    if BACKEND == "postgres":
        rows = await conn.execute_query_dict(
            "SELECT c.relname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
            " WHERE t.tgname IN ('catalogue_version_bump', 'catalogue_version_stock')")
    else:
        rows = await conn.execute_query_dict(
            "SELECT tbl_name AS name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'catalogue_version_%'")
    return {r["name"] for r in rows}


async def test_every_catalogue_table_moves_the_version():
    assert await _triggered_tables() == {*MIGRATION.CATALOGUE_TABLES, "product_variant", *MIGRATION.STOCK_TABLES}


def test_every_variant_column_is_watched_as_catalogue_or_stock():
    columns = set(ProductVariant._meta.fields_db_projection.values())
    assert set(MIGRATION.VARIANT_COLUMNS) | {MIGRATION.STOCK_COLUMN} == columns
    assert MIGRATION.STOCK_COLUMN not in MIGRATION.VARIANT_COLUMNS


async def test_a_raw_sql_write_moves_the_catalogue_version(seeded):
    before = await catalogue_version()
    await connections.get("default").execute_query("UPDATE product SET title = 'Raw' WHERE id = 'prod_cap'")
    assert await catalogue_version() != before


async def test_a_rolled_back_write_leaves_the_version():
    before = await catalogue_version()
    with pytest.raises(RuntimeError):
        async with in_transaction():
            await ProductCollection.create(title="Never", handle="never")
            raise RuntimeError("undo")
    assert await catalogue_version() == before


async def test_stock_moves_the_product_version_only(seeded):
    catalogue, products = await catalogue_version(), await product_version()
    variant = await ProductVariant.filter(product_id="prod_cap").first()
    await ProductVariant.filter(id=variant.id).update(inventory_quantity=variant.inventory_quantity + 5)
    assert await catalogue_version() == catalogue and await product_version() != products
    await ProductVariant.filter(id=variant.id).update(title="Renamed")
    assert await catalogue_version() != catalogue


async def test_a_location_linked_to_a_channel_moves_the_product_version_only(seeded):
    """With INVENTORY_LOCATIONS on, a channel's stock is summed over its locations: linking one
    changes what the storefront shows while no variant row moves."""
    place = await location("Second shop", channel_id=None)
    catalogue, products = await catalogue_version(), await product_version()
    await SalesChannelLocation.create(sales_channel_id=await default_channel(), location_id=place)
    assert await catalogue_version() == catalogue and await product_version() != products


async def test_a_bulk_write_in_one_transaction_moves_the_version(seeded):
    before = await catalogue_version()
    async with in_transaction():
        await Product.all().update(subtitle="Bulk")
        inside = await catalogue_version()
    after = await catalogue_version()
    assert after != before
    if BACKEND == "postgres":  # deferred to the commit: the row is locked only for it
        assert inside == before


@requires_postgres("the version row's lock matters only with concurrent writers")
async def test_concurrent_catalogue_and_stock_writers_all_commit(seeded):
    # Given transactions that each hold a variant's row (as an order's stock decrement does) and
    # then write another catalogue row, in opposite orders two by two
    firsts = {}
    for v in await ProductVariant.all().order_by("id"):
        firsts.setdefault(v.product_id, v.id)
    variants = list(firsts.values())[:4]
    before = await catalogue_version(), await product_version()
    started = asyncio.Barrier(len(variants))

    async def writer(i: int) -> None:
        mine, other = variants[i], variants[(i + 1) % len(variants)]
        async with in_transaction():
            await ProductVariant.filter(id=mine).update(inventory_quantity=F("inventory_quantity") - 1)
            await started.wait()  # every transaction holds its row before any goes further
            await Product.filter(variants__id=other).update(subtitle=f"writer {i}")

    # When they run at once (none waits on a row another holds: the version's row is taken at commit;
    # were it taken at the first write, the first writer would hold it while waiting at the barrier)
    async with asyncio.timeout(PATIENCE):
        await asyncio.gather(*(writer(i) for i in range(len(variants))))
    # I expect every one committed, and both versions moved
    assert await Product.filter(subtitle__startswith="writer ").count() == len(variants)
    after = await catalogue_version(), await product_version()
    assert after[0] != before[0] and after[1] != before[1]

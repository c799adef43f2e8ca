"""A re-run with nothing changed in Medusa writes nothing here; removing what Medusa deleted
outright walks the source's keys and ours side by side, in one byte order, on both backends."""

import io

import asyncpg
import pytest
from tortoise import Tortoise

from models import Currency
from services.migration.medusa_v1 import Progress, move
from services.migration.medusa_v1.entities import ENTITIES
from services.migration.medusa_v1.orders import trade_entities
from services.migration.medusa_v1.writer import KeysOutOfOrder, Target

TABLES = sorted({e.target for e in ENTITIES + trade_entities(30)})


def _db():
    return Tortoise.get_connection("default")


async def _watch_writes() -> dict:
    """Start noting every row written into the moved tables (PostgreSQL: each row's xmin, the
    transaction that last wrote it; SQLite: temporary triggers that count the writes)."""
    db = _db()
    if db.capabilities.dialect == "postgres":
        return {t: await _versions(t) for t in TABLES}
    await db.execute_script("CREATE TEMP TABLE IF NOT EXISTS moved_writes (tbl TEXT, what TEXT); DELETE FROM moved_writes;")
    for t in TABLES:
        for what in ("INSERT", "UPDATE", "DELETE"):
            await db.execute_script(
                f'CREATE TEMP TRIGGER IF NOT EXISTS "watch_{t}_{what}" AFTER {what} ON main."{t}" '
                f"BEGIN INSERT INTO moved_writes VALUES ('{t}', '{what}'); END;")
    return {}


async def _versions(table: str) -> dict:
    rows = await _db().execute_query_dict(f'SELECT ctid::text AS at, xmin::text AS xmin FROM "{table}"')
    return {r["at"]: r["xmin"] for r in rows}


async def _writes_since(before: dict) -> dict[str, int]:
    db = _db()
    if db.capabilities.dialect == "postgres":
        changed = {}
        for t in TABLES:
            after = await _versions(t)
            n = sum(1 for at, xmin in after.items() if before[t].get(at) != xmin) + len(before[t].keys() - after.keys())
            if n:
                changed[t] = n
        return changed
    rows = await db.execute_query_dict("SELECT tbl, count(*) AS n FROM moved_writes GROUP BY tbl")
    for t in TABLES:
        for what in ("INSERT", "UPDATE", "DELETE"):
            await db.execute_script(f'DROP TRIGGER IF EXISTS temp."watch_{t}_{what}";')
    return {r["tbl"]: r["n"] for r in rows}


async def test_a_re_run_with_nothing_changed_writes_no_row(imported, medusa_source):
    # Given the shop moved once, and every row of the moved tables watched
    before = await _watch_writes()
    # When the move runs again with nothing changed in Medusa
    report = await move(medusa_source, progress=Progress(io.StringIO()))
    # Then no row of the shop was written, not even those of the tables read whole every run
    assert await _writes_since(before) == {}
    assert [(e.name, e.written) for e in report.entities if e.written] == []
    whole = [report.entity(n) for n in ("shipping methods", "fulfillment items", "line item adjustments")]
    assert all(e.since is None and e.copied > 0 for e in whole)  # read and compared, row by row
    assert report.money_differences == []


async def test_a_changed_row_of_a_table_read_whole_is_written_alone(imported, medusa_source):
    conn = await asyncpg.connect(medusa_source.replace("postgres://", "postgresql://", 1))
    method = await conn.fetchrow("SELECT id, price FROM shipping_method ORDER BY id LIMIT 1")
    try:
        await conn.execute("UPDATE shipping_method SET price = price + 1 WHERE id = $1", method["id"])
        report = await move(medusa_source, progress=Progress(io.StringIO()))
    finally:
        await conn.execute("UPDATE shipping_method SET price = $2 WHERE id = $1", method["id"], method["price"])
        await conn.close()
    assert report.entity("shipping methods").written == 1
    assert [e.name for e in report.entities if e.written] == ["shipping methods"]
    rows = await _db().execute_query_dict("SELECT price FROM shipping_method WHERE id = '%s'" % method["id"])
    assert rows[0]["price"] == method["price"] + 1


# Byte order puts upper case before "_" before lower case; a collation such as en_US sorts
# them otherwise (and ignores "_" at first).
CODES = ["Ab", "a_b", "aB", "ab", "b", "_a", "a-b", "ZZ"]


async def _batches(keys: list[tuple], size: int = 3):
    for i in range(0, len(keys), size):
        yield keys[i:i + size]


async def test_removing_what_the_source_no_longer_has_walks_both_key_lists_in_byte_order():
    await Currency.bulk_create([Currency(code=c, symbol=c, symbol_native=c, name=c) for c in CODES])
    ours = [(c,) for c in await Currency.all().values_list("code", flat=True)]
    gone = {("a_b",), ("ab",), ("ZZ",), ("_a",)}
    keep = sorted(set(ours) - gone)  # Python's order of strings: by code point, as UTF-8's bytes

    removed = await Target().prune("currency", ("code",), _batches(keep), batch=2)

    assert removed == len(gone)
    assert sorted((c,) for c in await Currency.all().values_list("code", flat=True)) == keep


async def test_a_key_list_out_of_order_stops_the_removal_with_an_error():
    everything = sorted((c,) for c in await Currency.all().values_list("code", flat=True))
    swapped = [everything[0], everything[2], everything[1], *everything[3:]]
    with pytest.raises(KeysOutOfOrder):
        await Target().prune("currency", ("code",), _batches(swapped), batch=1000)
    assert await Currency.all().count() == len(everything)  # found before anything was removed


async def test_the_source_gives_its_keys_in_byte_order(medusa_source):
    from services.migration.medusa_v1.source import open_source

    async with open_source(medusa_source) as source:
        sql = "SELECT * FROM (VALUES ('ab'), ('a_b'), ('Ab'), ('aB'), ('_a'), ('ZZ')) v(id)"
        keys = [k async for batch in source.keys(sql, ("id",), 2) for k in batch]
    assert keys == sorted(keys) and len(keys) == 6

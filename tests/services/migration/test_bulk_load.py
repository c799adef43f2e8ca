"""What the move's bulk load into SQLite changes for its duration gives the same stored values as
before, and is put back afterwards."""

import datetime
import sqlite3

from tortoise import Tortoise

from services.migration.medusa_v1.source import open_source
from services.migration.medusa_v1.writer import quick_commits

EDGES = """SELECT * FROM (VALUES
    (1, timestamptz '2024-05-06 07:08:09+00', timestamptz '2024-05-06 07:08:09.5+02',
     timestamp '0999-01-02 03:04:05.000001', date '2024-02-29', true, NULL::timestamptz, 'x'),
    (2, timestamptz '2024-05-06 23:59:59.999999-05', NULL, NULL, NULL, false, timestamptz '1970-01-01 00:00:00+00', NULL)
) v(id, whole_second, fraction, no_zone, day, flag, nothing, other)"""


def _as_bound(value):
    """What SQLite kept of a value asyncpg read, bound through Tortoise's adapters."""
    if isinstance(value, datetime.datetime):
        return value.isoformat(" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, bool):
        return int(value)
    return value


async def test_the_source_gives_timestamps_dates_and_booleans_as_sqlite_keeps_them(medusa_source):
    async with open_source(medusa_source) as source:
        read = await source.conn.fetch(EDGES)
        as_text = await source.conn.fetch(await source.as_text(EDGES))
    assert [[_as_bound(v) for v in row.values()] for row in read] == [list(row.values()) for row in as_text]
    assert [list(row.keys()) for row in read] == [list(row.keys()) for row in as_text]


async def test_a_query_whose_columns_repeat_a_name_is_read_as_it_is(medusa_source):
    sql = "SELECT now() AS at, now() AS at"
    async with open_source(medusa_source) as source:
        assert await source.as_text(sql) == sql


async def test_the_bulk_load_binds_as_before_and_puts_everything_back():
    db = Tortoise.get_connection("default")
    if db.capabilities.dialect != "sqlite":
        return  # PostgreSQL's writes take no such settings
    pragmas = ("synchronous", "cache_size", "wal_autocheckpoint", "journal_size_limit")

    async def settings():
        return {p: next(iter((await db.execute_query_dict(f"PRAGMA {p}"))[0].values())) for p in pragmas}

    before, adapters = await settings(), dict(sqlite3.adapters)
    at = datetime.datetime(2024, 5, 6, 7, 8, 9, 500, tzinfo=datetime.timezone.utc)
    values = [None, True, False, at, at.replace(microsecond=0), 7, "x"]
    sql = "SELECT " + ", ".join("?" for _ in values)
    (plain,) = (await db.execute_query(sql, values))[1]
    async with quick_commits():
        during = await settings()
        (quick,) = (await db.execute_query(sql, values))[1]
    assert list(quick) == list(plain) == [None, 1, 0, "2024-05-06 07:08:09.000500+00:00", "2024-05-06 07:08:09+00:00", 7, "x"]
    assert during["synchronous"] == 1 and during["wal_autocheckpoint"] > before["wal_autocheckpoint"]
    assert await settings() == before and dict(sqlite3.adapters) == adapters

"""Writes batches of mapped rows into our database, whichever backend it is, as upserts keyed by
Medusa's ids: a run repeated over the same rows leaves the same rows.

INSERT … ON CONFLICT through Tortoise's own connection (services.core.bulk_writes' `bulk_upsert`: both
PostgreSQL and SQLite speak it), because Tortoise's bulk_create would stamp `updated_at` with the
time of the move, and the shop's own dates are history a merchant reads. A batch is a few
statements whatever its size: a statement per row cost the server most of a move's time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime, timezone

from tortoise import Tortoise, fields
from tortoise.backends.base.client import BaseDBAsyncClient

from services.core.bulk_writes import bulk_update, bulk_upsert
from services.core.sql import numbered

__all__ = ["Target", "TargetColumns", "quick_commits"]


def _now():
    return datetime.now(timezone.utc)


class TargetColumns:
    """Our table's columns, with what each needs before it is written."""

    def __init__(self, model: type | None, table: str, link_columns: tuple[str, ...] = ()):
        self.table = table
        self.json: set[str] = set()
        self.defaults: dict[str, object] = {}
        if model is None:
            self.names = list(link_columns)
            return
        self.names = []
        for name, column in model._meta.fields_db_projection.items():
            field = model._meta.fields_map[name]
            self.names.append(column)
            if isinstance(field, fields.JSONField):
                self.json.add(column)
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                self.defaults[column] = _now
            elif not field.null and field.default is not None:
                self.defaults[column] = field.default  # a callable is called per row (e.g. dict)

    def value(self, column: str, value):
        if column in self.json:
            # The source's json arrives as its text and goes on as it came (decoding it cost a
            # tenth of a move); only our own defaults need encoding.
            if isinstance(value, str):
                if value != "null":
                    return value
                value = None
        if value is None and column in self.defaults:
            default = self.defaults[column]
            value = default() if callable(default) else default
        if column in self.json and value is not None:
            import orjson

            return orjson.dumps(value).decode()
        return value


# While a move writes into SQLite: a 16 MB page cache (2 MB by default) and fewer, larger
# checkpoints (the WAL may grow to about 64 MB between them instead of 4 MB, and is not cut back
# to 16 KB after each). Bounded whatever the shop's size; put back afterwards.
_MOVE_PRAGMAS = {"cache_size": -16_000, "wal_autocheckpoint": 16_000, "journal_size_limit": 64 * 1024 * 1024}


@asynccontextmanager
async def quick_commits():
    """While a move writes into SQLite in WAL mode, a commit does not wait for the disk
    (synchronous=NORMAL, SQLite's advice for WAL): the file cannot be corrupted by it, neither by a
    killed process (the WAL is in the OS's hands at each commit) nor by a power cut, which may
    only lose the last batches, which the next run copies again (a mark is written after its
    entity's rows). The page cache and the checkpoints are sized for a bulk load
    (`_MOVE_PRAGMAS`), and parameters bind without Python's slow path (`_quick_binding`).
    Everything is put back as it was afterwards."""
    client = Tortoise.get_connection("default")
    if client.capabilities.dialect != "sqlite":
        yield
        return
    mode = (await client.execute_query_dict("PRAGMA journal_mode"))[0]["journal_mode"]
    pragmas = ["synchronous", *_MOVE_PRAGMAS]
    before = {p: next(iter((await client.execute_query_dict(f"PRAGMA {p}"))[0].values())) for p in pragmas}
    quick = dict(_MOVE_PRAGMAS)
    if str(mode).lower() == "wal" and before["synchronous"] > 1:
        quick["synchronous"] = 1  # NORMAL
    await client.execute_script("".join(f"PRAGMA {p} = {int(v)};" for p, v in quick.items()))
    try:
        with _quick_binding():
            yield
    finally:
        await client.execute_script("".join(f"PRAGMA {p} = {int(before[p])};" for p in quick))


_NONE = {}.get  # a C function of one argument that answers None


@contextmanager
def _quick_binding():
    """Python's sqlite3 binds str, int, float and bytes directly; any other value goes through its
    adapters, and a value with none (None, a bool) through two failed attribute look-ups, the first
    of which formats an error message: most of a batch's binding time, in the writing thread and
    holding the GIL. For the move, None, bools and datetimes get adapters written in C that give
    what they gave (None, the int, Tortoise's `isoformat(" ")`, which is `str` of a datetime)."""
    quick = {type(None): _NONE, bool: int, datetime: datetime.__str__}
    keys = {t: (t, sqlite3.PrepareProtocol) for t in quick}
    before = {t: sqlite3.adapters.get(k) for t, k in keys.items()}
    for t, adapter in quick.items():
        sqlite3.adapters[keys[t]] = adapter
    try:
        yield
    finally:
        for t, k in keys.items():
            if before[t] is None:
                sqlite3.adapters.pop(k, None)
            else:
                sqlite3.adapters[k] = before[t]


class Target:
    def __init__(self, client: BaseDBAsyncClient | None = None):
        self.client = client or Tortoise.get_connection("default")
        self.postgres = self.client.capabilities.dialect == "postgres"

    async def upsert(
        self, table: str, columns: list[str], key: tuple[str, ...], rows: list[list], *,
        insert_only: frozenset[str] = frozenset(), check: bool = True,
    ) -> int:
        """Insert `rows` (values in `columns` order); a row whose key exists is updated in place,
        unless it holds these values already: a row that did not change is not written (nor
        locked). `insert_only` columns are written only with a new row (our defaults for what
        Medusa does not keep: a re-run leaves them as they were). `check=False`: a table that was
        empty, where PostgreSQL need not look first. How many rows were written."""
        return await bulk_upsert(self.client, table, columns, rows, key=key, insert_only=insert_only, check=check)

    async def update_by_key(self, table: str, columns: list[str], key: tuple[str, ...], rows: list[list]) -> int:
        """Update rows found by `key` whose values differ; none is created. How many were written."""
        return await bulk_update(self.client, table, columns, rows, key=key)

    async def analyze(self) -> None:
        """PostgreSQL's statistics and visibility map, taken after a move. Without the statistics
        the planner still sees the tables as they were before it (most empty), and read the money
        check's orders by sequential scans (three times slower at 100,000 orders), as it would the
        shop's first requests. Without the visibility map (set by a vacuum: autovacuum may be off,
        and reaches a table only after its naptime) a list's index-only scan, such as the order
        list's deep page along (created_at, id), still visits the heap page of every row it
        passes. At 100,000 moved orders `VACUUM (ANALYZE)` took 5.7 s against `ANALYZE`'s 3.2."""
        if self.postgres:
            await self.client.execute_script("VACUUM (ANALYZE)")

    async def holds_rows(self, table: str) -> bool:
        return bool((await self.client.execute_query(f'SELECT 1 FROM "{table}" LIMIT 1'))[1])

    async def count(self, table: str) -> int:
        return (await self.client.execute_query_dict(f'SELECT count(*) AS n FROM "{table}"'))[0]["n"]

    async def keys(self, table: str, key: tuple[str, ...], batch: int) -> AsyncIterator[list[tuple]]:
        """This table's keys in lists of `batch`, ordered by their bytes (as Python compares
        strings), memory flat: SQLite's own order for text, walked by its index a page at a time;
        PostgreSQL's under collation "C", through a cursor."""
        columns = ", ".join(f'"{c}"' for c in key)
        if self.postgres:
            order = ", ".join(f'"{c}" COLLATE "C"' for c in key)
            async with self.client.acquire_connection() as conn, conn.transaction():
                cursor = await conn.cursor(f'SELECT {columns} FROM "{table}" ORDER BY {order}')
                while rows := await cursor.fetch(batch):
                    yield [tuple(r) for r in rows]
            return
        after = None
        marks = ", ".join("?" for _ in key)
        while True:
            where = f"WHERE ({columns}) > ({marks}) " if after else ""
            rows = await self.client.execute_query(
                f'SELECT {columns} FROM "{table}" {where}ORDER BY {columns} LIMIT {int(batch)}', list(after or []))
            rows = [tuple(r) for r in rows[1]]
            if not rows:
                return
            yield rows
            after = rows[-1]

    async def prune(self, table: str, key: tuple[str, ...], keep: AsyncIterator[list[tuple]], batch: int) -> int:
        """Delete this table's rows whose key `keep` does not list; how many went. Both key lists
        come in byte order and are walked side by side, a batch of each in memory whatever the
        table's size. Both databases order by bytes of UTF-8, as Python compares strings; a list
        found out of order all the same (another encoding) stops the walk with an error."""
        source = _ordered(keep, "the source's keys")
        wanted = await anext(source, None)
        gone: list[tuple] = []
        removed = 0
        async for ours in _ordered(self.keys(table, key, batch), f"{table}'s keys"):
            while wanted is not None and wanted < ours:
                wanted = await anext(source, None)
            if wanted != ours:
                gone.append(ours)
                if len(gone) >= batch:
                    removed += await self._delete(table, key, gone)
                    gone = []
        return removed + await self._delete(table, key, gone)

    async def _delete(self, table: str, key: tuple[str, ...], rows: list[tuple]) -> int:
        if rows:
            where = " AND ".join(f'"{c}" = ?' for c in key)
            statement = numbered(self.client.capabilities.dialect, f'DELETE FROM "{table}" WHERE {where}')
            await self.client.execute_many(statement, [list(r) for r in rows])
        return len(rows)


class KeysOutOfOrder(RuntimeError):
    pass


async def _ordered(batches: AsyncIterator[list[tuple]], what: str) -> AsyncIterator[tuple]:
    """Each key of `batches`, checked to come in order (equal neighbours pass: a join's duplicate)."""
    last = None
    async for rows in batches:
        for row in rows:
            if last is not None and row < last:
                raise KeysOutOfOrder(f"{what} came out of byte order ({last!r} before {row!r})")
            last = row
            yield row

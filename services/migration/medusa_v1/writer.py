"""Writes batches of mapped rows into our database, whichever backend it is, as upserts keyed by
Medusa's ids: a run repeated over the same rows leaves the same rows.

Plain INSERT … ON CONFLICT through Tortoise's own connection (both PostgreSQL and SQLite speak
it), because Tortoise's bulk_create would stamp `updated_at` with the time of the move, and the
shop's own dates are history a merchant reads. On PostgreSQL a batch is one statement over
arrays of its columns (`unnest`): a statement per row cost the server most of a move's time.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from datetime import datetime, timezone

from tortoise import Tortoise, fields
from tortoise.backends.base.client import BaseDBAsyncClient

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


@asynccontextmanager
async def quick_commits():
    """While a move writes into SQLite in WAL mode, a commit does not wait for the disk
    (synchronous=NORMAL, SQLite's advice for WAL): the file cannot be corrupted by it; a power cut
    may lose the last batches, which the next run copies again (a mark is written after its
    entity's rows). Put back as it was afterwards."""
    client = Tortoise.get_connection("default")
    if client.capabilities.dialect != "sqlite":
        yield
        return
    mode = (await client.execute_query_dict("PRAGMA journal_mode"))[0]["journal_mode"]
    before = (await client.execute_query_dict("PRAGMA synchronous"))[0]["synchronous"]
    if str(mode).lower() != "wal" or before <= 1:
        yield
        return
    await client.execute_script("PRAGMA synchronous = NORMAL")
    try:
        yield
    finally:
        await client.execute_script(f"PRAGMA synchronous = {int(before)}")


_TYPES: dict[str, dict[str, str]] = {}  # PostgreSQL table -> column -> its type, as SQL names it


class Target:
    def __init__(self, client: BaseDBAsyncClient | None = None):
        self.client = client or Tortoise.get_connection("default")
        self.postgres = self.client.capabilities.dialect == "postgres"

    async def _types(self, table: str) -> dict[str, str]:
        if table not in _TYPES:
            rows = await self.client.execute_query_dict(
                "SELECT attname, format_type(atttypid, atttypmod) AS type FROM pg_attribute "
                "WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped", [f'"{table}"'],
            )
            _TYPES[table] = {r["attname"]: r["type"] for r in rows}
        return _TYPES[table]

    def _placeholders(self, count: int) -> str:
        if self.postgres:
            return ", ".join(f"${i}" for i in range(1, count + 1))
        return ", ".join("?" for _ in range(count))

    async def upsert(self, table: str, columns: list[str], key: tuple[str, ...], rows: list[list]) -> None:
        """Insert `rows` (values in `columns` order); a row whose key exists is updated in place."""
        if not rows:
            return
        quoted = ", ".join(f'"{c}"' for c in columns)
        updates = [c for c in columns if c not in key]
        conflict = ", ".join(f'"{c}"' for c in key)
        action = (
            "DO UPDATE SET " + ", ".join(f'"{c}" = excluded."{c}"' for c in updates) if updates else "DO NOTHING"
        )
        if self.postgres:
            # One statement for the batch; a key twice in it (a join's duplicate) keeps its last row,
            # as a row per statement did.
            at = [columns.index(k) for k in key]
            rows = list({tuple(row[i] for i in at): row for row in rows}.values())
            types = await self._types(table)
            arrays = ", ".join(f"${i + 1}::{types[c]}[]" for i, c in enumerate(columns))
            sql = f'INSERT INTO "{table}" ({quoted}) SELECT * FROM unnest({arrays}) ON CONFLICT ({conflict}) {action}'
            await self.client.execute_query(sql, [list(column) for column in zip(*rows)])
            return
        sql = f'INSERT INTO "{table}" ({quoted}) VALUES ({self._placeholders(len(columns))}) ON CONFLICT ({conflict}) {action}'
        await self.client.execute_many(sql, rows)

    async def update_by_key(self, table: str, columns: list[str], key: tuple[str, ...], rows: list[list]) -> int:
        """Update rows found by `key` (the key's values come first in each row); none is created."""
        sets = [c for c in columns if c not in key]
        order = list(key) + sets
        if self.postgres:
            where = " AND ".join(f'"{c}" = ${i + 1}' for i, c in enumerate(key))
            assign = ", ".join(f'"{c}" = ${len(key) + i + 1}' for i, c in enumerate(sets))
            sql = f'UPDATE "{table}" SET {assign} WHERE {where}'
            values = [[row[columns.index(c)] for c in order] for row in rows]
        else:
            where = " AND ".join(f'"{c}" = ?' for c in key)
            assign = ", ".join(f'"{c}" = ?' for c in sets)
            sql = f'UPDATE "{table}" SET {assign} WHERE {where}'
            values = [[row[columns.index(c)] for c in sets + list(key)] for row in rows]
        if rows:
            await self.client.execute_many(sql, values)
        return len(rows)

    async def analyze(self) -> None:
        """PostgreSQL's statistics, taken after a move: the planner otherwise still sees the tables
        as they were before it (most empty), and read the money check's orders by sequential scans
        (three times slower at 100,000 orders), as it would the shop's first requests."""
        if self.postgres:
            await self.client.execute_script("ANALYZE")

    async def holds_rows(self, table: str) -> bool:
        return bool((await self.client.execute_query(f'SELECT 1 FROM "{table}" LIMIT 1'))[1])

    async def prune(self, table: str, key: tuple[str, ...], keep: set[tuple]) -> int:
        """Delete this table's rows whose key is not in `keep`; how many went."""
        columns = ", ".join(f'"{c}"' for c in key)
        rows = await self.client.execute_query_dict(f'SELECT {columns} FROM "{table}"')
        gone = [[row[c] for c in key] for row in rows if tuple(row[c] for c in key) not in keep]
        if gone:
            if self.postgres:
                where = " AND ".join(f'"{c}" = ${i + 1}' for i, c in enumerate(key))
            else:
                where = " AND ".join(f'"{c}" = ?' for c in key)
            await self.client.execute_many(f'DELETE FROM "{table}" WHERE {where}', gone)
        return len(gone)

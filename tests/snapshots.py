"""Database snapshots for the test harness: every test starts from a known state without
rebuilding it. A snapshot is taken once per session (the store's defaults; the demo store the
first time a test asks for it) and put back before each test, touching only what changed.

- PostgreSQL: one statement fingerprints every table (md5 of its rows); a table whose
  fingerprint differs from the snapshot's is emptied and refilled from the snapshot's JSON, in
  one transaction with foreign-key triggers off.
- SQLite: SQLite's online backup copies the snapshot's pages into the live database.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from tortoise import Tortoise, connections

__all__ = ["Snapshot", "take", "restore"]

_SKIP = {"tortoise_migrations"}
# The search index (0022_product_search.py), the catalogue version (0025_catalogue_version.py), the
# customers list's version (0027_customer_list_version.py), in models/migrations/
_NOT_MODELS = {"product_search", "catalogue_version", "customer_list_version"}


def _tables() -> list[str]:
    models = Tortoise.apps["models"].values()
    names = {m._meta.db_table for m in models}
    names |= {
        f.through for m in models for f in m._meta.fields_map.values()
        if getattr(f, "through", None) and f.__class__.__name__ == "ManyToManyFieldInstance"
    }
    return sorted((names | _NOT_MODELS) - _SKIP)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _fingerprint(table: str) -> str:
    return f"(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM {_quote(table)} t)"


@dataclass
class Snapshot:
    rows: dict[str, str] | None = None  # PostgreSQL: table -> JSON array of its rows
    prints: dict[str, str] | None = None  # PostgreSQL: table -> fingerprint
    pages: sqlite3.Connection | None = None  # SQLite: an in-memory copy of the database


def _is_postgres() -> bool:
    return connections.get("default").capabilities.dialect == "postgres"


async def take() -> Snapshot:
    conn = connections.get("default")
    if _is_postgres():
        sql = " UNION ALL ".join(
            f"SELECT '{t}' AS name, (SELECT coalesce(json_agg(t), '[]'::json)::text FROM {_quote(t)} t) AS rows, "
            f"{_fingerprint(t)} AS print"
            for t in _tables()
        )
        found = await conn.execute_query_dict(sql)
        return Snapshot(rows={r["name"]: r["rows"] for r in found}, prints={r["name"]: r["print"] for r in found})
    live = conn._connection
    copy = sqlite3.connect(":memory:", check_same_thread=False)
    await live._execute(live._conn.backup, copy)
    return Snapshot(pages=copy)


async def _prints() -> dict[str, str]:
    sql = " UNION ALL ".join(f"SELECT '{t}' AS name, {_fingerprint(t)} AS print" for t in _tables())
    return {r["name"]: r["print"] for r in await connections.get("default").execute_query_dict(sql)}


async def restore(snapshot: Snapshot, current: Snapshot | None = None) -> None:
    """Put the database back to `snapshot`. `current`, when known to be the database's state,
    spares the fingerprint query (PostgreSQL)."""
    conn = connections.get("default")
    if snapshot.pages is not None:
        live = conn._connection
        await live._execute(snapshot.pages.backup, live._conn)
        return
    now = current.prints if current is not None else await _prints()
    changed = [t for t, p in snapshot.prints.items() if now.get(t) != p]
    if not changed:
        return
    parts = ["BEGIN", "SET LOCAL session_replication_role = replica"]
    for t in changed:
        parts.append(f"DELETE FROM {_quote(t)}")
        if snapshot.rows[t] != "[]":
            parts.append(
                f"INSERT INTO {_quote(t)} SELECT * FROM json_populate_recordset(NULL::{_quote(t)}, "
                f"$snapshot${snapshot.rows[t]}$snapshot$::json)"
            )
    parts.append("COMMIT")
    await conn.execute_script(";\n".join(parts))


async def mark() -> int | None:
    """What `unchanged` compares against later: SQLite's count of changed rows (PostgreSQL
    fingerprints instead, so it needs no mark)."""
    if _is_postgres():
        return None
    rows = await connections.get("default").execute_query_dict("SELECT total_changes() AS n")
    return rows[0]["n"]


async def unchanged(snapshot: Snapshot, since: int | None) -> bool:
    """Whether the database still holds `snapshot` (restored when `since` was taken)."""
    if _is_postgres():
        return await _prints() == snapshot.prints
    return await mark() == since

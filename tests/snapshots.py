"""Database snapshots for the test harness: every test starts from a known state without
rebuilding it. A snapshot is taken once per session (the store's defaults; the demo store the
first time a test asks for it) and put back before each test, touching only what changed.

- PostgreSQL: a statement-level trigger on every table (`track`, once per session, after the
  migrations) notes the table's name in an unlogged table at each INSERT, UPDATE, DELETE or
  TRUNCATE, whoever runs it (this process, or a worker or web process a test started). Putting a
  snapshot back empties and refills from the snapshot's JSON the tables noted since the last one
  was put back, and those whose rows differ between the two snapshots (an md5 of each table's
  rows, taken with the snapshot), in one transaction with foreign-key triggers off. A test that
  wrote nothing costs one small statement. The trigger is enabled ALWAYS, so it notes writes made
  with session_replication_role = replica too.
- SQLite: SQLite's online backup copies the snapshot's pages into the live database.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from tortoise import Tortoise, connections

__all__ = ["Snapshot", "track", "take", "restore", "mark", "unchanged"]

_SKIP = {"tortoise_migrations"}
_NOTED = "test_changed_tables"  # PostgreSQL: the tables written since the last snapshot put back
_RESTORING = "commerce_test.restoring"  # set in the restore's transaction: its own writes are not noted
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
    sequences: dict[str, int | None] | None = None  # PostgreSQL: sequence -> its last value (None: unused)
    pages: sqlite3.Connection | None = None  # SQLite: an in-memory copy of the database


def _is_postgres() -> bool:
    return connections.get("default").capabilities.dialect == "postgres"


_state: dict[str, object] = {}  # "at": the snapshot last taken or put back; PostgreSQL: "tracked", the tables


async def track() -> None:
    """PostgreSQL: note from now on, in `_NOTED`, each table written (see the module's docstring).
    Once per session, after the migrations and before the first `take`."""
    if not _is_postgres():
        return
    tables = _tables()
    parts = [
        f"CREATE UNLOGGED TABLE {_NOTED} (name text NOT NULL)",
        "CREATE FUNCTION test_note_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF coalesce(current_setting('{_RESTORING}', true), '') <> 'on' THEN "
        f"INSERT INTO {_NOTED} VALUES (TG_TABLE_NAME); END IF; RETURN NULL; END $$",
    ]
    for t in tables:
        parts.append(f"CREATE TRIGGER test_note_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {_quote(t)} "
                     "FOR EACH STATEMENT EXECUTE FUNCTION test_note_change()")
        parts.append(f"ALTER TABLE {_quote(t)} ENABLE ALWAYS TRIGGER test_note_change")
    await connections.get("default").execute_script(";\n".join(parts))
    _state["tracked"] = set(tables)


async def take() -> Snapshot:
    """The database as it is now, which becomes the state later restores start from."""
    conn = connections.get("default")
    if _is_postgres():
        sql = " UNION ALL ".join(
            f"SELECT '{t}' AS name, (SELECT coalesce(json_agg(t), '[]'::json)::text FROM {_quote(t)} t) AS rows, "
            f"{_fingerprint(t)} AS print"
            for t in _tables()
        )
        found = await conn.execute_query_dict(sql)
        await conn.execute_query(f"DELETE FROM {_NOTED}")  # nothing else writes while a snapshot is taken
        sequences = await conn.execute_query_dict(
            "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = current_schema()")
        taken = Snapshot(rows={r["name"]: r["rows"] for r in found}, prints={r["name"]: r["print"] for r in found},
                         sequences={r["sequencename"]: r["last_value"] for r in sequences})
        _state["at"] = taken
        return taken
    live = conn._connection
    copy = sqlite3.connect(":memory:", check_same_thread=False)
    await live._execute(live._conn.backup, copy)
    _state["at"] = taken = Snapshot(pages=copy)
    return taken


async def _noted() -> set[str]:
    """The tables written since the last snapshot was taken or put back, forgotten as they are
    read (a write after this is noted for the next restore)."""
    rows = await connections.get("default").execute_query_dict(f"DELETE FROM {_NOTED} RETURNING name")
    return {r["name"] for r in rows}


async def _put_back_sequences(snapshot: Snapshot) -> None:
    """A sequence (the display ids', services/orders/display_ids.py) is not a table: it is set back
    to the snapshot's value on every restore, in one statement, whether a test moved it or not."""
    if snapshot.sequences:
        values = ", ".join(f"setval('{_quote(name)}', {value or 1}, {'true' if value else 'false'})"
                           for name, value in snapshot.sequences.items())
        await connections.get("default").execute_query(f"SELECT {values}")


async def restore(snapshot: Snapshot, current: Snapshot | None = None) -> None:
    """Put the database back to `snapshot`. (`current` is unused: the tables written since the
    last snapshot are known, on PostgreSQL; kept for callers that name it.)"""
    conn = connections.get("default")
    if snapshot.pages is not None:
        live = conn._connection
        await live._execute(snapshot.pages.backup, live._conn)
        _state["at"] = snapshot
        return
    at: Snapshot = _state["at"]  # type: ignore[assignment]
    await _put_back_sequences(snapshot)
    written = await _noted()
    untracked = set(_tables()) - _state["tracked"]  # type: ignore[operator]
    assert not untracked, f"tables without the change trigger (made after the session began): {untracked}"
    changed = sorted(t for t in snapshot.prints if t in written or at.prints.get(t) != snapshot.prints[t])
    _state["at"] = snapshot
    if not changed:
        return
    parts = ["BEGIN", "SET LOCAL session_replication_role = replica", f"SET LOCAL {_RESTORING} = 'on'"]
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
    notes the tables written instead, so it needs no mark)."""
    if _is_postgres():
        return None
    rows = await connections.get("default").execute_query_dict("SELECT total_changes() AS n")
    return rows[0]["n"]


async def unchanged(snapshot: Snapshot, since: int | None) -> bool:
    """Whether the database still holds `snapshot`: the last one taken or put back (when `since`
    was marked), nothing written since."""
    if _state.get("at") is not snapshot:
        return False
    if _is_postgres():
        rows = await connections.get("default").execute_query_dict(f"SELECT EXISTS (SELECT FROM {_NOTED}) AS written")
        return not rows[0]["written"]
    return await mark() == since

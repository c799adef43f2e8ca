"""Bulk writes of many rows in few statements whatever their number, in the caller's transaction:
`bulk_upsert` (a plain insert, or an upsert that leaves unchanged rows alone) and `bulk_update`
(rows found by key), on PostgreSQL over column arrays (`unnest`) or COPY, on SQLite as INSERTs of
as many rows as its parameters allow. Part of the SQL toolkit (services/core/sql.py holds the
rest: marks, instances built from rows, single-row writes)."""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence

__all__ = ["COPY_FROM_ROWS", "bulk_update", "bulk_upsert", "column_types"]


# The ORM's own statement log: the bulk writes' statements are logged there too (at DEBUG, without
# their values), so a count of the statements a piece of work sends counts them as well.
_LOG = logging.getLogger("tortoise.db_client")


def _logged(statement: str) -> str:
    if _LOG.isEnabledFor(logging.DEBUG):
        _LOG.debug("%s", statement)
    return statement


# Rows from which a PostgreSQL bulk write goes through COPY (for an upsert into a temporary table,
# then one INSERT … SELECT), rather than one INSERT over arrays of its columns (`unnest`). Measured on
# `line_item` (25 columns), inserting / updating every row, unnest against COPY: 50 rows 10/11
# against 12/14 ms; 200 rows 13/22 against 11/18 ms; 1,000 rows 89/99 against 63/59 ms; 20,000
# rows 1.2/1.6 against 0.3/0.4 s.
COPY_FROM_ROWS = 200
_SQLITE_MAX_PARAMETERS = 999  # the least any SQLite build allows in one statement
_COLUMN_TYPES: dict[str, dict[str, str]] = {}  # PostgreSQL table -> column -> its type, as SQL names it


async def column_types(connection, table: str) -> dict[str, str]:
    """Each column of a PostgreSQL `table` with its type as SQL names it (`character varying(64)`),
    read once per process: the types a batch's column arrays are cast to."""
    if table not in _COLUMN_TYPES:
        rows = await connection.execute_query_dict(
            "SELECT attname, format_type(atttypid, atttypmod) AS type FROM pg_attribute "
            "WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped", [f'"{table}"'],
        )
        _COLUMN_TYPES[table] = {r["attname"]: r["type"] for r in rows}
    return _COLUMN_TYPES[table]


async def bulk_upsert(
    connection, table: str, columns: Sequence[str], rows: Sequence[Sequence], *, key: Sequence[str] = (),
    insert_only: Collection[str] = (), check: bool = True, copy_from: int | None = None,
) -> int:
    """Write `rows` (values in `columns` order) into `table` in the caller's transaction, in few
    statements whatever their number; how many rows were written.

    Without `key`, a plain insert. With `key`, a row whose key exists is updated in place unless
    it holds these values already (a row that did not change is neither written nor locked);
    `insert_only` columns are written only with a new row; a key twice in `rows` keeps its last
    row. `check=False`: the table was empty, PostgreSQL need not look for unchanged rows first.

    PostgreSQL: one INSERT over an array per column (`unnest`), cast to the table's own types; from
    `copy_from` rows (`COPY_FROM_ROWS` unless given), COPY (asyncpg's binary
    `copy_records_to_table`), which sends less and parses nothing per row: a plain insert straight
    into the table, an upsert into a temporary table and one INSERT … SELECT from it. SQLite:
    INSERTs of as many rows as its 999 parameters allow (each statement costs a journal of its own)."""
    if not rows:
        return 0
    columns = list(columns)
    quoted = ", ".join(f'"{c}"' for c in columns)
    updates = [c for c in columns if c not in key and c not in insert_only]
    action = ""
    if key:
        conflict = ", ".join(f'"{c}"' for c in key)
        sets = ", ".join(f'"{c}" = excluded."{c}"' for c in updates)
        action = f" ON CONFLICT ({conflict}) " + (f"DO UPDATE SET {sets}" if updates else "DO NOTHING")
        # PostgreSQL refuses to update one row twice in a statement; SQLite would count it twice
        at = [columns.index(k) for k in key]
        rows = list({tuple(row[i] for i in at): row for row in rows}.values())
    if connection.capabilities.dialect != "postgres":
        if updates and key:  # SQLite leaves the row as it is when the update's WHERE is false
            action += " WHERE " + " OR ".join(f'"{table}"."{c}" IS NOT excluded."{c}"' for c in updates)
        return await _sqlite_insert(connection, f'INSERT INTO "{table}" ({quoted}) VALUES ', columns, rows, action)
    same = ""
    if key and updates and check:  # rows as they are here already are left out before the insert
        match = " AND ".join(f'o."{k}" = s."{k}"' for k in key)
        ours, theirs = (", ".join(f'{side}."{c}"' for c in updates) for side in ("o", "s"))
        same = (f' WHERE NOT EXISTS (SELECT 1 FROM "{table}" o WHERE {match} AND ({ours})'
                f" IS NOT DISTINCT FROM ({theirs}))")
    types = await column_types(connection, table)  # before taking the connection: a transaction's is held once
    async with connection.acquire_connection() as conn:
        if len(rows) < (COPY_FROM_ROWS if copy_from is None else copy_from):
            arrays = ", ".join(f"${i + 1}::{types[c]}[]" for i, c in enumerate(columns))
            status = await conn.execute(
                _logged(f'INSERT INTO "{table}" ({quoted}) SELECT * FROM unnest({arrays}) AS s({quoted})'
                        f"{same}{action}"),
                *(list(column) for column in zip(*rows)),
            )
            return int(status.rsplit(" ", 1)[-1])
        if not key:  # a plain insert: COPY straight into the table, whose triggers and constraints run as for an INSERT
            _logged(f'COPY "{table}" ({quoted}) FROM STDIN: {len(rows)} rows')
            status = await conn.copy_records_to_table(table, records=rows, columns=columns)
            return int(status.rsplit(" ", 1)[-1])
        staged = f"bulk_{table}"
        async with conn.transaction():  # a savepoint in the caller's: a failure takes the table away too
            await conn.execute(_logged(
                f'CREATE TEMPORARY TABLE "{staged}" AS SELECT {quoted} FROM "{table}" WITH NO DATA'))
            _logged(f'COPY "{staged}" ({quoted}) FROM STDIN: {len(rows)} rows')
            await conn.copy_records_to_table(staged, records=rows, columns=columns)
            status = await conn.execute(_logged(f'INSERT INTO "{table}" ({quoted}) SELECT {quoted} FROM "{staged}" s'
                                                f"{same}{action}"))
            await conn.execute(_logged(f'DROP TABLE "{staged}"'))
        return int(status.rsplit(" ", 1)[-1])


async def bulk_update(
    connection, table: str, columns: Sequence[str], rows: Sequence[Sequence], *, key: Sequence[str] = ("id",),
    changed_only: bool = True,
) -> int:
    """Update the rows of `table` found by `key` with `rows` (values in `columns` order, the key's
    among them), in the caller's transaction; none is created. `changed_only`: a row that holds
    these values already is neither written nor locked. How many rows were written. PostgreSQL:
    one UPDATE … FROM arrays of the columns (`unnest`); SQLite: one statement run per row."""
    if not rows:
        return 0
    columns = list(columns)
    sets = [c for c in columns if c not in key]
    postgres = connection.capabilities.dialect == "postgres"
    types = await column_types(connection, table) if postgres else {}  # before taking the connection
    async with connection.acquire_connection() as conn:
        if postgres:
            quoted = ", ".join(f'"{c}"' for c in columns)
            arrays = ", ".join(f"${i + 1}::{types[c]}[]" for i, c in enumerate(columns))
            assign = ", ".join(f'"{c}" = s."{c}"' for c in sets)
            match = " AND ".join(f'"{table}"."{c}" = s."{c}"' for c in key)
            ours, theirs = ", ".join(f'"{table}"."{c}"' for c in sets), ", ".join(f's."{c}"' for c in sets)
            differs = f" AND ({ours}) IS DISTINCT FROM ({theirs})" if changed_only else ""
            status = await conn.execute(_logged(f'UPDATE "{table}" SET {assign} FROM unnest({arrays}) AS s({quoted}) '
                                                f"WHERE {match}{differs}"), *(list(column) for column in zip(*rows)))
            return int(status.rsplit(" ", 1)[-1])
        n = len(sets)  # SQLite's ?N marks: a set column's value is compared with the row's as well
        assign = ", ".join(f'"{c}" = ?{i + 1}' for i, c in enumerate(sets))
        where = " AND ".join(f'"{c}" = ?{n + i + 1}' for i, c in enumerate(key))
        differs = " OR ".join(f'"{c}" IS NOT ?{i + 1}' for i, c in enumerate(sets))
        differs = f" AND ({differs})" if changed_only else ""
        at = [columns.index(c) for c in (*sets, *key)]
        cursor = await conn.executemany(_logged(f'UPDATE "{table}" SET {assign} WHERE {where}{differs}'),
                                        [[row[i] for i in at] for row in rows])
        return cursor.rowcount


async def _sqlite_insert(connection, head: str, columns: list[str], rows: Sequence[Sequence], action: str) -> int:
    per_statement = max(1, _SQLITE_MAX_PARAMETERS // len(columns))
    row = f"({', '.join('?' * len(columns))})"
    written = 0
    async with connection.acquire_connection() as conn:
        for start in range(0, len(rows), per_statement):
            part = rows[start:start + per_statement]
            cursor = await conn.execute(_logged(head + ", ".join([row] * len(part)) + action), [v for r in part for v in r])
            written += cursor.rowcount
    return written

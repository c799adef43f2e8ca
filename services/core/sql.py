"""The one toolkit for hand-written SQL, for the few measured hot paths and bulk writes that the
ORM's statements do not serve (the reads live in an area's `reads.py` or `*_reads.py`):

- parameter marks per dialect (`placeholders`; `numbered` for a statement written once with `?`
  marks, `question_marks` for its IN lists), and `execute` to run one in the current
  transaction's connection;
- a list of ids as one parameter that a statement reads as a table (`ID_TABLE`, `ids_value`), so
  the statement's text is the same for any number of ids;
- a column's PostgreSQL type (`sql_type`) and a NULL of that type (`typed_null`), for a UNION's
  branch that leaves a column empty;
- model instances built from a statement's rows as Tortoise's own `Model._init_from_db` builds
  them (`RowBuilder`, with `aliased_columns` to select a model's columns under an alias, or `Source`
  for a statement built with pypika), so they serialize and save exactly as queried ones do;
- bulk writes of many rows in few statements (`bulk_upsert`, `bulk_update`);
- a new instance written by the model's own INSERT, without `save()`'s per-call machinery (`insert`).

The rows below a page of parents read in one UNION ALL are services/core/union_rows.py's."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Collection, Sequence
from datetime import datetime, timezone
from functools import lru_cache
from itertools import count
from typing import Any, Callable

from pypika_tortoise import Order, Table
from pypika_tortoise import functions as fn
from pypika_tortoise.terms import NullValue, Term
from tortoise.expressions import Expression
from tortoise.fields import DatetimeField
from tortoise.fields.base import DatabaseDefault
from tortoise.models import Model
from tortoise.timezone import get_default_timezone, get_use_tz

from services.core.db import write_at_end

__all__ = [
    "ID_TABLE", "RowBuilder", "Source", "aliased_columns", "bulk_update", "bulk_upsert", "by_creation", "column_types",
    "execute", "insert", "insert_unless_taken", "save", "update", "write", "db_value",
    "ids_value", "numbered", "placeholders", "question_marks", "source", "sql_type", "timestamp_converter", "typed_null",
]


class RowBuilder:
    """Builds `model` instances from rows whose column `c` is found under `key_of(c)`: the
    instance Tortoise's own `Model._init_from_db` makes for a row (what a queryset calls), built
    without its keyword dict and per-attribute hooks, which a read that builds hundreds of
    instances spends most of its time in (a 100-line cart read took twice as long through it).

    Nothing of the ORM's loaded state is written here by name: the builder asks `_init_from_db`
    once for an instance of an empty row and copies whatever state it set beside the fields
    (loaded, not partial, saved in the database, …) into every instance, fresh where mutable. So
    an instance serializes and saves as a queried one does, and a Tortoise release that keeps other
    state keeps it here too. Each field's value is converted as `_init_from_db` converts it (the
    driver's own value, the field's type, or its `to_python_value`), with one shortcut for
    timestamps (`_utc_datetime`). tests/services/core/test_sql.py holds every built model to the
    ORM's instance on both backends."""

    def __init__(self, model: type[Model], key_of: Callable[[str], str]):
        meta = model._meta
        self.model = model
        self.columns = sorted(meta.db_fields)
        self.pk_key = key_of(meta.db_pk_column)
        self.plain = tuple((attr, key_of(column)) for column, attr, _ in meta.db_native_fields)
        converted = [(attr, key_of(column), f.field_type) for column, attr, f in meta.db_default_fields]
        for column, attr, f in meta.db_complex_fields:
            convert = _utc_datetime(f) if isinstance(f, DatetimeField) else f.to_python_value
            converted.append((attr, key_of(column), convert))
        self.converted = tuple(converted)
        self.state, self.fresh = _loaded_state(model)

    def build(self, row) -> Any:
        """The instance in `row`, or None where an outer join (or a union's other branch) found nothing."""
        if row[self.pk_key] is None:
            return None
        obj = self.model.__new__(self.model)
        values = obj.__dict__
        values.update(self.state)
        for name, make in self.fresh:
            values[name] = make()
        for attr, key in self.plain:
            values[attr] = row[key]
        for attr, key, convert in self.converted:
            value = row[key]
            values[attr] = None if value is None else convert(value)
        return obj


@lru_cache(maxsize=None)
def _loaded_state(model: type[Model]) -> tuple[dict, tuple]:
    """What `_init_from_db` sets on an instance beside its fields, as (values shared by every
    instance, (name, maker) of the mutable ones each instance gets its own of)."""
    meta = model._meta
    empty = model._init_from_db(**{column: None for column in meta.db_fields})
    fields = {attr for group in (meta.db_native_fields, meta.db_default_fields, meta.db_complex_fields)
              for _, attr, _ in group}
    state = {k: v for k, v in vars(empty).items() if k not in fields}
    fresh = tuple((k, type(v)) for k, v in state.items() if isinstance(v, (dict, list, set)))
    return {k: v for k, v in state.items() if not isinstance(v, (dict, list, set))}, fresh


class Source:
    """A model's table under a short alias (PostgreSQL truncates longer column aliases) for a
    statement built with pypika: its columns selected as `alias.column`, or NULLs standing for
    them in a union's other branch, and its instances built from the rows (`build`)."""

    def __init__(self, model: type[Model], alias: str):
        self.model, self.alias = model, alias
        self.table = Table(model._meta.db_table, alias=alias)
        self.pk = model._meta.db_pk_column
        builder = RowBuilder(model, lambda column: f"{alias}.{column}")
        self.columns, self.pk_key = builder.columns, builder.pk_key
        self.build = builder.build

    def select(self) -> list:
        return [self.table.field(c).as_(f"{self.alias}.{c}") for c in self.columns]

    def nulls(self, dialect: str) -> list:
        """Its columns as NULLs, for a union's other branch."""
        return [typed_null(dialect, sql_type(self.model, c)).as_(f"{self.alias}.{c}") for c in self.columns]

    def order(self, query):
        """`query` ordered by this table's rows' creation, then id."""
        return query.orderby(self.table.created_at, order=Order.asc).orderby(self.table.id, order=Order.asc)


@lru_cache(maxsize=None)
def source(model: type[Model], alias: str) -> Source:
    """One per (model, alias) and process: what it derives from the model does not change."""
    return Source(model, alias)


def by_creation(alias: str) -> Callable:
    """The sort key of rows (selected by a `Source`) by the creation of `alias`'s row, then its
    id (rows without one first)."""
    created, pk = f"{alias}.created_at", f"{alias}.id"
    return lambda row: (row[pk] is not None, row[created] or 0, row[pk] or "")


def _utc_datetime(field: DatetimeField) -> Callable:
    """The field's conversion, with a shortcut for what PostgreSQL's driver returns when the
    ORM's time zone is UTC: an aware UTC datetime is kept as it comes. It is the same instant as
    the ORM's (equal, serialized alike); only its tzinfo object differs, and giving it the ORM's
    cost a 100-line cart a fifth of its folding time. SQLite's text is parsed by
    `datetime.fromisoformat` (the ORM's parser took most of the time of building an order's rows
    on SQLite)."""
    zone = get_default_timezone()
    if not get_use_tz() or getattr(zone, "key", None) != "UTC":
        return field.to_python_value

    def convert(value):
        if type(value) is datetime and value.tzinfo is timezone.utc:
            return value
        if type(value) is str:  # SQLite's text: the C parser, not the ORM's regular expressions
            try:
                parsed = datetime.fromisoformat(value)
            except ValueError:
                return field.to_python_value(value)
            if parsed.tzinfo is None:  # the ORM reads a naive time as its zone's (UTC here)
                return parsed.replace(tzinfo=timezone.utc)
            return parsed if parsed.tzinfo is timezone.utc else parsed.astimezone(timezone.utc)
        return field.to_python_value(value)
    return convert


def timestamp_converter(model: type[Model], column: str) -> Callable:
    """How a hand-written read that builds no instance converts a model's timestamp column: as
    `RowBuilder` converts it (None stays None). Ask once the ORM knows its database."""
    meta = model._meta
    convert = _utc_datetime(meta.fields_map[meta.fields_db_projection_reverse[column]])
    return lambda value: None if value is None else convert(value)


def aliased_columns(model: type[Model], alias: str) -> str:
    """The model's columns under `alias`, each named `alias.column` (a RowBuilder's keys), for a
    hand-written SELECT."""
    return ", ".join(f'"{alias}"."{c}" AS "{alias}.{c}"' for c in sorted(model._meta.db_fields))


# A list of ids, the statement's first parameter (`ids_value`), as a table "k"("id") that the
# statement joins: a join, not `… = ANY(…)`, which PostgreSQL answers for a list of 2,000 by
# scanning each whole table. Every reference to it reads the same parameter.
ID_TABLE = {"postgres": 'unnest($1::text[]) AS "k"("id")',
            "sqlite": '(SELECT "value" AS "id" FROM json_each(?1)) AS "k"'}


def ids_value(dialect: str, ids: Collection[str]):
    """The parameter `ID_TABLE` reads: an array on PostgreSQL, a JSON list on SQLite."""
    return list(ids) if dialect == "postgres" else json.dumps(list(ids))


def placeholders(dialect: str, start: int, count: int) -> list[str]:
    """`count` parameter marks from the `start`-th (1-based): `$n` on PostgreSQL, `?` on SQLite."""
    return ["?"] * count if dialect == "sqlite" else [f"${n}" for n in range(start, start + count)]


_MARK = re.compile(r"\?")


def numbered(dialect: str, text: str) -> str:
    """`text`, written once with a `?` mark per value in order, as `dialect`'s driver takes it:
    PostgreSQL's are numbered (`$1`, `$2`…). A `?` inside a string literal would be taken for a
    mark: pass such text as a value."""
    if dialect == "sqlite":
        return text
    numbers = count(1)
    return _MARK.sub(lambda _: f"${next(numbers)}", text)


@lru_cache(maxsize=256)
def _numbered_once(dialect: str, text: str) -> str:
    return numbered(dialect, text)


async def write(model: type[Model], text: str, values: Sequence, *, at_end: bool = False) -> int | None:
    """Run a data-modifying statement `text` written once (a constant, `?` marks: `numbered`) on
    `model`'s database (the current transaction's): how many rows it changed. For a hot path's
    UPDATE, which the ORM's `filter().update()` builds afresh on every call; convert the values
    as the ORM's UPDATE does with `db_value`. `at_end`: sent with the open unit of work's other
    put-off writes before its commit (services/core/db.py `write_at_end`; now when no unit is
    open): None then, nothing counted."""
    db = model._meta.db
    text = _numbered_once(db.capabilities.dialect, text)
    if at_end and write_at_end(text, list(values)):
        return None
    changed, _ = await db.execute_query(text, list(values))
    return changed


def db_value(model: type[Model], name: str, value: Any) -> Any:
    """`value` of `model`'s field `name` as the ORM's UPDATE sends it (the field's `to_db_value`;
    not for an `auto_now` timestamp, which it stamps on an instance)."""
    return model._meta.fields_map[name].to_db_value(value, None)


def question_marks(n: int) -> str:
    """`?, ?, …` for an IN list of `n` values of a statement for `numbered` (`NULL`, matching
    nothing, for none)."""
    return ", ".join("?" * n) if n else "NULL"


async def insert(instance: Model, *, at_end: bool = False) -> None:
    """Write a new `instance` (in the current transaction, if any) as `save()` writes one: the
    model's INSERT as the ORM builds it (its executor's, taken once per model and dialect), each
    field's value as the ORM converts it (`to_db_value`, which also stamps the instance's
    `auto_now` timestamps), nothing read back; the instance is then saved, as after `save()`.
    What `save()` spends besides, per call (an executor made, the save signals gathered, the
    database defaults looked for), is for what these models do not use: signals, database
    defaults and generated keys (such a model is refused). A checkout's cart steps write their new
    rows this way (services/carts/). `at_end`: the row is written with the open unit of work's
    other put-off writes, before its commit (services/core/db.py `write_at_end`; now when no unit
    is open)."""
    model = type(instance)
    db = model._meta.db
    text, fields = _insert_statement(model, db)
    values = [field.to_db_value(getattr(instance, name), instance) for name, field in fields]
    if not (at_end and write_at_end(text, values)):
        await db.execute_query(text, values)
    instance._saved_in_db = True


async def insert_unless_taken(instance: Model) -> bool:
    """Write a new `instance` as `insert` does, unless a row already holds one of its unique values
    (`ON CONFLICT DO NOTHING`): whether it was written. One statement where a savepoint around an
    INSERT, for the IntegrityError of losing a race, took three round trips; a row another
    transaction is writing is waited for, as the INSERT waited."""
    model = type(instance)
    db = model._meta.db
    text, fields = _insert_statement(model, db)
    values = [field.to_db_value(getattr(instance, name), instance) for name, field in fields]
    written = await db.execute_query_dict(f'{text} ON CONFLICT DO NOTHING RETURNING "{model._meta.db_pk_column}"',
                                          values)
    instance._saved_in_db = bool(written)
    return bool(written)


async def save(instance: Model, *, at_end: bool = False) -> None:
    """`instance.save()`, a new instance written by `insert`; `at_end`: either written with the
    open unit of work's put-off writes (`insert`, `update`)."""
    if not instance._saved_in_db:
        await insert(instance, at_end=at_end)
    elif at_end:
        await update(instance, at_end=True)
    else:
        await instance.save()


async def update(instance: Model, *, at_end: bool = False) -> None:
    """Write every column of a saved `instance` as `save()` does (the executor's UPDATE of all its
    columns, taken once per model and dialect; `to_db_value` stamps `auto_now` timestamps), without
    save()'s per-call machinery; `at_end` as for `insert`. An instance that holds an expression
    or a database default, or was read partially, goes through `save()` (now)."""
    model = type(instance)
    db = model._meta.db
    text, fields = _update_statement(model, db)
    current = [getattr(instance, name) for name, _ in fields]
    if instance._partial or not instance._saved_in_db or any(
            isinstance(value, (Expression, DatabaseDefault)) for value in current):
        await instance.save()
        return
    values = [field.to_db_value(value, instance) for (_, field), value in zip(fields, current)]
    values.append(model._meta.pk.to_db_value(instance.pk, instance))
    if not (at_end and write_at_end(text, values)):
        await db.execute_query(text, values)


def _update_statement(model: type[Model], db) -> tuple[str, tuple]:
    key = (model, db.capabilities.dialect)
    found = _UPDATES.get(key)
    if found is None:
        _insert_statement(model, db)  # refuses what `insert` refuses
        meta = model._meta
        names = [name for name in meta.fields_db_projection if not meta.fields_map[name].pk
                 and not meta.fields_map[name].generated]
        executor = db.executor_class(model=model, db=db)
        found = _UPDATES[key] = (executor.get_update_sql(names, {}), tuple((n, meta.fields_map[n]) for n in names))
    return found


_UPDATES: dict[tuple, tuple[str, tuple]] = {}


def _insert_statement(model: type[Model], db) -> tuple[str, tuple]:
    key = (model, db.capabilities.dialect)
    found = _INSERTS.get(key)
    if found is None:
        meta = model._meta
        if meta.generated_db_fields or meta.db_default_db_columns or any(
                listeners.get(model) for listeners in model._listeners.values()):
            raise TypeError(f"{model.__name__} has generated keys, database defaults or signals: save() it")
        executor = db.executor_class(model=model, db=db)
        fields = tuple((name, meta.fields_map[name]) for name in executor.regular_columns)
        found = _INSERTS[key] = (executor.insert_query, fields)
    return found


_INSERTS: dict[tuple, tuple[str, tuple]] = {}


async def execute(connection, text: str, values: list) -> list[dict]:
    """Run `text` (marks `?`, one value each, in order) on `connection` (a model's
    `_meta.db`: the current transaction's): the rows it answers (an UPDATE's RETURNING) as dicts."""
    return await connection.execute_query_dict(numbered(connection.capabilities.dialect, text), values)


def sql_type(model: type[Model], column: str) -> str:
    """The PostgreSQL type of a model's column (for a typed NULL in a union's other branch)."""
    meta = model._meta
    return meta.fields_map[meta.fields_db_projection_reverse[column]].get_for_dialect("postgres", "SQL_TYPE")


def typed_null(dialect: str, type_: str) -> Term:
    """A NULL standing for a column of SQL type `type_` (`sql_type`) in a UNION's branch that has
    no such column: typed on PostgreSQL, which settles a union's column types branch by branch
    (an untyped NULL would make it text); SQLite takes any."""
    return NullValue() if dialect == "sqlite" else fn.Cast(NullValue(), type_)


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

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
- a new instance written by the model's own INSERT, without `save()`'s per-call machinery (`insert`),
  and the single-row writes beside it (`update`, `save`, `write`, `insert_unless_taken`).

The bulk writes of many rows (`bulk_upsert`, `bulk_update`) are services/core/bulk_writes.py's; the
rows below a page of parents read in one UNION ALL are services/core/union_rows.py's."""

from __future__ import annotations

import json
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
    "ID_TABLE", "RowBuilder", "Source", "aliased_columns", "by_creation", "db_value", "execute", "insert",
    "insert_unless_taken", "save", "update", "write",
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
    db, text, values = _insert_row(instance)
    if not (at_end and write_at_end(text, values)):
        await db.execute_query(text, values)
    instance._saved_in_db = True


async def insert_unless_taken(instance: Model) -> bool:
    """Write a new `instance` as `insert` does, unless a row already holds one of its unique values
    (`ON CONFLICT DO NOTHING`): whether it was written. One statement where a savepoint around an
    INSERT, for the IntegrityError of losing a race, took three round trips; a row another
    transaction is writing is waited for, as the INSERT waited."""
    db, text, values = _insert_row(instance)
    written = await db.execute_query_dict(
        f'{text} ON CONFLICT DO NOTHING RETURNING "{type(instance)._meta.db_pk_column}"', values)
    instance._saved_in_db = bool(written)
    return bool(written)


def _insert_row(instance: Model) -> tuple[Any, str, list]:
    """The database, the INSERT and its values of a new `instance`, each value as the ORM converts it."""
    db = type(instance)._meta.db
    text, fields = _insert_statement(type(instance), db)
    return db, text, [field.to_db_value(getattr(instance, name), instance) for name, field in fields]


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

"""The one toolkit for hand-written SQL, for the few measured hot paths and bulk writes that the
ORM's statements do not serve (the reads live in an area's `reads.py` or `*_reads.py`):

- parameter marks per dialect (`placeholders`; `numbered` for a statement written once with `?`
  marks, `question_marks` for its IN lists), and `execute` to run one in the current
  transaction's connection;
- a column's PostgreSQL type (`sql_type`) and a NULL of that type (`typed_null`), for a UNION's
  branch that leaves a column empty;
- model instances built from a statement's rows through Tortoise's own `Model._init_from_db`
  (`RowBuilder`, with `aliased_columns` to select a model's columns under an alias), so they
  serialize and save exactly as queried ones do;
- bulk writes of many rows in few statements (services/core/bulk.py).

The rows below a page of parents read in one UNION ALL are services/core/union_rows.py's."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from itertools import count
from typing import Any, Callable

from pypika_tortoise import functions as fn
from pypika_tortoise.terms import NullValue, Term
from tortoise.fields import DatetimeField
from tortoise.models import Model
from tortoise.timezone import get_default_timezone, get_use_tz

__all__ = [
    "RowBuilder", "aliased_columns", "execute", "numbered", "placeholders", "question_marks", "sql_type", "typed_null",
]


class RowBuilder:
    """Builds `model` instances from rows whose column `c` is found under `key_of(c)`, through
    Tortoise's own `Model._init_from_db` (what a queryset calls for each row), so an instance is
    what the ORM would have built: loaded, not partial, saved as a queried one saves."""

    def __init__(self, model: type[Model], key_of: Callable[[str], str]):
        meta = model._meta
        self.model = model
        self.columns = sorted(meta.db_fields)
        self.pk_key = key_of(meta.db_pk_column)
        self.plain = tuple((column, key_of(column)) for column in self.columns if column not in _datetimes(model))
        self.times = tuple((column, key_of(column), _utc_datetime(field)) for column, field in _datetimes(model).items())

    def build(self, row) -> Any:
        """The instance in `row`, or None where an outer join (or a union's other branch) found nothing."""
        if row[self.pk_key] is None:
            return None
        values = {column: row[key] for column, key in self.plain}
        for column, key, convert in self.times:
            value = row[key]
            values[column] = None if value is None else convert(value)
        return self.model._init_from_db(**values)


def _datetimes(model: type[Model]) -> dict[str, DatetimeField]:
    return {column: f for column, _, f in model._meta.db_complex_fields if isinstance(f, DatetimeField)}


def _utc_datetime(field: DatetimeField) -> Callable:
    """The field's conversion, ahead of `_init_from_db`'s own, when the ORM's time zone is UTC:
    the value is handed over already in the ORM's zone object, which the ORM then keeps as it is
    (`astimezone` of a datetime into its own zone is the datetime itself), instead of converting
    every timestamp again (that took a fifth of the time of folding a 100-line cart). SQLite's
    text is parsed by `datetime.fromisoformat` (the ORM's parser took most of the time of
    building an order's rows on SQLite). Elsewhere the ORM converts it, as for any query."""
    zone = get_default_timezone()
    if not get_use_tz() or getattr(zone, "key", None) != "UTC":
        return lambda value: value

    def convert(value):
        if type(value) is str:  # SQLite's text: the C parser, not the ORM's regular expressions
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                return value
        if type(value) is datetime:
            if value.tzinfo is None:  # the ORM reads a naive time as its zone's (UTC here)
                return value.replace(tzinfo=zone)
            if value.tzinfo is not zone:
                return value.astimezone(timezone.utc).replace(tzinfo=zone)
        return value
    return convert


def aliased_columns(model: type[Model], alias: str) -> str:
    """The model's columns under `alias`, each named `alias.column` (a RowBuilder's keys), for a
    hand-written SELECT."""
    return ", ".join(f'"{alias}"."{c}" AS "{alias}.{c}"' for c in sorted(model._meta.db_fields))


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


def question_marks(n: int) -> str:
    """`?, ?, …` for an IN list of `n` values of a statement for `numbered` (`NULL`, matching
    nothing, for none)."""
    return ", ".join("?" * n) if n else "NULL"


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

"""The import's look-ups: a table's rows whose key is one of a chunk's values (handles, SKUs, ids,
option values' variants, collections' handles ...), one statement each whatever their number.

The values are one parameter joined as a table (an array on PostgreSQL, a JSON list on SQLite), so
a statement's text is the same for every chunk and nothing is built value by value: the ORM's
IN lists of a chunk's 1,000 SKUs or 4,000 variant ids cost a tenth of the import's time to build.
A join rather than `= ANY(...)`, which PostgreSQL may answer for a long list by scanning a whole
table. tests/services/batch_jobs/test_product_import_reads.py holds the answers equal to the ORM's
on both backends."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache

from tortoise.fields import DatetimeField
from tortoise.models import Model

from services.core.sql import ID_TABLE, ids_value, timestamp_converter

__all__ = ["where_in", "table_rows_in"]



@lru_cache(maxsize=None)
def _statement(
    dialect: str, table: str, columns: tuple[str, ...], column: str, live: bool, order: tuple[str, ...],
) -> str:
    text = "SELECT " + ", ".join(f'"t"."{c}"' for c in columns)
    text += f' FROM "{table}" "t" JOIN {ID_TABLE[dialect]} ON "t"."{column}" = "k"."id"'
    if live:
        text += ' WHERE "t"."deleted_at" IS NULL'
    if order:
        text += " ORDER BY " + ", ".join(f'"t"."{c}"' for c in order)
    return text


async def where_in(
    model: type[Model], column: str, values: Collection[str], columns: Sequence[str], *, live: bool = True,
    order: Sequence[str] = (),
) -> list[tuple]:
    """`columns` of `model`'s rows whose `column` is one of `values` (distinct strings), as tuples in
    `order` (none given: in no order); only live rows (`deleted_at` unset) unless `live` is False. In
    the current transaction, as the ORM's queries are. Timestamps are converted as the ORM converts
    them; other columns come as the driver gives them (text and integers, as the ORM's)."""
    if not values:
        return []
    rows = await table_rows_in(model._meta.db, model._meta.db_table, column, values, columns, live=live, order=order)
    times = _timestamps(model, tuple(columns))
    if not times:
        return [tuple(row) for row in rows]
    out = []
    for row in rows:
        row = list(row)
        for i, convert in times:
            row[i] = convert(row[i])
        out.append(tuple(row))
    return out


async def table_rows_in(
    db, table: str, column: str, values: Collection[str], columns: Sequence[str], *, live: bool = False,
    order: Sequence[str] = (),
) -> list:
    """`where_in` for a table without a model of its own (a many-to-many link table) on `db`, the
    caller's connection: the driver's rows, nothing converted."""
    if not values:
        return []
    dialect = db.capabilities.dialect
    text = _statement(dialect, table, tuple(columns), column, live, tuple(order))
    _, rows = await db.execute_query(text, [ids_value(dialect, values)])
    return rows


def _timestamps(model: type[Model], columns: tuple[str, ...]) -> list[tuple[int, object]]:
    """(position, converter) of the timestamp columns among `columns` (ask once the ORM knows its database)."""
    meta = model._meta
    return [(i, timestamp_converter(model, c)) for i, c in enumerate(columns)
            if isinstance(meta.fields_map.get(meta.fields_db_projection_reverse.get(c, "")), DatetimeField)]

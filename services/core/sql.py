"""Model instances built straight from the rows of a hand-written statement, as the ORM's
`_init_from_db` builds them (so they serialize and save exactly as queried ones do), without
its keyword dict and per-attribute hooks: a read that builds hundreds of instances spends most
of its time there. Used by the reads that fold joined rows (services/carts/reads.py) and by the
storefront's product page (services/catalog/product_rows.py)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

from tortoise.fields import DatetimeField
from tortoise.models import Model
from tortoise.timezone import get_default_timezone, get_use_tz

__all__ = ["RowBuilder", "aliased_columns", "placeholders", "sql_type"]


class RowBuilder:
    """Builds `model` instances from rows whose column `c` is found under `key_of(c)`."""

    def __init__(self, model: type[Model], key_of: Callable[[str], str]):
        meta = model._meta
        self.model = model
        self.columns = sorted(meta.db_fields)
        self.pk_key = key_of(meta.db_pk_column)
        self.custom_pk = meta.db_pk_column not in meta.generated_db_fields
        self.plain = tuple((attr, key_of(column)) for column, attr, _ in meta.db_native_fields)
        converted = [(attr, key_of(column), f.field_type) for column, attr, f in meta.db_default_fields]
        for column, attr, f in meta.db_complex_fields:
            convert = _utc_datetime(f) if isinstance(f, DatetimeField) else f.to_python_value
            converted.append((attr, key_of(column), convert))
        self.converted = tuple(converted)

    def build(self, row) -> Any:
        """The instance in `row`, or None where an outer join (or a union's other branch) found nothing."""
        if row[self.pk_key] is None:
            return None
        obj = self.model.__new__(self.model)
        values = obj.__dict__
        values["_partial"], values["_saved_in_db"] = False, True
        values["_custom_generated_pk"], values["_await_when_save"] = self.custom_pk, {}
        for attr, key in self.plain:
            values[attr] = row[key]
        for attr, key, convert in self.converted:
            value = row[key]
            values[attr] = None if value is None else convert(value)
        return obj


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


def aliased_columns(model: type[Model], alias: str) -> str:
    """The model's columns under `alias`, each named `alias.column` (a RowBuilder's keys), for a
    hand-written SELECT."""
    return ", ".join(f'"{alias}"."{c}" AS "{alias}.{c}"' for c in sorted(model._meta.db_fields))


def placeholders(dialect: str, start: int, count: int) -> list[str]:
    """`count` parameter marks from the `start`-th (1-based): `$n` on PostgreSQL, `?` on SQLite."""
    return ["?"] * count if dialect == "sqlite" else [f"${n}" for n in range(start, start + count)]


def sql_type(model: type[Model], column: str) -> str:
    """The PostgreSQL type of a model's column (for a typed NULL in a union's other branch)."""
    meta = model._meta
    return meta.fields_map[meta.fields_db_projection_reverse[column]].get_for_dialect("postgres", "SQL_TYPE")

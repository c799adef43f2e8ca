"""Reading the rows below a page of parents (products, orders) in one statement whatever the page
size: a UNION ALL with one branch per kind of row, each branch filling its own columns and
leaving the others NULL, instead of one statement per relation (DESIGN.md "Speed rules").

A kind names its model, the column that names each row's parent, and its FROM … WHERE … with
`{ids}` for the parents' marks (and `{region}` for one more mark, after the ids'). Kinds share a
result column of the same name and type (`id`, `created_at`, `metadata`…), which keeps the
union's rows narrow. Instances are built the way the ORM builds them (services/core/rows.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tortoise.models import Model

from services.core.rows import RowBuilder, placeholders

__all__ = ["Kind", "UnionRows", "live", "relation_order"]


@dataclass(frozen=True)
class Kind:
    name: str
    model: type[Model]
    parent: str  # the column naming the row's parent; the kind's own table is "t"
    joins: str  # FROM … WHERE …, with {ids} for the parents' marks (and {region})


def live(model: type[Model], alias: str) -> str:
    """The condition leaving out soft-deleted rows of `alias`, for a model that has them."""
    return f' AND "{alias}"."deleted_at" IS NULL' if "deleted_at" in model._meta.fields_map else ""


def relation_order(model: type[Model]):
    """The sort key of a relation's rows: the model's RELATION_ORDER, else creation order."""
    names = getattr(model, "RELATION_ORDER", None) or ("created_at", "id")
    return lambda obj: tuple((getattr(obj, n) is None, getattr(obj, n)) for n in names)


def _sql_type(model: type[Model], column: str) -> str:
    meta = model._meta
    return meta.fields_map[meta.fields_db_projection_reverse[column]].get_for_dialect("postgres", "SQL_TYPE")


class UnionRows:
    """The statements and builders of one set of kinds, made once per process and dialect."""

    def __init__(self, kinds: tuple[Kind, ...]):
        self.kinds = kinds
        self._statements: dict[tuple, str] = {}
        self._builders: dict[str, dict[str, RowBuilder]] = {}

    def _slot(self, kind: Kind, column: str) -> str:
        """The result column a kind's column goes to: the first kind's of that name when the
        types agree, else one of its own."""
        first = next(k for k in self.kinds if column in k.model._meta.db_fields)
        same = _sql_type(first.model, column) == _sql_type(kind.model, column)
        return column if same else f"{kind.name}.{column}"

    def builders(self, dialect: str) -> dict[str, RowBuilder]:
        """One builder per kind, made once the ORM knows its database (how a column converts
        depends on the driver)."""
        found = self._builders.get(dialect)
        if found is None:
            found = self._builders[dialect] = {
                kind.name: RowBuilder(kind.model, lambda c, k=kind: self._slot(k, c)) for kind in self.kinds
            }
        return found

    def statement(self, dialect: str, count: int, kinds: tuple[Kind, ...]) -> str:
        """The UNION ALL of `kinds` for `count` parents (PostgreSQL numbers its marks, so every
        branch reuses the ids' marks and the region's comes after them; SQLite's follow the
        text). A branch leaves the columns of other kinds NULL: typed on PostgreSQL, which
        settles a union's column types branch by branch (an untyped NULL would make it text)."""
        key = (dialect, count, tuple(kind.name for kind in kinds))
        sql = self._statements.get(key)
        if sql is not None:
            return sql
        slots: dict[str, str] = {}  # result column -> its type
        for kind in kinds:
            for column in sorted(kind.model._meta.db_fields):
                slots.setdefault(self._slot(kind, column), _sql_type(kind.model, column))
        ids = ",".join(placeholders(dialect, 1, count))
        region = placeholders(dialect, count + 1, 1)[0]
        branches = []
        for kind in kinds:
            number = self.kinds.index(kind)
            mine = {self._slot(kind, c): c for c in kind.model._meta.db_fields}
            columns = ", ".join(
                (f'"t"."{mine[slot]}"' if slot in mine else "NULL" if dialect == "sqlite"
                 else f"CAST(NULL AS {sql_type})") + f' AS "{slot}"' for slot, sql_type in slots.items()
            )
            branches.append(f'SELECT {number} AS "kind", {kind.parent} AS "parent", {columns} '
                            + kind.joins.format(ids=ids, region=region))
        sql = self._statements[key] = " UNION ALL ".join(branches)
        return sql

    @staticmethod
    def _params(dialect: str, ids: list[str], kinds: tuple[Kind, ...], region: str | None) -> list:
        if dialect != "sqlite":
            return ids + ([region] if region is not None else [])
        params = []
        for kind in kinds:  # in the text's order: a branch's region mark comes before its ids
            params += ([region] if "{region}" in kind.joins else []) + ids
        return params

    async def read(
        self, model: type[Model], ids: list[str], kinds: tuple[Kind, ...], *, region: str | None = None,
    ) -> dict[str, dict[Any, list]]:
        """The rows of `kinds` below the parents `ids`, built: by kind name, then by parent,
        each list in its model's relation order."""
        db = model._meta.db
        dialect = db.capabilities.dialect
        _, rows = await db.execute_query(self.statement(dialect, len(ids), kinds),
                                         self._params(dialect, ids, kinds, region))
        builders = self.builders(dialect)
        found: dict[str, dict[Any, list]] = {kind.name: {} for kind in self.kinds}
        for row in rows:
            name = self.kinds[row["kind"]].name
            found[name].setdefault(row["parent"], []).append(builders[name].build(row))
        for kind in kinds:
            order = relation_order(kind.model)
            for children in found[kind.name].values():
                children.sort(key=order)
        return found

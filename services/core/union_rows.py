"""Reading the rows below a page of parents (products, orders) in one statement whatever the page
size: a UNION ALL with one branch per kind of row, each branch filling its own columns and
leaving the others NULL, instead of one statement per relation.

A kind names its model, the column that names each row's parent, and its FROM … WHERE … with
`{ids}` for the parents' marks (and `{region}` for one more mark, before a branch's ids). Result
columns are slots by type, shared by position: a kind's text columns fill `text_0`, `text_1`… in
name order, its timestamps `timestamptz_0`…, so a row is as wide as the widest kind rather than
all kinds together (the driver decodes every column of every row, NULL or not). Instances are
built the way the ORM builds them (services/core/sql.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tortoise.models import Model

from services.core.sql import RowBuilder, placeholders, sql_type, typed_null

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


def _family(sql_type: str) -> str:
    """A column's slot type: strings of any length share text slots; other types have their own."""
    return "TEXT" if sql_type.startswith("VARCHAR") or sql_type == "TEXT" else sql_type


def _slots_of(kind: Kind) -> dict[str, tuple[str, str]]:
    """Each column of the kind's model, the slot it goes to and the slot's type."""
    taken: dict[str, int] = {}
    slots = {}
    for column in sorted(kind.model._meta.db_fields):
        family = _family(sql_type(kind.model, column))
        number = taken[family] = taken.get(family, -1) + 1
        slots[column] = (f"{re.sub(r'[^a-z0-9]+', '_', family.lower()).strip('_')}_{number}", family)
    return slots


class UnionRows:
    """The statements and builders of one set of kinds, made once per process and dialect."""

    def __init__(self, kinds: tuple[Kind, ...]):
        for kind in kinds:
            if {"kind", "parent"} & set(kind.model._meta.db_fields):
                raise ValueError(f"{kind.name}: a column named kind or parent would shadow the union's own")
        self.kinds = kinds
        self._statements: dict[tuple, str] = {}
        self._builders: dict[str, dict[str, RowBuilder]] = {}
        self._slot_map: dict[str, dict[str, tuple[str, str]]] | None = None

    @property
    def _slots(self) -> dict[str, dict[str, tuple[str, str]]]:
        """By kind, its columns' slots: worked out on first use, once the ORM has set up the
        models (their foreign-key columns are known only then)."""
        if self._slot_map is None:
            self._slot_map = {kind.name: _slots_of(kind) for kind in self.kinds}
        return self._slot_map

    def builders(self, dialect: str) -> dict[str, RowBuilder]:
        """One builder per kind, made once the ORM knows its database (how a column converts
        depends on the driver)."""
        found = self._builders.get(dialect)
        if found is None:
            found = self._builders[dialect] = {
                kind.name: RowBuilder(kind.model, lambda c, k=kind: self._slots[k.name][c][0]) for kind in self.kinds
            }
        return found

    def statement(self, dialect: str, count: int, kinds: tuple[Kind, ...]) -> str:
        """The UNION ALL of `kinds` for `count` parents (PostgreSQL numbers its marks, so every
        branch reuses the ids' marks and the region's comes after them; SQLite's follow the
        text). A branch leaves the columns of other kinds NULL, typed (`typed_null`)."""
        key = (dialect, count, tuple(kind.name for kind in kinds))
        sql = self._statements.get(key)
        if sql is not None:
            return sql
        slots = dict(sorted({slot for kind in kinds for slot in self._slots[kind.name].values()}))  # name: type
        ids = ",".join(placeholders(dialect, 1, count))
        region = placeholders(dialect, count + 1, 1)[0]
        branches = []
        for kind in kinds:
            number = self.kinds.index(kind)
            mine = {slot: column for column, (slot, _) in self._slots[kind.name].items()}
            columns = ", ".join(
                (f'"t"."{mine[slot]}"' if slot in mine else str(typed_null(dialect, type_))) + f' AS "{slot}"'
                for slot, type_ in slots.items()
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

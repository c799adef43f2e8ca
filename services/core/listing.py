"""Running list and retrieve queries: paging, ordering and relation loading.

The number of SQL statements is fixed by the relations asked for, never by the number of rows:
one for the page, one or two for the count, and one per relation asked for (nested prefetches).

Counts (a list's `count`, which clients page with) are exact up to COUNT_EXACT_UP_TO rows. Past
that, on PostgreSQL, a list's count is PostgreSQL's own estimate of its rows (the planner's, from
the statistics that autovacuum keeps), never less than what was counted: counting every row of a
list costs as much as reading it, so an exact count of a big shop's 100,000 orders would cost
more with every order taken, on every page. SQLite (the embedded store, a small shop) counts
exactly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Hashable

from tortoise.models import Model
from tortoise.query_utils import Prefetch
from tortoise.queryset import QuerySet

__all__ = [
    "FindConfig", "find_page", "find_plain_page", "find_page_ids", "find_one", "prefetches", "date_filters", "rows_by",
    "COUNT_EXACT_UP_TO", "page_total",
]

# Rows a list counts one by one before its count becomes PostgreSQL's estimate: 667 pages of 15,
# a count that costs about a millisecond from an index.
COUNT_EXACT_UP_TO = 10_000


@dataclass(frozen=True)
class FindConfig:
    limit: int = 50
    offset: int = 0
    order: tuple[tuple[str, bool], ...] = (("created_at", True),)
    relations: tuple[str, ...] = ()


def _related_model(model: type[Model], name: str) -> type[Model]:
    meta = model._meta
    if name in meta.fetch_fields:
        return meta.fields_map[name].related_model
    raise KeyError(f"{model.__name__} has no relation {name}")


def _live(model: type[Model]) -> QuerySet:
    qs = model.all()
    if "deleted_at" in model._meta.fields_map:
        qs = qs.filter(deleted_at=None)
    order = getattr(model, "RELATION_ORDER", None) or (
        ("created_at", "id") if "created_at" in model._meta.fields_map else ("id",)
    )
    return qs.order_by(*order)


def prefetches(model: type[Model], relations: tuple[str, ...], aliases: dict[str, str] | None = None) -> list:
    """Prefetch objects for API relation paths (`variants.prices`), skipping soft-deleted rows and
    ordered by the related model's RELATION_ORDER. Nested paths are prefetched inside their
    parent's queryset, so each relation is read once."""
    tree: dict[str, dict] = {}
    for path in relations:
        node = tree
        for part in path.split("."):
            node = node.setdefault(part, {})
    return _nested(model, tree, aliases or {})


def _nested(model: type[Model], tree: dict[str, dict], aliases: dict) -> list:
    out = []
    for name, children in tree.items():
        attribute = aliases.get(name, name)
        related = _related_model(model, attribute)
        qs = _live(related)
        if children:
            qs = qs.prefetch_related(*_nested(related, children, aliases))
        out.append(Prefetch(attribute, queryset=qs))
    return out


def _ordered(qs: QuerySet, config: FindConfig) -> QuerySet:
    """The requested order, with ties broken by the primary key so pages never overlap."""
    pk = qs.model._meta.pk_attr
    terms = [f"-{name}" if desc else name for name, desc in config.order]
    return qs.order_by(*terms, pk) if pk not in (name for name, _ in config.order) else qs.order_by(*terms)


async def find_page(
    qs: QuerySet, config: FindConfig, aliases: dict[str, str] | None = None, estimated_by: QuerySet | None = None,
) -> tuple[list[Model], int]:
    """One page of `qs` with its relations, and the total count of `qs`. `estimated_by`: a query set
    with the same rows whose plan estimates their number (past COUNT_EXACT_UP_TO) better."""
    page = _ordered(qs, config).offset(config.offset).limit(config.limit)
    if config.relations:
        page = page.prefetch_related(*prefetches(qs.model, config.relations, aliases))
    rows = await page
    return rows, await page_total(qs, config, len(rows), estimated_by)


# The statements of `find_plain_page`, by (dialect, caller's key, config): (page SQL, its parameters,
# the count's statements). Bounded: a search box sends a new key at each keystroke.
_PLAIN: dict[tuple, tuple[str, tuple, "_Count"]] = {}
_PLAIN_SIZE = 512


async def find_plain_page(
    model: type[Model], key: Hashable, build: Callable[[], QuerySet], config: FindConfig
) -> tuple[list[Model], int]:
    """`find_page(build(), config)` for a page without relations, with its two statements built by
    the ORM once per process for each `key` and `config`, then sent as they are. Building them
    (filters, ordering, paging: Tortoise clones the query set at each step) costs more CPU than
    running them. `key` must name everything `build` puts in the query (the caller's filter);
    the rows become instances exactly as the ORM makes them (`_init_from_db`)."""
    if config.relations:
        raise ValueError("find_plain_page reads no relations")
    db = model._meta.db
    full_key = (db.capabilities.dialect, key, config)
    statements = _PLAIN.get(full_key)
    if statements is None:
        qs = build()
        statements = (*_statement(_ordered(qs, config).offset(config.offset).limit(config.limit)),
                      _Count.of(qs, db.capabilities.dialect))
        if len(_PLAIN) >= _PLAIN_SIZE:
            del _PLAIN[next(iter(_PLAIN))]  # the oldest
        _PLAIN[full_key] = statements
    page_sql, page_params, count = statements
    _, rows = await db.execute_query(page_sql, list(page_params))
    page = [model._init_from_db(**row) for row in rows]
    if not _needs_count(len(page), config):
        return page, len(page) + config.offset
    return page, await count.run(db, len(page) + config.offset)


def _statement(query) -> tuple[str, tuple]:
    """The parameterized SQL the ORM would send for `query` (what its `sql()` shows, with values)."""
    query._choose_db_if_not_chosen()
    query._make_query()
    sql, params = query.query.get_parameterized_sql()
    return sql, tuple(params)


async def find_page_ids(qs: QuerySet, config: FindConfig) -> tuple[list, int]:
    """One page of `qs`'s primary keys, for a caller that reads the rows itself, and the total
    count of `qs`."""
    page = _ordered(qs, config).offset(config.offset).limit(config.limit)
    ids = list(await page.values_list(qs.model._meta.pk_attr, flat=True))
    return ids, await page_total(qs, config, len(ids))




def _db_of(qs: QuerySet):
    query = qs.count()
    query._choose_db_if_not_chosen()  # the connection of the transaction the caller may be in
    return query._db


async def page_total(qs: QuerySet, config: FindConfig, shown: int, estimated_by: QuerySet | None = None) -> int:
    """The total of `qs`, of which the page at `config` showed `shown` rows: counted (as the module's
    docstring says) only when the page does not tell it (a full page, or one past the end)."""
    if not _needs_count(shown, config):
        return shown + config.offset
    db = _db_of(qs)
    return await _Count.of(qs, db.capabilities.dialect, estimated_by).run(db, shown + config.offset)


@dataclass(frozen=True)
class _Count:
    """The statements counting a list's rows (see the module's docstring): on PostgreSQL the rows
    counted up to one past COUNT_EXACT_UP_TO, then, only when there are that many, the planner's
    estimate of them all (`EXPLAIN`, which reads no row; built only then); elsewhere a plain count."""

    sql: str
    params: tuple
    qs: QuerySet | None = None  # the list, on PostgreSQL, for its estimate
    exact_up_to: int | None = None  # COUNT_EXACT_UP_TO (as it is when counted) unless given

    @classmethod
    def of(cls, qs: QuerySet, dialect: str, estimated_by: QuerySet | None = None) -> "_Count":
        if dialect != "postgres":
            return cls(*_statement(qs.count()))
        capped, params = _statement(qs.limit(COUNT_EXACT_UP_TO + 1).values_list(qs.model._meta.pk_attr, flat=True))
        return cls(f"SELECT COUNT(*) FROM ({capped}) AS capped", params, estimated_by or qs)

    @cached_property
    def estimate(self) -> tuple[str, tuple]:
        return _estimate_statement(self.qs)

    async def run(self, db, at_least: int) -> int:
        """The count; `at_least`: rows the caller has seen exist (its page's end)."""
        _, rows = await db.execute_query(self.sql, list(self.params))
        counted = next(iter(dict(rows[0]).values())) if rows else 0
        if self.qs is None or counted <= (COUNT_EXACT_UP_TO if self.exact_up_to is None else self.exact_up_to):
            return counted
        return await _estimated(db, self.estimate, counted, at_least)


def _estimate_statement(qs: QuerySet) -> tuple[str, tuple]:
    every, params = _statement(qs.values_list(qs.model._meta.pk_attr, flat=True))
    return f"EXPLAIN (FORMAT JSON) {every}", params


async def _estimated(db, estimate: tuple[str, tuple], counted: int, at_least: int) -> int:
    """The planner's estimate of a list's rows (`estimate`: its `EXPLAIN`, which reads no row),
    never less than the `counted` and `at_least` rows seen."""
    sql, params = estimate
    _, rows = await db.execute_query(sql, list(params))
    plan = next(iter(dict(rows[0]).values()))
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return max(int(plan[0]["Plan"]["Plan Rows"]), counted, at_least)


def _needs_count(shown: int, config: FindConfig) -> bool:
    return not (shown < config.limit and (shown or not config.offset))


async def find_one(qs: QuerySet, relations: tuple[str, ...], aliases: dict[str, str] | None = None) -> Model | None:
    if relations:
        qs = qs.prefetch_related(*prefetches(qs.model, relations, aliases))
    return await qs.first()




def date_filters(**comparisons: dict | None) -> dict:
    """`created_at={"gt": d}` becomes Tortoise's `created_at__gt=d`; empty comparisons vanish."""
    out = {}
    for column, ops in comparisons.items():
        for op, value in (ops or {}).items():
            if value is not None:
                out[f"{column}__{op}"] = value
    return out


def rows_by(rows: list, key: str, keys: list[str]) -> dict[str, list]:
    """`rows` grouped by their `key` attribute, with an empty list for each of `keys` that has none."""
    out: dict[str, list] = {k: [] for k in keys}
    for row in rows:
        out[getattr(row, key)].append(row)
    return out

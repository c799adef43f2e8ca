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

from pypika_tortoise.terms import Parameterizer
from tortoise.expressions import Q, Subquery
from tortoise.models import Model
from tortoise.query_utils import Prefetch
from tortoise.queryset import QuerySet

from services.core.sql import placeholders

__all__ = [
    "FindConfig", "find_page", "find_plain_page", "find_one", "prefetches", "date_filters", "rows_by", "AnyOf",
    "COUNT_EXACT_UP_TO", "SEARCH_COUNT_EXACT_UP_TO", "page_total", "find_page_ids_of_any", "find_page_of_any",
    "AnyStatements",
]

# Rows a list counts one by one before its count becomes PostgreSQL's estimate: 667 pages of 15,
# a count that costs about a millisecond from an index.
COUNT_EXACT_UP_TO = 10_000
# The same for a search over several places (`find_page_ids_of_any`): each place's matches are
# read from its own index and checked row by row, so counting 10,000 of a common name costs about
# 100 ms at a million orders, and 1,000 about 15. Past a thousand matches a search is a scale
# ("about 30,000 orders"), refined rather than paged to its end.
SEARCH_COUNT_EXACT_UP_TO = 1_000


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


async def find_page_ids_of_any(
    qs: QuerySet, branches: list[Q], config: FindConfig, estimated_by: QuerySet
) -> tuple[list, int]:
    """One page of the primary keys of `qs`'s rows that any of `branches` selects, and their count:
    `find_page_ids(qs.filter(Q(*branches, join_type="OR")), config)` without asking the database to
    test every row of `qs` against every branch. Each branch is its own query (the list's filters
    and the branch), so each uses its own index.

    First the matches themselves (`AnyStatements.matched`): each branch's rows unordered, up to one
    past SEARCH_COUNT_EXACT_UP_TO on PostgreSQL, read by the branch's own index; their union, in the
    list's order, gives the page and its exact count at once when there are no more than that. A
    search that matches more (a common name) is a scale: its page is read again branch by branch
    in the list's order, each cut at the page's end (`AnyStatements.page`), so a term that matches
    many rows finds the page's first rows along the order's index; its count is `estimated_by`'s
    estimate (a query set with the same rows), never less than what was seen. Which of the two
    ways suits is not left to the planner: asked for the newest few of a few hundred matches, it
    walks the date index and tests thousands of rows, one heap page each, where the matches' own
    index finds them all in a few pages."""
    db = _db_of(qs)
    postgres = db.capabilities.dialect == "postgres"
    statements = AnyStatements(qs, branches, config, postgres)
    _, rows = await db.execute_query(*statements.matched)
    rows = [dict(row) for row in rows]
    ids = [row["0"] for row in rows]
    matched = rows[0]["matched"] if rows else 0
    if rows and (not postgres or matched <= SEARCH_COUNT_EXACT_UP_TO) or not rows and not config.offset:
        return ids, matched
    if rows or postgres:  # more matches than were read, or a later page of them
        _, rows = await db.execute_query(*statements.page)
        ids = [dict(row)["0"] for row in rows]
    if not _needs_count(len(ids), config):
        return ids, len(ids) + config.offset
    if matched:
        return ids, await _estimated(db, _estimate_statement(estimated_by), matched, len(ids) + config.offset)
    count = _Count(*statements.count, estimated_by if postgres else None, SEARCH_COUNT_EXACT_UP_TO)
    return ids, await count.run(db, len(ids) + config.offset)


async def find_page_of_any(
    qs: QuerySet, branches: list[Q], config: FindConfig, estimated_by: QuerySet
) -> tuple[list[Model], int]:
    """`find_page_ids_of_any`'s page as rows (without relations), in the list's order: one
    statement more, for the page's rows by their keys."""
    ids, count = await find_page_ids_of_any(qs, branches, config, estimated_by)
    if not ids:
        return [], count
    by_id = {getattr(row, qs.model._meta.pk_attr): row for row in await qs.model.filter(
        **{f"{qs.model._meta.pk_attr}__in": ids})}
    return [by_id[i] for i in ids if i in by_id], count


class AnyStatements:
    """The statements of `find_page_ids_of_any`, each an (SQL, parameters) pair, each built when
    first asked for (building one costs more CPU than running it: a product search's places hold
    up to a thousand of the search engine's ids, each a parameter). `capped`: each branch's
    matches read up to one past SEARCH_COUNT_EXACT_UP_TO."""

    def __init__(self, qs: QuerySet, branches: list[Q], config: FindConfig, capped: bool) -> None:
        self.qs, self.branches, self.config, self.capped = qs, branches, config, capped
        pk = qs.model._meta.pk_attr
        terms = [*config.order] + ([] if pk in (name for name, _ in config.order) else [(pk, False)])
        self.columns = [pk] + [name for name, _ in terms if name != pk]
        self.order = ", ".join(f'"{self.columns.index(name)}" {"DESC" if desc else "ASC"}' for name, desc in terms)

    def _paged(self, union: str, params: list, select: str) -> tuple[str, list]:
        limit, offset = placeholders(_db_of(self.qs).capabilities.dialect, len(params) + 1, 2)
        return (f'SELECT {select} FROM ({union}) AS "page" ORDER BY {self.order} LIMIT {limit} OFFSET {offset}',
                [*params, self.config.limit, self.config.offset])

    def _matches(self) -> list[QuerySet]:
        cut = SEARCH_COUNT_EXACT_UP_TO + 1
        return [self.qs.filter(b).limit(cut) if self.capped else self.qs.filter(b) for b in self.branches]

    @cached_property
    def matched(self) -> tuple[str, list]:
        """The page of the (capped) matches, each row with their number."""
        union = _union([q.values_list(*self.columns) for q in self._matches()], len(self.columns))
        return self._paged(*union, select='"0", COUNT(*) OVER () AS "matched"')

    @cached_property
    def page(self) -> tuple[str, list]:
        """The page, each branch read in the list's order up to the page's end."""
        end = self.config.offset + self.config.limit
        members = [_ordered(self.qs.filter(b), self.config).limit(end) for b in self.branches]
        return self._paged(*_union([q.values_list(*self.columns) for q in members], len(self.columns)), select='"0"')

    @cached_property
    def count(self) -> tuple[str, list]:
        """The (capped) matches counted."""
        counted, params = _union([q.values_list(self.qs.model._meta.pk_attr) for q in self._matches()], 1)
        return f'SELECT COUNT(*) FROM ({counted}) AS "matched"', params


def _union(queries: list[QuerySet], width: int) -> tuple[str, list]:
    """`SELECT` of each query (each read as a table, so each keeps its own order and limit) in one
    `UNION`, with their parameters numbered in turn; the columns are named "0" to `width - 1`."""
    columns = ", ".join(f'"{i}"' for i in range(width))
    ctx = None
    parts = []
    for i, query in enumerate(queries):
        query._choose_db_if_not_chosen()
        query._make_query()
        if ctx is None:
            ctx = query.query.QUERY_CLS.SQL_CONTEXT.copy(parameterizer=Parameterizer())
        parts.append(f'SELECT {columns} FROM ({query.query.get_sql(ctx)}) AS "branch{i}"')
    return " UNION ".join(parts), list(ctx.parameterizer.values)


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


class AnyOf(Subquery):
    """`Q(id__in=AnyOf(a, b, c))`: the rows any of the one-column queries `a`, `b`, `c` finds, as
    one `UNION ALL` subquery. A search over several tables ("the e-mail, or the customer's name, or
    the shipping address's name") written as one OR across joins makes the database join and test
    every row; each query of a union can use its own index instead."""

    def __init__(self, *queries: QuerySet) -> None:
        super().__init__(queries[0])
        self.queries = queries

    def get_sql(self, ctx) -> str:
        # One parameterizer, so the parts' parameters are numbered in turn; the parts bare (SQLite
        # refuses a parenthesized SELECT in a compound), the whole in parentheses.
        bare = ctx.copy(subquery=False)
        parts = []
        for query in self.queries:
            query._choose_db_if_not_chosen()
            query._make_query()
            parts.append(query.query.get_parameterized_sql(bare)[0])
        return f"({' UNION ALL '.join(parts)})"


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

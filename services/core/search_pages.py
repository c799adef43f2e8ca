"""A list's page searched for in several places (services/orders/listing.py's `q`: the e-mail, the
customer's names, the shipping address's name; services/catalog/products.py's: the title, the
description, the variants, the collection, the search engine's matches): each place is its own
query on its own index, rather than one condition over the rows joined to all of them, which tests
every row. Paging and counting follow services/core/listing.py's conventions."""

from __future__ import annotations

import json
from functools import cached_property

from pypika_tortoise.enums import Dialects
from pypika_tortoise.terms import Criterion, Parameterizer, Term
from tortoise.expressions import Q, Subquery
from tortoise.query_utils import QueryModifier
from tortoise.queryset import QuerySet

from services.core.listing import (
    FindConfig, _Count, _db_of, _estimate_statement, _estimated, _needs_count, _ordered,
)
from services.core.sql import placeholders

__all__ = ["SEARCH_COUNT_EXACT_UP_TO", "AnyOf", "AnyStatements", "Keys", "find_page_ids_of_any", "find_page_of_any"]

# The same for a search over several places (`find_page_ids_of_any`): each place's matches are
# read from its own index and checked row by row, so counting 10,000 of a common name costs about
# 100 ms at a million orders, and 1,000 about 15. Past a thousand matches a search is a scale
# ("about 30,000 orders"), refined rather than paged to its end.
SEARCH_COUNT_EXACT_UP_TO = 1_000


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


class Keys(Q):
    """`Keys(ids)`: the rows whose primary key is one of `ids` (strings), a filter like
    `Q(pk__in=ids)` whose list is ONE parameter: `= ANY($n::text[])` on PostgreSQL, a JSON list
    read by json_each on SQLite. The statement's text is then the same whatever their number: an
    `IN` of a thousand marks (the search engine's matches a product search adds) cost more CPU to
    build than the statement's work, and each length was a statement of its own to prepare."""

    __slots__ = ("ids",)

    def __init__(self, ids: list[str]) -> None:
        super().__init__()
        self.ids = list(ids)

    def __invert__(self) -> Keys:
        negated = Keys(self.ids)
        negated._is_negated = not self._is_negated
        return negated

    def resolve(self, resolve_context) -> QueryModifier:
        column = resolve_context.table[resolve_context.model._meta.db_pk_column]
        modifier = QueryModifier(where_criterion=_KeysCriterion(column, self.ids))
        return ~modifier if self._is_negated else modifier


class _KeysCriterion(Criterion):
    def __init__(self, column: Term, ids: list[str]) -> None:
        super().__init__()
        self.column, self.ids = column, ids

    def get_sql(self, ctx) -> str:
        column = self.column.get_sql(ctx)
        if ctx.dialect == Dialects.POSTGRESQL:
            return f"{column} = ANY({ctx.parameterizer.create_param(self.ids).get_sql(ctx)}::text[])"
        listed = ctx.parameterizer.create_param(json.dumps(self.ids)).get_sql(ctx)
        return f'{column} IN (SELECT "value" FROM json_each({listed}))'

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
from tortoise.models import Model
from tortoise.query_utils import QueryModifier
from tortoise.queryset import QuerySet

from services.core.listing import (
    FindConfig, _Count, _db_of, _estimate_statement, _estimated, _needs_count,
)

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
    list's order, gives the page and its exact count at once when there are no more than that. The
    branches are read in turn, and once one holds more the statement stops and says so, reading
    neither the later branches nor the union (so the caller lists first the branch that shows a
    broad search at least cost). A search that matches more (a common name) is a scale: its page
    is read again branch by branch in the list's order, each cut at the page's end
    (`AnyStatements.page`), so a term that matches many rows finds the page's first rows along the
    order's index; its count is `estimated_by`'s estimate (a query set with the same rows), never
    less than what was read. So a count of SEARCH_COUNT_EXACT_UP_TO or less is always exact: the
    estimate is asked for only once one more was read.

    Which way suits is not left to the planner, nor chosen by its estimate of the matches. Asked
    for the newest few of a few hundred matches, the planner walks the date index and tests
    thousands of rows, one heap page each, where the matches' own index finds them all in a few
    pages; and its estimate of a substring's matches comes from its statistics' buckets, too
    coarse to choose by (at a million orders, searches it put at 2,000 to 4,000 orders matched
    from 13 to 996)."""
    db = _db_of(qs)
    postgres = db.capabilities.dialect == "postgres"
    statements = AnyStatements(qs, branches, config, postgres)
    _, rows = await db.execute_query(*statements.matched)
    rows = [dict(row) for row in rows]
    if rows and rows[0]["matched"] == _BROAD:  # a branch alone matches more than are counted
        return await _broad_page(db, statements, estimated_by, SEARCH_COUNT_EXACT_UP_TO + 1)
    ids = [row["0"] for row in rows]
    matched = rows[0]["matched"] if rows else 0
    if rows and (not postgres or matched <= SEARCH_COUNT_EXACT_UP_TO) or not rows and not config.offset:
        return ids, matched
    if matched:  # more matches than are counted, each branch having fewer
        return await _broad_page(db, statements, estimated_by, matched)
    if postgres:  # a later page than the (capped) matches hold
        _, rows = await db.execute_query(*statements.page)
        ids = [dict(row)["0"] for row in rows]
    if not _needs_count(len(ids), config):
        return ids, len(ids) + config.offset
    count = _Count(*statements.count, estimated_by if postgres else None, SEARCH_COUNT_EXACT_UP_TO)
    return ids, await count.run(db, len(ids) + config.offset)


async def _broad_page(db, statements: AnyStatements, estimated_by: QuerySet, matched: int) -> tuple[list, int]:
    """The page of a search known to match more than SEARCH_COUNT_EXACT_UP_TO rows (`matched` of
    them read), and its estimated count."""
    _, rows = await db.execute_query(*statements.page)
    ids = [dict(row)["0"] for row in rows]
    seen = len(ids) + statements.config.offset
    if not _needs_count(len(ids), statements.config):
        return ids, seen
    return ids, await _estimated(db, _estimate_statement(estimated_by), matched, seen)


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


_BROAD = -1  # `matched` of the row AnyStatements.matched answers when a branch alone has more
_MARK = "\x00"  # a parameter's mark in a branch's SQL, numbered when a statement is put together


class AnyStatements:
    """The statements of `find_page_ids_of_any`, each an (SQL, parameters) pair, each built when
    first asked for, from each branch's query built once (by the ORM, which costs more CPU than
    running the statements). `capped`: each branch's matches read up to one past
    SEARCH_COUNT_EXACT_UP_TO (PostgreSQL's; SQLite, a small shop, reads them all)."""

    def __init__(self, qs: QuerySet, branches: list[Q], config: FindConfig, capped: bool) -> None:
        self.qs, self.branches, self.config, self.capped = qs, branches, config, capped
        pk = qs.model._meta.pk_attr
        terms = [*config.order] + ([] if pk in (name for name, _ in config.order) else [(pk, False)])
        self.columns = [pk] + [name for name, _ in terms if name != pk]
        self.order = ", ".join(f'"{self.columns.index(name)}" {"DESC" if desc else "ASC"}' for name, desc in terms)
        self.dialect = _db_of(qs).capabilities.dialect

    @cached_property
    def _branches(self) -> list[tuple[str, list]]:
        """Each branch's rows, `SELECT` their key as "0" and the order's columns as "1"…, with
        _MARK for each parameter, and the parameters."""
        out = []
        for branch in self.branches:
            query = self.qs.filter(branch).values_list(*self.columns)
            query._choose_db_if_not_chosen()
            query._make_query()
            ctx = query.query.QUERY_CLS.SQL_CONTEXT.copy(parameterizer=Parameterizer(lambda _: _MARK))
            out.append((query.query.get_sql(ctx), list(ctx.parameterizer.values)))
        return out

    def _statement(self, text: str, params: list) -> tuple[str, list]:
        if self.dialect == "sqlite":
            return text.replace(_MARK, "?"), params
        parts = text.split(_MARK)
        return "".join(f"{part}${n}" for n, part in enumerate(parts[:-1], 1)) + parts[-1], params

    def _capped(self) -> tuple[list[str], list]:
        """Each branch's (capped) matches, and the parameters."""
        sqls, params = [], []
        for sql, values in self._branches:
            sqls.append(f"{sql} LIMIT {_MARK}" if self.capped else sql)
            params += [*values, SEARCH_COUNT_EXACT_UP_TO + 1] if self.capped else values
        return sqls, params

    def _paged(self, union: str, select: str) -> str:
        return f'SELECT {select} FROM ({union}) AS "page" ORDER BY {self.order} LIMIT {_MARK} OFFSET {_MARK}'

    @cached_property
    def matched(self) -> tuple[str, list]:
        """The page of the (capped) matches, each row with their number; when capped, read branch
        by branch in turn until one has more than are counted, then only the row ("0" NULL,
        "matched" _BROAD) that says so."""
        sqls, params = self._capped()
        columns = ", ".join(f'"{i}"' for i in range(len(self.columns)))
        paging = [self.config.limit, self.config.offset]
        if not self.capped:
            union = " UNION ".join(f'SELECT {columns} FROM ({sql}) AS "branch{i}"' for i, sql in enumerate(sqls))
            return self._statement(self._paged(union, '"0", COUNT(*) OVER () AS "matched"'), params + paging)
        # Each branch's matches kept as read (a CTE named twice is read once), the branches counted
        # in turn (each count is read when the OR reaches it), the union only when none has more.
        kept = ", ".join(f'"branch{i}" AS MATERIALIZED ({sql})' for i, sql in enumerate(sqls))
        broad = " OR ".join(f'(SELECT COUNT(*) FROM "branch{i}") > {_MARK}' for i in range(len(sqls)))
        union = " UNION ".join(f'SELECT {columns} FROM "branch{i}"' for i in range(len(sqls)))
        page = (f'SELECT "0", COUNT(*) OVER () AS "matched" FROM ({union}) AS "union" WHERE NOT (SELECT "b" FROM "broad") '
                f'ORDER BY {self.order} LIMIT {_MARK} OFFSET {_MARK}')
        text = (f'WITH {kept}, "broad" AS MATERIALIZED (SELECT {broad} AS "b") '
                f'SELECT "0", "matched" FROM ({page}) AS "matches" '
                f'UNION ALL SELECT NULL, {_BROAD} FROM "broad" WHERE "b"')
        return self._statement(text, params + [SEARCH_COUNT_EXACT_UP_TO] * len(sqls) + paging)

    @cached_property
    def page(self) -> tuple[str, list]:
        """The page, each branch read in the list's order up to the page's end."""
        columns = ", ".join(f'"{i}"' for i in range(len(self.columns)))
        union = " UNION ".join(f'SELECT {columns} FROM ({sql} ORDER BY {self.order} LIMIT {_MARK}) AS "branch{i}"'
                               for i, (sql, _) in enumerate(self._branches))
        end = self.config.offset + self.config.limit
        params = [value for _, values in self._branches for value in [*values, end]]
        return self._statement(self._paged(union, '"0"'), params + [self.config.limit, self.config.offset])

    @cached_property
    def count(self) -> tuple[str, list]:
        """The (capped) matches counted."""
        sqls, params = self._capped()
        union = " UNION ".join(f'SELECT "0" FROM ({sql}) AS "branch{i}"' for i, sql in enumerate(sqls))
        return self._statement(f'SELECT COUNT(*) FROM ({union}) AS "matched"', params)


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
    build than the statement's work, and each length was a statement of its own to prepare.

    For a condition of its own (ANDed with the others), found by the key's index. Not for one ORed
    with others and tested row by row: a statement run again is planned once for any list (a
    generic plan) when PostgreSQL finds that no dearer, and planned without the list's length, such
    a test compares each row with every key (a product search's joins: 45-60 ms instead of 35)."""

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

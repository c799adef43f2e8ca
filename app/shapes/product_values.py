"""The query and answer shared by the tag and type lists of both interfaces: Medusa v1 takes no
`expand` or `fields` there and shows four columns."""

from __future__ import annotations

from app.web.query import DateComparison, Filters, QuerySpec, StrList, parse_query
from app.web.responses import json
from app.web.serialize import dump_many
from services.catalog.tags_types import ValueFilter

__all__ = ["ValueFilters", "value_list_spec", "value_list", "VALUE_COLUMNS"]

VALUE_COLUMNS = frozenset({"id", "value", "created_at", "updated_at"})


class ValueFilters(Filters):
    q: str | None = None
    id: StrList = []
    value: StrList = []
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    discount_condition_id: str | None = None


def value_list_spec(default_limit: int) -> QuerySpec:
    return QuerySpec(
        columns=tuple(sorted(VALUE_COLUMNS)), allowed_order=("id", "value", "created_at", "updated_at"),
        filters=ValueFilters, default_limit=default_limit, selectable=False,
    )


async def value_list(request, spec: QuerySpec, lister, key: str):
    """The answer of a tag or type list: `{key: [...], count, offset, limit}`."""
    q = parse_query(request.query_string, spec)
    rows, count = await lister(ValueFilter(**q.filters.plain(), **q.filters.comparisons()), q.find())
    return json({key: dump_many(rows, (), VALUE_COLUMNS), "count": count, "offset": q.offset, "limit": q.limit})

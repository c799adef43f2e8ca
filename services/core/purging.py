"""Deleting what retention lets go of, in bounded batches: the scheduled maintenance
(jobs/maintenance.py) purges tables that grow with the trade (jobs, events, sessions, idempotency
keys, gateway events), where a single `DELETE … WHERE <due>` over a big backlog would hold its
locks and build one huge transaction for as long as it takes.

Each batch is one statement, `DELETE FROM t WHERE pk IN (SELECT pk FROM t WHERE <due> ORDER BY
<indexed column> LIMIT BATCH)`, committed on its own; batches follow one another until one finds
fewer than BATCH due rows. The due condition and its order are to be served by an index (the
migrations give every purge one; tests/jobs/test_maintenance.py plans each statement), so a batch
reads its rows and nothing else. Two hosts purging at once delete each row once: the second waits
for the first's batch and finds those rows gone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from tortoise.expressions import Q, Subquery
from tortoise.queryset import QuerySet

__all__ = ["BATCH", "delete_in_batches", "past", "read_in_batches"]

BATCH = 1000  # rows a purge statement deletes at most: a few milliseconds of locks and WAL


async def delete_in_batches(due: QuerySet, order_by: str) -> int:
    """Delete the rows of `due`, BATCH at a time in the order of `order_by` (the indexed column
    of the due condition); answers how many were deleted."""
    model = due.model
    pk = model._meta.pk_attr
    deleted = 0
    while True:
        batch = BATCH  # read at each batch: a test lowers it
        chosen = due.order_by(order_by).limit(batch).values(pk)
        count = await model.filter(**{f"{pk}__in": Subquery(chosen)}).delete()
        deleted += count
        if count < batch:
            return deleted


async def read_in_batches(due: QuerySet, column: str, size: int) -> AsyncIterator[list]:
    """The rows of `due`, `size` a statement in the order of (`column`, id), each batch going on
    from where the last ended (`past`): a sweep that may leave a row due reads it once a run. The
    order is to be served by an index on (`column`, id) under the due condition."""
    after = None
    while True:
        page = due if after is None else due.filter(past(column, after))
        rows = await page.order_by(column, "id").limit(size)
        if rows:
            yield rows
        if len(rows) < size:
            return
        after = (getattr(rows[-1], column), rows[-1].id)


def past(column: str, key: tuple[Any, str]) -> Q:
    """Rows after `key`, a row's (`column`, id), in the order of (`column`, id): for a sweep that
    reads the rows it leaves in place once a run, going on from where its last batch ended. The
    range on `column` bounds the index read; the rows tied with the key at `column` are told apart
    by id (`~Q(a, b)` is NOT (a AND b); Tortoise's `exclude(a=…, b=…)` would be NOT a AND NOT b)."""
    value, last_id = key
    return Q(**{f"{column}__gte": value}) & ~Q(**{column: value, "id__lte": last_id})

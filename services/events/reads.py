"""The events area's hand-written reads: what a dispatch reads of its event (the event and the
subscribers that already handled it) in one statement instead of the ORM's two.
tests/services/events/test_reads.py holds it equal to the ORM's read on both backends."""

from __future__ import annotations

from functools import lru_cache

from models import Event
from services.core.sql import RowBuilder, aliased_columns, placeholders

__all__ = ["event_and_receipts"]


async def event_and_receipts(event_id: str) -> tuple[Event | None, set[str]]:
    """The event and the subscribers that already handled it, in one statement (a dispatch runs
    for every order placed: the second round trip was a twelfth of its statements)."""
    db = Event._meta.db
    _, rows = await db.execute_query(_read_statement(db.capabilities.dialect), [event_id])
    if not rows:
        return None, set()
    return _builder().build(rows[0]), {row["receipt"] for row in rows if row["receipt"] is not None}


@lru_cache(maxsize=None)
def _read_statement(dialect: str) -> str:
    mark = placeholders(dialect, 1, 1)[0]
    return (f'SELECT {aliased_columns(Event, "e")}, "r"."subscriber_id" AS "receipt" FROM "event" "e" '
            f'LEFT JOIN "event_receipt" "r" ON "r"."event_id" = "e"."id" WHERE "e"."id" = {mark}')


@lru_cache(maxsize=None)
def _builder() -> RowBuilder:
    return RowBuilder(Event, lambda column: f"e.{column}")

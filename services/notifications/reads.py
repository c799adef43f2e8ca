"""The notifications area's hand-written reads: what the sender reads of a notification (the row,
with the shop's name and swap link that an order's message shows) in one statement instead of the
ORM's two. tests/services/notifications/test_reads.py holds it equal to the ORM's reads on both
backends."""

from __future__ import annotations

from functools import lru_cache

from models import Notification
from services.core.sql import RowBuilder, aliased_columns, placeholders

__all__ = ["note_and_shop"]


async def note_and_shop(notification_id: str) -> tuple[Notification | None, str, str | None]:
    """The notification, with the shop's name and swap link that an order's message shows, in
    one statement (the worker sends one for every order placed: the store's own read was a
    fifth of the job's statements). Read with the row, not kept per process: the admin API
    changes the store in another process."""
    db = Notification._meta.db
    _, rows = await db.execute_query(_read_statement(db.capabilities.dialect), [notification_id])
    if not rows:
        return None, "Our shop", None
    row = rows[0]
    has_store = row["shop_id"] is not None
    return _builder().build(row), (row["shop_name"] if has_store else "Our shop"), row["shop_swap"]


@lru_cache(maxsize=None)
def _read_statement(dialect: str) -> str:
    mark = placeholders(dialect, 1, 1)[0]
    return (f'SELECT {aliased_columns(Notification, "n")}, "s"."id" AS "shop_id", "s"."name" AS "shop_name", '
            f'"s"."swap_link_template" AS "shop_swap" FROM "notification" "n" '
            f'LEFT JOIN (SELECT "id", "name", "swap_link_template" FROM "store" LIMIT 1) "s" ON TRUE '
            f'WHERE "n"."id" = {mark}')


@lru_cache(maxsize=None)
def _builder() -> RowBuilder:
    return RowBuilder(Notification, lambda column: f"n.{column}")

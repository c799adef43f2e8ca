"""The notifications area's hand-written reads: what the sender reads of a notification (the row,
with the shop's name and swap link and the row's customer, which a message shows) in one
statement instead of the ORM's three. tests/services/notifications/test_reads.py holds it equal to
the ORM's reads on both backends."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from models import Notification
from services.core.sql import RowBuilder, aliased_columns, placeholders

__all__ = ["Sending", "note_and_shop"]


class Sending(NamedTuple):
    note: Notification | None
    shop_name: str
    swap_link: str | None
    customer: dict | None  # first_name, last_name, email of the row's customer_id, when it has one


async def note_and_shop(notification_id: str) -> Sending:
    """The notification, with the shop's name and swap link and the customer that a message
    shows, in one statement (the worker sends one for every order placed: the store's own read
    was a fifth of the job's statements). Read with the row, not kept per process: the admin API
    changes the store in another process."""
    db = Notification._meta.db
    _, rows = await db.execute_query(_read_statement(db.capabilities.dialect), [notification_id])
    if not rows:
        return Sending(None, "Our shop", None, None)
    row = rows[0]
    has_store = row["shop_id"] is not None
    customer = ({"first_name": row["customer_first_name"], "last_name": row["customer_last_name"],
                 "email": row["customer_email"]} if row["customer_id_found"] is not None else None)
    return Sending(_builder().build(row), row["shop_name"] if has_store else "Our shop", row["shop_swap"], customer)


@lru_cache(maxsize=None)
def _read_statement(dialect: str) -> str:
    mark = placeholders(dialect, 1, 1)[0]
    return (f'SELECT {aliased_columns(Notification, "n")}, "s"."id" AS "shop_id", "s"."name" AS "shop_name", '
            f'"s"."swap_link_template" AS "shop_swap", "c"."id" AS "customer_id_found", '
            f'"c"."first_name" AS "customer_first_name", "c"."last_name" AS "customer_last_name", '
            f'"c"."email" AS "customer_email" FROM "notification" "n" '
            f'LEFT JOIN (SELECT "id", "name", "swap_link_template" FROM "store" LIMIT 1) "s" ON TRUE '
            f'LEFT JOIN "customer" "c" ON "c"."id" = "n"."customer_id" '
            f'WHERE "n"."id" = {mark}')


@lru_cache(maxsize=None)
def _builder() -> RowBuilder:
    return RowBuilder(Notification, lambda column: f"n.{column}")

"""Display ids: the short numbers shoppers and staff read (order #1042). Orders and draft orders
draw from one counter, as in Medusa v1.

On PostgreSQL the counter is a sequence (`display_id_order`, models/migrations/0035): `nextval`
locks no row and is not undone by a rollback, so a number is taken by one statement wherever the
caller is, and concurrent checkouts never queue on it. On SQLite it is the `display_sequence` row,
bumped in its own short transaction, never inside the caller's (on SQLite's one connection it
would wait for itself). A number taken by a transaction that later rolls back is skipped (Medusa's
serial columns skip numbers the same way)."""

from __future__ import annotations

from typing import Sequence

from tortoise.transactions import in_transaction

from models import DisplaySequence
from services.core.sql import placeholders

__all__ = ["next_display_id", "next_display_id_for_cart", "ensure_sequence", "continue_after"]

ORDER_SEQUENCE = "order"


def _sequence(name: str) -> str:
    """The PostgreSQL sequence of the counter `name` (models/migrations/0035)."""
    return f"display_id_{name}"


async def ensure_sequence() -> None:
    await DisplaySequence.get_or_create(name=ORDER_SEQUENCE, defaults={"value": 0})


async def continue_after(highest: int, name: str = ORDER_SEQUENCE) -> None:
    """The counter `name` goes on after `highest` (never back): its next number is at least
    `highest` + 1."""
    await ensure_sequence()
    db = DisplaySequence._meta.db
    if db.capabilities.dialect != "postgres":
        await DisplaySequence.filter(name=name, value__lt=highest).update(value=highest)
    elif highest > 0:  # setval(s, n): the next number is n + 1
        sequence = _sequence(name)
        await db.execute_query(
            f"SELECT setval('\"{sequence}\"', $1) FROM \"{sequence}\" WHERE NOT is_called OR last_value < $1",
            [highest],
        )


async def next_display_id(name: str = ORDER_SEQUENCE) -> int:
    """The next number of the counter `name` (1 for the first). Call it outside any transaction
    (on PostgreSQL it may be called inside one: the sequence holds no lock)."""
    number = await _next_when(None, [], name)
    if number is None:
        raise LookupError(f"display sequence {name!r} is missing: run `commerce migrate`")
    return number


# The cart whose order is placed with its payment in one transaction: open, not a swap's, its
# selected payment session through one of the given providers.
_OPEN_CART_PAYING_THROUGH = (
    'EXISTS (SELECT 1 FROM "cart" c JOIN "payment_session" s ON s."cart_id" = c."id" AND s."is_selected"'
    ' WHERE c."id" = {} AND c."completed_at" IS NULL AND c."deleted_at" IS NULL AND c."type" <> \'swap\''
    ' AND s."provider_id" IN (%s))'
)


async def next_display_id_for_cart(cart_id: str, provider_ids: Sequence[str]) -> int | None:
    """The number of the order that cart `cart_id` is about to become, taken only when the cart
    is open, not a swap's, and pays through its selected session with one of `provider_ids`
    (None otherwise, and for no providers), in one statement: the caller spends a number only on
    such a cart without reading it first. Outside any transaction, as `next_display_id`."""
    if not provider_ids:
        return None
    condition = _OPEN_CART_PAYING_THROUGH % ", ".join(["{}"] * len(provider_ids))
    return await _next_when(condition, [cart_id, *provider_ids])


async def _next_when(condition: str | None, params: list, name: str = ORDER_SEQUENCE) -> int | None:
    """The next number of the counter `name`, taken only when the SQL `condition` holds (None
    when it does not), in the same one statement. The condition's parameter marks are `{}`."""
    db = DisplaySequence._meta.db
    if db.capabilities.dialect == "postgres":
        # No transaction of its own: the one statement commits on its own, or is the caller's.
        where = f" WHERE {condition.format(*placeholders('postgres', 1, len(params)))}" if condition else ""
        rows = await db.execute_query_dict(f"SELECT nextval('\"{_sequence(name)}\"') AS \"value\"{where}", params)
        return int(rows[0]["value"]) if rows else None
    async with in_transaction() as connection:
        marks = placeholders("sqlite", 2, len(params))
        where = f' AND ({condition.format(*marks)})' if condition else ""
        rows = await connection.execute_query_dict(
            f'UPDATE "display_sequence" SET "value" = "value" + 1 WHERE "name" = ?{where} RETURNING "value"',
            [name, *params],
        )
    return int(rows[0]["value"]) if rows else None

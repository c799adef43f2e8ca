"""Display ids: the short numbers shoppers and staff read (order #1042). Orders and draft orders
draw from one counter, as in Medusa v1.

A number is taken in its own short transaction, never inside the caller's: the counter row is
locked only for that moment, so concurrent checkouts of different carts do not queue behind
each other. A number taken by a transaction that later rolls back is skipped (Medusa's serial
columns skip numbers the same way)."""

from __future__ import annotations

from tortoise.transactions import in_transaction

from models import DisplaySequence

__all__ = ["next_display_id", "ensure_sequence"]

ORDER_SEQUENCE = "order"


async def ensure_sequence() -> None:
    await DisplaySequence.get_or_create(name=ORDER_SEQUENCE, defaults={"value": 0})


async def next_display_id(name: str = ORDER_SEQUENCE) -> int:
    """The next number of the counter `name` (1 for the first). Call it outside any transaction:
    inside one it would hold the counter's lock until that transaction ends (and on SQLite's one
    connection it would wait for itself)."""
    async with in_transaction() as connection:
        rows = await connection.execute_query_dict(
            'UPDATE "display_sequence" SET "value" = "value" + 1 WHERE "name" = ? RETURNING "value"'
            if connection.capabilities.dialect == "sqlite" else
            'UPDATE "display_sequence" SET "value" = "value" + 1 WHERE "name" = $1 RETURNING "value"',
            [name],
        )
    if not rows:
        raise LookupError(f"display sequence {name!r} is missing: run `commerce migrate`")
    return int(rows[0]["value"])

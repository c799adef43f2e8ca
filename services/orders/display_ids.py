"""Display ids: the short numbers shoppers and staff read (order #1042). Orders and draft orders
draw from one counter, as in Medusa v1.

A number is taken in its own short transaction, never inside the caller's: the counter row is
locked only for that moment, so concurrent checkouts of different carts do not queue behind
each other. A number taken by a transaction that later rolls back is skipped (Medusa's serial
columns skip numbers the same way)."""

from __future__ import annotations

from tortoise.transactions import in_transaction

from models import DisplaySequence

__all__ = ["next_display_id", "next_display_id_when", "ensure_sequence"]

ORDER_SEQUENCE = "order"


async def ensure_sequence() -> None:
    await DisplaySequence.get_or_create(name=ORDER_SEQUENCE, defaults={"value": 0})


async def next_display_id(name: str = ORDER_SEQUENCE) -> int:
    """The next number of the counter `name` (1 for the first). Call it outside any transaction:
    inside one it would hold the counter's lock until that transaction ends (and on SQLite's one
    connection it would wait for itself)."""
    number = await next_display_id_when(None, [], name)
    if number is None:
        raise LookupError(f"display sequence {name!r} is missing: run `commerce migrate`")
    return number


async def next_display_id_when(condition: str | None, params: list, name: str = ORDER_SEQUENCE) -> int | None:
    """The next number of the counter `name`, taken only when the SQL `condition` holds (None
    when it does not), in the same one statement: a caller that spends a number only on some
    rows asks for it without reading them first. The condition's parameter marks are `{}`,
    numbered from 2 on PostgreSQL. Outside any transaction, as `next_display_id`."""
    async with in_transaction() as connection:
        sqlite = connection.capabilities.dialect == "sqlite"
        marks = ["?"] * len(params) if sqlite else [f"${n}" for n in range(2, 2 + len(params))]
        where = f' AND ({condition.format(*marks)})' if condition else ""
        rows = await connection.execute_query_dict(
            'UPDATE "display_sequence" SET "value" = "value" + 1 WHERE "name" = '
            f'{"?" if sqlite else "$1"}{where} RETURNING "value"',
            [name, *params],
        )
    return int(rows[0]["value"]) if rows else None

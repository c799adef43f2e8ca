"""Display ids: the short numbers shoppers and staff read (order #1042). Orders and draft orders
draw from one counter, as in Medusa v1.

A number is taken in its own short transaction, never inside the caller's: the counter row is
locked only for that moment, so concurrent checkouts of different carts do not queue behind
each other. A number taken by a transaction that later rolls back is skipped (Medusa's serial
columns skip numbers the same way)."""

from __future__ import annotations

from typing import Sequence

from tortoise.transactions import in_transaction

from models import DisplaySequence

__all__ = ["next_display_id", "next_display_id_for_cart", "ensure_sequence"]

ORDER_SEQUENCE = "order"


async def ensure_sequence() -> None:
    await DisplaySequence.get_or_create(name=ORDER_SEQUENCE, defaults={"value": 0})


async def next_display_id(name: str = ORDER_SEQUENCE) -> int:
    """The next number of the counter `name` (1 for the first). Call it outside any transaction:
    inside one it would hold the counter's lock until that transaction ends (and on SQLite's one
    connection it would wait for itself)."""
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
    when it does not), in the same one statement. The condition's parameter marks are `{}`,
    numbered from 2 on PostgreSQL."""
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

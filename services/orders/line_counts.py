"""The per-line counters after the sale (`fulfilled_quantity`, `shipped_quantity`,
`returned_quantity`) and the order's fulfillment status they decide.

Each counter moves by a conditional UPDATE that can pass neither its ceiling nor zero, so a
quantity changes once whatever else runs; callers hold the order's row lock and an open
transaction, and a refusal rolls their whole operation back.
"""

from __future__ import annotations

from collections import Counter

from tortoise.expressions import F
from tortoise.models import Model

from models import LineItem, Order
from services.core.errors import InvalidData, NotAllowed
from services.orders.locks import stamped
from services.orders.statuses import LineCounts, fulfillment_status_of

__all__ = ["chosen_quantities", "move_counters", "settle_fulfillment_status"]


def chosen_quantities(items: list[dict]) -> Counter[str]:
    """The units of each line (by id) that `items` ({item_id, quantity}) name for a fulfillment,
    a return or a receipt: at least one, each line once, and at least one line."""
    chosen: Counter[str] = Counter()
    for item in items:
        if item["item_id"] in chosen:
            raise InvalidData(f"Item {item['item_id']} is given more than once")
        if item["quantity"] < 1:
            raise InvalidData("quantity must not be less than 1")
        chosen[item["item_id"]] = item["quantity"]
    if not chosen:
        raise InvalidData("items must contain at least 1 element")
    return chosen


async def move_counters(changes: dict[str, int], counter: str, sign: int, ceiling, refusal: str) -> None:
    """Move `counter` of each line (by id) by its change, up (`sign` +1, never past `ceiling`,
    an expression of the row such as F("quantity")) or down (-1, never below zero); NotAllowed
    with `refusal` when a line cannot move. One UPDATE per line."""
    await LineItem.filter(id__in=list(changes), **{counter: None}).update(**{counter: 0})
    for item_id, n in changes.items():
        bound = {f"{counter}__lte": ceiling - n} if sign > 0 else {f"{counter}__gte": n}
        moved = await LineItem.filter(id=item_id, **bound).update(**{counter: F(counter) + sign * n})
        if not moved:
            raise NotAllowed(refusal)


async def settle_fulfillment_status(owner: Order | Model, column: str = "order_id") -> str:
    """Write the fulfillment status that the lines of `owner` (an order, or a claim whose lines
    point at it by `column`) now describe; answer it."""
    rows = await LineItem.filter(**{column: owner.id}).values_list(
        "quantity", "fulfilled_quantity", "shipped_quantity", "returned_quantity")
    status = fulfillment_status_of([LineCounts(*row) for row in rows])
    if status != owner.fulfillment_status:
        await type(owner).filter(id=owner.id).update(**stamped(fulfillment_status=status))
    return status

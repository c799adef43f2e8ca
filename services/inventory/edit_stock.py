"""An order edit's reservations when it is confirmed (INVENTORY_LOCATIONS): the edit's
lines replace the order's, so each kept line takes over its original's reservations, less what
it dropped (the latest held units are let go first) and plus what it added (reserved at the
order's channel like a new line); a removed line lets all of its units go, and a new line is
reserved. Called before the classic stock change of the variants (levels before variants)."""

from __future__ import annotations

from dataclasses import dataclass

from models import LineItem, ProductVariant, ReservationItem
from services.inventory.order_stock import release_lines, reserve_lines, unreserve, variant_parts
from services.inventory import enabled

__all__ = ["carry_reservations"]


@dataclass(frozen=True)
class _Extra:
    """Units a kept line adds, shaped as the lines reserve_lines takes (its id: the edit's line)."""

    id: str
    variant: ProductVariant
    quantity: int


async def carry_reservations(order_id: str, edit_id: str, sales_channel_id: str | None) -> list[str]:
    """Answers the variants the channel's locations cannot serve for what the edit adds."""
    if not enabled():
        return []
    originals = {line.id: line for line in await LineItem.filter(order_id=order_id)}
    edited = list(await LineItem.filter(order_edit_id=edit_id).select_related("variant").order_by("created_at", "id"))
    kept = {line.original_item_id: line for line in edited if line.original_item_id in originals}
    await release_lines([line_id for line_id in originals if line_id not in kept])
    extras, fresh = [], [line for line in edited if line.original_item_id not in originals]
    for original_id, line in kept.items():
        await ReservationItem.filter(line_item_id=original_id).update(line_item_id=line.id)
        change = line.quantity - originals[original_id].quantity
        if change < 0:
            await _let_go(line, -change)
        elif change > 0 and line.variant is not None:
            extras.append(_Extra(line.id, line.variant, change))
    return await reserve_lines([*fresh, *extras], sales_channel_id)


async def _let_go(line: LineItem, units: int) -> None:
    """Release `units` variant units of the line's reservations, the latest first."""
    parts = (await variant_parts([line.variant_id])).get(line.variant_id, []) if line.variant_id else []
    amounts: dict[tuple[str, str], int] = {}
    for item_id, required in parts:
        need = units * required
        for r in await ReservationItem.filter(line_item_id=line.id, inventory_item_id=item_id).order_by(
                "-created_at", "-id"):
            take = min(r.quantity, need)
            if take <= 0:
                break
            need -= take
            key = (item_id, r.location_id)
            amounts[key] = amounts.get(key, 0) + take
            if take == r.quantity:
                await ReservationItem.filter(id=r.id).delete()
            else:
                await ReservationItem.filter(id=r.id).update(quantity=r.quantity - take)
    await unreserve(amounts)

"""Reservations: units of an item held at a location, for an order's line or made by hand in
the dashboard. A reservation's quantity is always counted in its level's `reserved_quantity`:
each change here moves both in one transaction, by the level's conditional UPDATE, so no
reservation takes more than the location has available (unless the caller allows a backorder)."""

from __future__ import annotations

from models import InventoryItem, LineItem, Order, ReservationItem
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, date_filters, find_page
from services.core.metadata import merge_metadata
from services.inventory import levels
from services.inventory.items import get_item
from services.inventory.locations import get_location

__all__ = [
    "list_reservations", "get_reservation", "reserve", "update_reservation", "delete_reservation",
    "release_lines", "joined", "not_found",
]

_UNSET: object = object()


def not_found(reservation_id: str) -> NotFound:
    return NotFound(f"Reservation item with id {reservation_id} was not found")


async def list_reservations(
    config: FindConfig, *, location_id: list[str] | None = None, inventory_item_id: list[str] | None = None,
    line_item_id: list[str] | None = None, created_by: list[str] | None = None, quantity: dict | None = None,
    description: dict | None = None, created_at: dict | None = None,
) -> tuple[list[ReservationItem], int]:
    """One page of reservations. `quantity` and `created_at` compare (`{"gt": 2}`); `description`
    matches by `contains`, `starts_with`, `ends_with` (any case) or `equals`."""
    qs = ReservationItem.filter(**date_filters(created_at=created_at, quantity=quantity))
    for column, values in (("location_id", location_id), ("inventory_item_id", inventory_item_id),
                           ("line_item_id", line_item_id), ("created_by", created_by)):
        if values:
            qs = qs.filter(**{f"{column}__in": values})
    for op, lookup in (("contains", "icontains"), ("starts_with", "istartswith"), ("ends_with", "iendswith"),
                       ("equals", "exact")):
        if (description or {}).get(op):
            qs = qs.filter(**{f"description__{lookup}": description[op]})
    return await find_page(qs, FindConfig(config.limit, config.offset, config.order, ()))  # relations: `joined`


async def get_reservation(reservation_id: str) -> ReservationItem:
    found = fits(ReservationItem, reservation_id) and await ReservationItem.get_or_none(id=reservation_id)
    if not found:
        raise not_found(reservation_id)
    return found


async def reserve(
    *, inventory_item_id: str, location_id: str, quantity: int, line_item_id: str | None = None,
    description: str | None = None, created_by: str | None = None, external_id: str | None = None,
    metadata: dict | None = None, allow_negative: bool = False, check_line: bool = False,
) -> ReservationItem:
    """Hold `quantity` units (> 0) of the item at the location. NotFound for an unknown item or
    location or one where the item is not stocked; levels.NotEnoughStock when fewer are
    available there (unless `allow_negative`: a backorder)."""
    _positive(quantity)
    async with atomic():
        if check_line and line_item_id is not None:
            await _check_line(line_item_id, quantity)
        await get_item(inventory_item_id)
        await get_location(location_id)
        await levels.adjust(inventory_item_id, location_id, reserved=quantity, allow_negative=allow_negative)
        return await ReservationItem.create(
            inventory_item_id=inventory_item_id, location_id=location_id, quantity=quantity,
            line_item_id=line_item_id, description=description, created_by=created_by, external_id=external_id,
            metadata=metadata,
        )


async def update_reservation(
    reservation_id: str, *, location_id: str | None = None, quantity: int | None = None,
    description: str | None | object = _UNSET, metadata: dict | None = None,
) -> ReservationItem:
    """Move the reservation to another location and/or change its quantity: the units are given
    back where they were held and taken where they are now, refused when not available there."""
    if quantity is not None:
        _positive(quantity)
    async with atomic():
        found = fits(ReservationItem, reservation_id) and await ReservationItem.select_for_update().get_or_none(
            id=reservation_id)
        if not found:
            raise not_found(reservation_id)
        new_location = location_id or found.location_id
        new_quantity = quantity if quantity is not None else found.quantity
        if new_location != found.location_id:
            await get_location(new_location)
            await levels.adjust(found.inventory_item_id, found.location_id, reserved=-found.quantity)
            await levels.adjust(found.inventory_item_id, new_location, reserved=new_quantity)
        elif new_quantity != found.quantity:
            await levels.adjust(found.inventory_item_id, found.location_id, reserved=new_quantity - found.quantity)
        found.location_id, found.quantity = new_location, new_quantity
        if description is not _UNSET:
            found.description = description  # type: ignore[assignment]
        if metadata is not None:
            found.metadata = merge_metadata(found.metadata, metadata)
        await found.save()
    return found


async def delete_reservation(reservation_id: str) -> None:
    """Give the units back to the level; an unknown reservation is no error (as Medusa answers)."""
    if not fits(ReservationItem, reservation_id):
        return
    async with atomic():
        found = await ReservationItem.select_for_update().get_or_none(id=reservation_id)
        if found is not None:
            await _release(found)


async def release_lines(line_item_ids: list[str]) -> int:
    """Delete the reservations of these lines (an order canceled, its lines fulfilled by other
    means), giving their units back. Answers how many were released."""
    if not line_item_ids:
        return 0
    async with atomic():
        found = await ReservationItem.filter(line_item_id__in=line_item_ids).select_for_update().order_by(
            "inventory_item_id", "location_id", "id")
        for reservation in found:
            await _release(reservation)
    return len(found)


async def _release(reservation: ReservationItem) -> None:
    try:
        await levels.adjust(reservation.inventory_item_id, reservation.location_id, reserved=-reservation.quantity)
    except NotFound:
        pass  # the level went with its location or item: nothing is held any more
    await ReservationItem.filter(id=reservation.id).delete()


async def joined(reservations: list[ReservationItem], relations: tuple[str, ...]) -> dict[str, dict]:
    """The relations asked for (`inventory_item`, `line_item`), by reservation id; a line item
    comes with its order (`line_item.order`), as Medusa's list joins it."""
    out: dict[str, dict] = {}
    for name, model, column in (("inventory_item", InventoryItem, "inventory_item_id"),
                                ("line_item", LineItem, "line_item_id")):
        if name in relations:
            ids = {getattr(r, column) for r in reservations if getattr(r, column)}
            found = {row.id: row for row in await model.filter(id__in=list(ids))} if ids else {}
            out[name] = {r.id: found.get(getattr(r, column)) for r in reservations}
    if "line_item" in out:
        lines = out["line_item"]
        order_ids = {line.order_id for line in lines.values() if line is not None and line.order_id}
        orders = {o.id: o for o in await Order.filter(id__in=list(order_ids))} if order_ids else {}
        out["line_item.order"] = {rid: line and orders.get(line.order_id) for rid, line in lines.items()}
    return out


async def _check_line(line_item_id: str, quantity: int) -> None:
    """A line's reservations hold no more than its units not yet fulfilled (Medusa's rule)."""
    line = fits(LineItem, line_item_id) and await LineItem.get_or_none(id=line_item_id)
    if not line:
        raise NotFound(f"Line item with id: {line_item_id} was not found")
    held = sum(await ReservationItem.filter(line_item_id=line_item_id).values_list("quantity", flat=True))
    if held + quantity > line.quantity - (line.fulfilled_quantity or 0):
        raise InvalidData("The reservation quantity cannot be greater than the unfulfilled line item quantity")


def _positive(quantity: int) -> None:
    if quantity <= 0:
        raise InvalidData("quantity must be greater than 0")

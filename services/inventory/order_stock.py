"""Stock per location along an order's life, when INVENTORY_LOCATIONS is on: each
line's reservation at placing, its release when the order (or swap, or claim) is canceled, its
turn into a stock decrement when the line is fulfilled, and a received return's restock.

Units: a variant is made of `required_quantity` units of each of its inventory items
(product_variant_inventory_item); levels and reservations count item units. Only the lines whose
variant tracks stock without back orders (`manage_inventory` and not `allow_backorder`, the ones
classic checkout counts down) reserve. The variant's own `inventory_quantity` keeps being moved
by the classic code beside this, by the variant units each step moves, which is what
levels.sync_variants would write (the variant's items move by units x required quantity, and
floor((a - q r) / r) = floor(a / r) - q); the one exception is an inventory item shared by
several variants (not something the Medusa dashboard makes): the others catch up at the item's
next level change.

Placing: the channel's levels of the cart's items are locked (FOR UPDATE), then
each line is reserved at one location of the order's sales channel that can hold all of it (the
one with the most available units); a line that no single location can hold is split over the
channel's locations, most available first (the storefront shows the sum as available, so what
it shows can be bought). Each level moves by a conditional UPDATE that keeps `reserved <=
stocked`; what the locations cannot hold is answered as the short variants, which checkout
refuses as it refuses a classic shortfall.

Lock order: every change here takes levels in (inventory_item_id, location_id) order, as
services/inventory/levels.py asks, and before the classic code locks variant rows (levels.py
too writes a level, then its variants), so a checkout, a cancel, a return and an admin's
adjustment cannot deadlock one another.
"""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.expressions import F

from models import (
    FulfillmentItem, InventoryLevel, LineItem, ProductVariant, ProductVariantInventoryItem,
    ReservationItem, SalesChannelLocation, StockLocation, Store,
)
from services.core.errors import NotAllowed
from services.inventory import enabled
from services.inventory.locations import get_location
from services.store.defaults import default_channel_id

__all__ = [
    "reserve_lines", "release_lines", "unreserve", "fulfil_reserved", "back_on_shelf", "restock_received",
    "channel_locations", "locations_of_channels", "variant_parts",
]

Parts = dict[str, list[tuple[str, int]]]  # variant id -> [(inventory item id, required quantity)]


@dataclass
class _Level:
    id: str
    stocked: int
    reserved: int

    @property
    def available(self) -> int:
        return self.stocked - self.reserved


async def variant_parts(variant_ids) -> Parts:
    """The inventory items each variant is made of, in item-id order."""
    out: Parts = {}
    rows = await ProductVariantInventoryItem.filter(variant_id__in=list(set(variant_ids)), deleted_at=None).order_by(
        "inventory_item_id").values_list("variant_id", "inventory_item_id", "required_quantity")
    for variant_id, item_id, required in rows:
        out.setdefault(variant_id, []).append((item_id, max(required or 1, 1)))
    return out


async def locations_of_channels(channel_ids: list[str]) -> list[str]:
    """The live stock locations the sales channels sell from, in id order."""
    if not channel_ids:
        return []
    linked = await SalesChannelLocation.filter(sales_channel_id__in=channel_ids, deleted_at=None).values_list(
        "location_id", flat=True)
    if not linked:
        return []
    return sorted(await StockLocation.filter(id__in=list(set(linked)), deleted_at=None).values_list("id", flat=True))


async def channel_locations(sales_channel_id: str | None) -> list[str]:
    """The locations an order of `sales_channel_id` (the store's default channel for none) is
    served from."""
    channel = sales_channel_id or await default_channel_id()
    return await locations_of_channels([channel] if channel else [])


def _stocked_lines(items) -> list:
    return [i for i in items if getattr(i, "variant", None) is not None and i.variant.manage_inventory
            and not i.variant.allow_backorder and getattr(i, "id", None)]


async def _lock_levels(item_ids: list[str], location_ids: list[str]) -> dict[tuple[str, str], _Level]:
    """The levels of the items at the locations, locked until the transaction ends in the order
    every change of several levels takes them, (inventory_item_id, location_id) (SQLite has one
    writer at a time)."""
    if not item_ids or not location_ids:
        return {}
    qs = InventoryLevel.filter(inventory_item_id__in=item_ids, location_id__in=location_ids).order_by("inventory_item_id", "location_id")
    if InventoryLevel._meta.db.capabilities.dialect != "sqlite":
        qs = qs.select_for_update()
    return {(lev.inventory_item_id, lev.location_id): _Level(lev.id, lev.stocked_quantity, lev.reserved_quantity)
            for lev in await qs}


def _units_at(parts: list[tuple[str, int]], levels: dict, location_id: str) -> int:
    """Whole variant units a location can still hold."""
    units = None
    for item_id, required in parts:
        level = levels.get((item_id, location_id))
        n = max(level.available, 0) // required if level is not None else 0
        units = n if units is None else min(units, n)
    return units or 0


def _allocate(parts, levels, location_ids: list[str], quantity: int) -> list[tuple[str, int]] | None:
    """Where a line of `quantity` variant units is reserved: one location that holds all of it
    (the most available), else split most-available first; None when the locations cannot."""
    room = sorted(((_units_at(parts, levels, loc), loc) for loc in location_ids), key=lambda r: (-r[0], r[1]))
    if room and room[0][0] >= quantity:
        return [(room[0][1], quantity)]
    out, left = [], quantity
    for units, loc in room:
        if left == 0 or units <= 0:
            break
        take = min(units, left)
        out.append((loc, take))
        left -= take
    return out if left == 0 else None


async def reserve_lines(items, sales_channel_id: str | None) -> list[str]:
    """Reserve each stocked line of `items` (LineItems with their variant loaded) at the locations
    of `sales_channel_id`, inside the caller's transaction. Answers the variants the locations
    cannot serve: the caller refuses, and its transaction rolls back what was written."""
    if not enabled():
        return []
    lines = _stocked_lines(items)
    if not lines:
        return []
    parts = await variant_parts(i.variant.id for i in lines)
    lines = [i for i in lines if parts.get(i.variant.id)]  # a variant without items is not counted here
    if not lines:
        return []
    locations = await channel_locations(sales_channel_id)
    levels = await _lock_levels(sorted({item for i in lines for item, _ in parts[i.variant.id]}), locations)
    planned, short = [], []
    for line in lines:
        needs = parts[line.variant.id]
        spots = _allocate(needs, levels, locations, line.quantity)
        if spots is None:
            short.append(line.variant.id)
            continue
        for location_id, units in spots:
            for item_id, required in needs:
                levels[(item_id, location_id)].reserved += units * required
                planned.append(ReservationItem(
                    line_item_id=line.id, inventory_item_id=item_id, location_id=location_id,
                    quantity=units * required, metadata={},
                ))
    if short:
        return sorted(set(short))
    added: dict[tuple[str, str], int] = {}
    for r in planned:
        added[(r.inventory_item_id, r.location_id)] = added.get((r.inventory_item_id, r.location_id), 0) + r.quantity
    for key in sorted(added):
        n = added[key]
        moved = await InventoryLevel.filter(
            id=levels[key].id, reserved_quantity__lte=F("stocked_quantity") - n).update(
            reserved_quantity=F("reserved_quantity") + n)
        if not moved:  # changed under the lock: cannot happen on a locked row, refused all the same
            return sorted({i.variant.id for i in lines if any(p[0] == key[0] for p in parts[i.variant.id])})
    await ReservationItem.bulk_create(planned)
    return []


async def unreserve(amounts: dict[tuple[str, str], int]) -> None:
    """Lower the reserved units of levels (item, location), in (item, location) order, never below zero."""
    if not amounts:
        return
    found = {(lev.inventory_item_id, lev.location_id): lev for lev in await InventoryLevel.filter(
        inventory_item_id__in=list({k[0] for k in amounts}), location_id__in=list({k[1] for k in amounts}))}
    for key in sorted(k for k in amounts if k in found):
        n = amounts[key]
        level = found[key]
        if not await InventoryLevel.filter(id=level.id, reserved_quantity__gte=n).update(
                reserved_quantity=F("reserved_quantity") - n):
            await InventoryLevel.filter(id=level.id).update(reserved_quantity=0)


async def release_lines(line_ids: list[str]) -> None:
    """Release every reservation of the lines (a canceled order, swap or claim): their units are
    available again at their locations. Call before the classic restock of the variants."""
    if not enabled() or not line_ids:
        return
    rows = await ReservationItem.filter(line_item_id__in=line_ids, deleted_at=None).values_list(
        "id", "inventory_item_id", "location_id", "quantity")
    if not rows:
        return
    amounts: dict[tuple[str, str], int] = {}
    for _, item_id, location_id, quantity in rows:
        amounts[(item_id, location_id)] = amounts.get((item_id, location_id), 0) + quantity
    await unreserve(amounts)
    await ReservationItem.filter(id__in=[r[0] for r in rows]).delete()


async def fulfil_reserved(lines: dict[str, LineItem], wanted: dict[str, int], location_id: str | None) -> str | None:
    """Turn the reservations of the fulfilled units into a stock decrement (Medusa's fulfilment
    from a location): at `location_id`, taking the line's reservation there first and then its
    others, or without one at each reservation's own location. Only reserved units move (a line
    placed before the setting was on, or one that allows back orders, had its stock counted the
    classic way). Refused as Medusa refuses when the location has no level of a line's item or
    too little stock (its other reservations stay covered). Answers the location the fulfilment
    is from: the one given, else the one every moved unit came from (None when several or none)."""
    if not enabled() or not wanted:
        return location_id
    rows = list(await ReservationItem.filter(line_item_id__in=list(wanted), deleted_at=None).order_by(
        "created_at", "id"))
    if not rows:
        return location_id
    parts = await variant_parts(lines[i].variant_id for i in wanted if lines[i].variant_id)
    stock: dict[tuple[str, str], list[int]] = {}  # (item, location) -> [stocked change, reserved change]
    left = {r.id: r.quantity for r in rows}
    titles: dict[tuple[str, str], str] = {}
    sources: set[str] = set()
    for item_id_, quantity in wanted.items():
        line = lines[item_id_]
        for inventory_item_id, required in parts.get(line.variant_id, []):
            need = quantity * required
            held = [r for r in rows if r.line_item_id == line.id and r.inventory_item_id == inventory_item_id]
            held.sort(key=lambda r: r.location_id != location_id)  # the chosen location's first
            for r in held:
                take = min(left[r.id], need)
                if take <= 0:
                    continue
                left[r.id] -= take
                need -= take
                stock.setdefault((inventory_item_id, r.location_id), [0, 0])[1] -= take
                there = location_id or r.location_id
                stock.setdefault((inventory_item_id, there), [0, 0])[0] -= take
                titles.setdefault((inventory_item_id, there), line.title)
                sources.add(there)
    await _move_levels(stock, titles)
    for r in rows:
        if left[r.id] == 0:
            await ReservationItem.filter(id=r.id).delete()
        elif left[r.id] != r.quantity:
            await ReservationItem.filter(id=r.id).update(quantity=left[r.id])
    if location_id is not None:
        return location_id
    return next(iter(sources)) if len(sources) == 1 else None


async def _move_levels(changes: dict[tuple[str, str], list[int]], titles: dict[tuple[str, str], str]) -> None:
    """Apply [stocked, reserved] changes to levels, in (item, location) order, each by a conditional
    UPDATE that keeps 0 <= reserved <= stocked."""
    changes = {k: v for k, v in changes.items() if v != [0, 0]}
    if not changes:
        return
    found = {(lev.inventory_item_id, lev.location_id): lev for lev in await InventoryLevel.filter(
        inventory_item_id__in=list({k[0] for k in changes}), location_id__in=list({k[1] for k in changes}))}
    for key in changes:
        if key not in found:
            raise NotAllowed(f"Inventory item for {titles.get(key, key[0])} not found at location")
    for key in sorted(changes):
        stocked, reserved = changes[key]
        moved = await InventoryLevel.filter(
            id=found[key].id, reserved_quantity__gte=-reserved,
            stocked_quantity__gte=F("reserved_quantity") + (reserved - stocked),
        ).update(stocked_quantity=F("stocked_quantity") + stocked, reserved_quantity=F("reserved_quantity") + reserved)
        if not moved:
            raise NotAllowed(f"Insufficient stock for item: {titles.get(key, key[0])}")


async def restock_received(
    lines: dict[str, LineItem], received: dict[str, int], location_id: str | None, sales_channel_id: str | None,
) -> None:
    """Put received units back on the shelf at `location_id` (the return's), else where each line
    was last fulfilled from, else the first location of the order's channel; a level is made
    there if the item had none. Only lines whose variant tracks stock without back orders, the
    ones the classic restock gives back too (call this before it)."""
    if not enabled() or not received:
        return
    variant_ids = {lines[i].variant_id for i in received if lines[i].variant_id}
    tracked = set(await ProductVariant.filter(id__in=list(variant_ids), manage_inventory=True,
                                              allow_backorder=False).values_list("id", flat=True))
    chosen = [i for i in received if lines[i].variant_id in tracked]
    if not chosen:
        return
    if location_id is not None:
        await get_location(location_id)  # 404 for an unknown one: no level is made for it
    parts = await variant_parts(lines[i].variant_id for i in chosen)
    where = {i: location_id for i in chosen}
    if location_id is None:
        shipped = await FulfillmentItem.filter(item_id__in=chosen, fulfillment__location_id__not_isnull=True,
                                               fulfillment__canceled_at=None).order_by(
            "fulfillment__created_at").values_list("item_id", "fulfillment__location_id")
        where.update(dict(shipped))
        fallback = await _home_location(sales_channel_id)
        where = {i: loc or fallback for i, loc in where.items()}
    adds: dict[tuple[str, str], int] = {}
    for line_id in chosen:
        if where[line_id] is None:
            continue
        for inventory_item_id, required in parts.get(lines[line_id].variant_id, []):
            key = (inventory_item_id, where[line_id])
            adds[key] = adds.get(key, 0) + received[line_id] * required
    for (inventory_item_id, loc), n in sorted(adds.items()):
        if not await InventoryLevel.filter(inventory_item_id=inventory_item_id, location_id=loc).update(
                stocked_quantity=F("stocked_quantity") + n):
            await InventoryLevel.create(inventory_item_id=inventory_item_id, location_id=loc, stocked_quantity=n)


async def _home_location(sales_channel_id: str | None) -> str | None:
    """Where goods go back when nothing says where: the store's default location, else the
    first location of the order's channel."""
    default = await Store.all().values_list("default_location_id", flat=True)
    if default and default[0] and await StockLocation.exists(id=default[0], deleted_at=None):
        return default[0]
    return next(iter(await channel_locations(sales_channel_id)), None)


async def back_on_shelf(location_id: str | None, parts: dict[str, int]) -> None:
    """A fulfilment from `location_id` called back before it shipped: its units are on that
    location's shelf again (Medusa adds them to its stock) and still promised to their lines, so
    they are held there for them again (stocked and reserved both up: what is available, and so
    the variants' totals, do not move; fulfilling the lines again sends them). Lines whose
    variant does not track stock without back orders are left alone."""
    if not enabled() or location_id is None or not parts:
        return
    rows = await LineItem.filter(id__in=list(parts), variant_id__not_isnull=True).values_list("id", "variant_id")
    tracked = set(await ProductVariant.filter(id__in=list({v for _, v in rows}), manage_inventory=True,
                                              allow_backorder=False).values_list("id", flat=True))
    items = await variant_parts(v for _, v in rows if v in tracked)
    held = [ReservationItem(line_item_id=line_id, inventory_item_id=item_id, location_id=location_id,
                            quantity=parts[line_id] * required, metadata={})
            for line_id, variant_id in rows if variant_id in tracked for item_id, required in items.get(variant_id, [])]
    adds: dict[str, int] = {}
    for r in held:
        adds[r.inventory_item_id] = adds.get(r.inventory_item_id, 0) + r.quantity
    for inventory_item_id, n in sorted(adds.items()):
        if not await InventoryLevel.filter(inventory_item_id=inventory_item_id, location_id=location_id).update(
                stocked_quantity=F("stocked_quantity") + n, reserved_quantity=F("reserved_quantity") + n):
            await InventoryLevel.create(inventory_item_id=inventory_item_id, location_id=location_id,
                                        stocked_quantity=n, reserved_quantity=n)
    if held:
        await ReservationItem.bulk_create(held)

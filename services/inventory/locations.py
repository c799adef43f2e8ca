"""Stock locations (a warehouse, a shop, a dropshipper) with their address, and the sales
channels that sell from each. A location is soft-deleted; its levels and channel links go with
it, and a location where units are reserved is not deleted (Medusa leaves the reservations
orphaned: here the merchant moves or releases them first)."""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.expressions import Q

from models import InventoryLevel, SalesChannel, SalesChannelLocation, StockLocation, StockLocationAddress, Store
from services.core.clock import now
from services.core.db import atomic
from services.core.errors import NotAllowed, NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, date_filters, find_page
from services.core.metadata import merge_metadata
from services.core.sql import execute
from services.core.updates import apply_changes, save_changes
from services.inventory.levels import sync_variants
from services.sales_channels.channels import get_sales_channel

__all__ = [
    "AddressInput", "list_locations", "get_location", "create_location", "update_location", "delete_location",
    "load_relations", "add_channel_location", "remove_channel_location", "channel_location_ids", "not_found",
]

ADDRESS_COLUMNS = ("address_1", "address_2", "company", "city", "country_code", "phone", "province", "postal_code")


@dataclass
class AddressInput:
    address_1: str
    country_code: str
    address_2: str | None = None
    company: str | None = None
    city: str | None = None
    phone: str | None = None
    province: str | None = None
    postal_code: str | None = None
    metadata: dict | None = None


def not_found(location_id: str) -> NotFound:
    return NotFound(f"StockLocation with id {location_id} was not found")


def _live():
    return StockLocation.filter(deleted_at=None)


async def list_locations(
    config: FindConfig, *, q: str | None = None, id: list[str] | None = None, name: list[str] | None = None,
    sales_channel_id: list[str] | None = None, created_at: dict | None = None, updated_at: dict | None = None,
    deleted_at: dict | None = None,
) -> tuple[list[StockLocation], int]:
    """One page of locations; `q` finds a part of the name or of the address (any case)."""
    dates = date_filters(created_at=created_at, updated_at=updated_at, deleted_at=deleted_at)
    qs = StockLocation.filter(**dates)
    if not any(key.startswith("deleted_at") for key in dates):
        qs = qs.filter(deleted_at=None)
    if q:
        found = Q(address_1__icontains=q) | Q(city__icontains=q) | Q(company__icontains=q) | Q(
            postal_code__icontains=q) | Q(province__icontains=q)
        address_ids = await StockLocationAddress.filter(found).values_list("id", flat=True)
        qs = qs.filter(Q(name__icontains=q) | Q(address_id__in=list(address_ids)))
    if id:
        qs = qs.filter(id__in=id)
    if name:
        qs = qs.filter(name__in=name)
    if sales_channel_id:
        linked = await SalesChannelLocation.filter(sales_channel_id__in=sales_channel_id).values_list(
            "location_id", flat=True)
        qs = qs.filter(id__in=list(set(linked)))
    return await find_page(qs, FindConfig(config.limit, config.offset, config.order, ()))


async def load_relations(locations: list[StockLocation], relations: tuple[str, ...]) -> None:
    """Set `address` and `sales_channels` on each location when asked for."""
    if "address" in relations:
        ids = [loc.address_id for loc in locations if loc.address_id]
        found = {a.id: a for a in await StockLocationAddress.filter(id__in=ids)} if ids else {}
        for loc in locations:
            loc.address = found.get(loc.address_id)  # type: ignore[attr-defined]
    if "sales_channels" in relations:
        links = await SalesChannelLocation.filter(location_id__in=[loc.id for loc in locations]).order_by("created_at")
        channels = {c.id: c for c in await SalesChannel.filter(
            id__in=list({link.sales_channel_id for link in links}), deleted_at=None)}
        for loc in locations:
            loc.sales_channels = [  # type: ignore[attr-defined]
                channels[link.sales_channel_id] for link in links
                if link.location_id == loc.id and link.sales_channel_id in channels
            ]


async def get_location(location_id: str) -> StockLocation:
    found = fits(StockLocation, location_id) and await _live().get_or_none(id=location_id)
    if not found:
        raise not_found(location_id)
    return found


async def create_location(
    *, name: str, address_id: str | None = None, address: AddressInput | None = None, metadata: dict | None = None,
) -> StockLocation:
    async with atomic():
        if address is not None:
            address_id = (await _new_address(address)).id
        elif address_id is not None:
            await _address(address_id)
        return await StockLocation.create(name=name, address_id=address_id, metadata=metadata)


async def update_location(
    location_id: str, *, name: str | None = None, address_id: str | None = None,
    address: AddressInput | None = None, metadata: dict | None = None,
) -> StockLocation:
    """Rename, point at another address, or change the address (the location's own, or a new
    one when it has none); metadata is merged."""
    async with atomic():
        location = await _locked(location_id)
        changed = []
        if name is not None:
            location.name = name
            changed.append("name")
        if address is not None:
            if location.address_id:
                current = await _address(location.address_id)
                for column in ADDRESS_COLUMNS:
                    setattr(current, column, getattr(address, column))
                if address.metadata is not None:
                    current.metadata = merge_metadata(current.metadata, address.metadata)
                await current.save()
            else:
                location.address_id = (await _new_address(address)).id
                changed.append("address_id")
        elif address_id is not None:
            await _address(address_id)
            location.address_id = address_id
            changed.append("address_id")
        changed += apply_changes(location, {}, metadata=metadata)
        await save_changes(location, changed)
    return location


async def delete_location(location_id: str) -> None:
    """Soft-delete the location with its levels and channel links. Refused (NotAllowed) while
    units are reserved there; an unknown or deleted location is no error, as Medusa answers."""
    if not fits(StockLocation, location_id):
        return
    async with atomic():
        location = await _live().select_for_update().get_or_none(id=location_id)
        if location is None:
            return
        # The levels' rows go first, locked by the DELETE: a reservation racing this one either
        # finished before (and is seen here) or finds no level.
        gone = await execute(
            InventoryLevel._meta.db,
            "DELETE FROM inventory_level WHERE location_id = ? RETURNING inventory_item_id, reserved_quantity",
            [location_id],
        )
        reserved = sum(int(r["reserved_quantity"]) for r in gone)
        if reserved:
            raise NotAllowed(
                f"Cannot delete stock location {location.name} ({location_id}): {reserved} units are reserved "
                "there. Move or delete its reservations first."
            )
        await sync_variants([r["inventory_item_id"] for r in gone])
        await SalesChannelLocation.filter(location_id=location_id).delete()
        await Store.filter(default_location_id=location_id).update(default_location_id=None)
        stamp = now()
        await StockLocation.filter(id=location_id).update(deleted_at=stamp, updated_at=stamp)


async def add_channel_location(sales_channel_id: str, location_id: str) -> SalesChannel:
    """The channel sells from the location too (already so: no change)."""
    async with atomic():
        channel = await get_sales_channel(sales_channel_id)
        await get_location(location_id)
        if not await SalesChannelLocation.exists(sales_channel_id=sales_channel_id, location_id=location_id):
            await SalesChannelLocation.create(sales_channel_id=sales_channel_id, location_id=location_id)
    return channel


async def remove_channel_location(sales_channel_id: str, location_id: str) -> None:
    """The channel no longer sells from the location (not linked: no change)."""
    await get_sales_channel(sales_channel_id)
    await SalesChannelLocation.filter(sales_channel_id=sales_channel_id, location_id=location_id).delete()


async def channel_location_ids(sales_channel_id: str | None) -> list[str]:
    """The live locations a sales channel sells from (none for no channel)."""
    if not sales_channel_id:
        return []
    linked = await SalesChannelLocation.filter(sales_channel_id=sales_channel_id).values_list("location_id", flat=True)
    return sorted(await _live().filter(id__in=list(linked)).values_list("id", flat=True)) if linked else []


async def _new_address(address: AddressInput) -> StockLocationAddress:
    values = {column: getattr(address, column) for column in ADDRESS_COLUMNS}
    return await StockLocationAddress.create(**values, metadata=address.metadata)


async def _address(address_id: str) -> StockLocationAddress:
    found = fits(StockLocationAddress, address_id) and await StockLocationAddress.get_or_none(
        id=address_id, deleted_at=None)
    if not found:
        raise NotFound(f"StockLocationAddress with id {address_id} was not found")
    return found


async def _locked(location_id: str) -> StockLocation:
    found = fits(StockLocation, location_id) and await _live().select_for_update().get_or_none(id=location_id)
    if not found:
        raise not_found(location_id)
    return found

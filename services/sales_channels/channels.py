"""Sales channels: where products are sold (a web shop, an app, a marketplace). A product is sold
in the channels it is linked to; the store's default channel takes carts and product reads that
name none, so it cannot be deleted. Channels are soft-deleted: carts and orders keep pointing at
them."""

from __future__ import annotations

from tortoise.expressions import Q
from tortoise.queryset import QuerySet

from models import Product, SalesChannel, Store
from services.core.clock import now
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed, NotFound
from services.core.ids import fits, fitting
from services.core.listing import FindConfig, date_filters, find_page
from services.core.updates import UNSET, apply_changes, save_changes

__all__ = [
    "list_sales_channels", "get_sales_channel", "create_sales_channel", "update_sales_channel",
    "delete_sales_channel", "add_products", "remove_products", "not_found",
]

def _live() -> QuerySet:
    return SalesChannel.filter(deleted_at=None)


def not_found(channel_id: str) -> NotFound:
    return NotFound(f"Sales channel with id: {channel_id} was not found")


async def list_sales_channels(
    config: FindConfig, *, q: str | None = None, id: str | None = None, name: str | None = None,
    description: str | None = None, created_at: dict | None = None, updated_at: dict | None = None,
    deleted_at: dict | None = None,
) -> tuple[list[SalesChannel], int]:
    """One page of channels; `q` finds a part of the name or the description (any case), `name`
    and `description` match exactly. A `deleted_at` comparison lets deleted channels match."""
    dates = date_filters(created_at=created_at, updated_at=updated_at, deleted_at=deleted_at)
    qs = SalesChannel.filter(**dates)
    if not any(key.startswith("deleted_at") for key in dates):
        qs = qs.filter(deleted_at=None)
    if q:
        qs = qs.filter(Q(name__icontains=q) | Q(description__icontains=q))
    for column, value in (("id", id), ("name", name), ("description", description)):
        if value is not None:
            qs = qs.filter(**{column: value})
    return await find_page(qs, config)


async def get_sales_channel(channel_id: str) -> SalesChannel:
    found = fits(SalesChannel, channel_id) and await _live().get_or_none(id=channel_id)
    if not found:
        raise not_found(channel_id)
    return found


async def create_sales_channel(
    *, name: str, description: str | None = None, is_disabled: bool = False, metadata: dict | None = None
) -> SalesChannel:
    return await SalesChannel.create(name=name, description=description, is_disabled=is_disabled, metadata=metadata)


async def update_sales_channel(
    channel_id: str, *, name: str | None = None, description: str | None | object = UNSET,
    is_disabled: bool | None = None, metadata: dict | None = None,
) -> SalesChannel:
    """Change the name, the description (null clears it), whether it is disabled, or metadata
    (merged). A disabled channel takes no new carts; its products stay listed."""
    async with atomic():
        channel = await _locked(channel_id)
        changed = apply_changes(channel, {"name": name, "is_disabled": is_disabled, "description": description},
                                clearable={"description"}, metadata=metadata)
        await save_changes(channel, changed)
    return channel


async def delete_sales_channel(channel_id: str) -> None:
    """A soft delete; the store's default channel is refused. Deleting a channel that is not
    there, or no longer, changes nothing and is no error."""
    if not fits(SalesChannel, channel_id):
        return
    async with atomic():
        # The store row first, as a default change takes it: the default cannot move onto this
        # channel between the check and the delete.
        store = await Store.all().select_for_update().first()
        if store is not None and store.default_sales_channel_id == channel_id:
            raise NotAllowed("You cannot delete the default sales channel")
        stamp = now()
        await _live().filter(id=channel_id).update(deleted_at=stamp, updated_at=stamp)


async def add_products(channel_id: str, product_ids: list[str]) -> SalesChannel:
    """Sell these products in the channel too. All or nothing: any id that names no live product
    adds none (Medusa's message lists them). Products already in the channel stay (idempotent)."""
    wanted = list(dict.fromkeys(product_ids))
    async with atomic():
        # The row lock makes concurrent batches on one channel take turns (PostgreSQL), so two
        # never insert the same link.
        channel = await _locked(channel_id)
        products = await Product.filter(id__in=fitting(Product, wanted), deleted_at=None) if wanted else []
        found = {p.id for p in products}
        missing = [p for p in wanted if p not in found]
        if missing:
            raise InvalidData(f"Products {', '.join(missing)} do not exist")
        if products:
            await channel.products.add(*products)
    return channel


async def remove_products(channel_id: str, product_ids: list[str]) -> SalesChannel:
    """Stop selling these products in the channel; ids of products not in it are ignored."""
    wanted = fitting(Product, product_ids)
    async with atomic():
        channel = await _locked(channel_id)
        products = await Product.filter(id__in=wanted) if wanted else []
        if products:
            await channel.products.remove(*products)
    return channel


async def _locked(channel_id: str) -> SalesChannel:
    channel = fits(SalesChannel, channel_id) and await _live().select_for_update().get_or_none(id=channel_id)
    if not channel:
        raise not_found(channel_id)
    return channel

"""Readying our database for a move: a store that holds only its start-up defaults gives way to
the shop coming over; a store that holds a shop of its own is refused."""

from __future__ import annotations

from models import Customer, Order, Product, SalesChannel, ShippingProfile, Store
from services.core.db import atomic
from services.migration.medusa_v1.source import Source, SourceError
from services.migration.medusa_v1.stock import clear_own_locations

__all__ = ["TargetNotEmpty", "prepare_target"]


class TargetNotEmpty(SourceError):
    TARGET_NOT_EMPTY = 7

    def __init__(self, message: str):
        super().__init__(self.TARGET_NOT_EMPTY, message)


async def prepare_target(source: Source) -> None:
    """Remove the defaults `commerce migrate` made (store, channel, profiles) unless they are the
    source's own from an earlier run, so the shop's rows take their place."""
    source_store = await source.conn.fetchval("SELECT id FROM store ORDER BY created_at LIMIT 1")
    ours = await Store.all().values_list("id", flat=True)
    if source_store in ours:
        return  # a run before this one already moved this shop in
    for model, label in ((Product, "products"), (Customer, "customers"), (Order, "orders")):
        if await model.exists():
            raise TargetNotEmpty(f"the target store already holds {label} of its own; move into a new database")
    channels = set(await source.conn.fetchval("SELECT array_agg(id) FROM sales_channel") or [])
    profiles = set(await source.conn.fetchval("SELECT array_agg(id) FROM shipping_profile") or [])
    async with atomic():
        await Store.all().delete()
        await SalesChannel.exclude(id__in=channels).delete()
        await ShippingProfile.exclude(id__in=profiles).delete()
        await clear_own_locations()

"""Regions: where the store sells, in which currency, with which taxes and providers."""

from __future__ import annotations

from dataclasses import replace

from models import Currency, Region
from services.core.errors import NotFound
from services.core.listing import FindConfig, date_filters, find_one, find_page

__all__ = ["list_regions", "get_region", "attach_currencies"]


async def list_regions(config: FindConfig, created_at: dict | None = None, updated_at: dict | None = None):
    qs = Region.filter(deleted_at=None, **date_filters(created_at=created_at, updated_at=updated_at))
    regions, count = await find_page(qs, replace(config, relations=_orm_relations(config.relations)))
    await attach_currencies(regions, config.relations)
    return regions, count


async def get_region(region_id: str, relations: tuple[str, ...] = ()) -> Region:
    region = await find_one(Region.filter(id=region_id, deleted_at=None), _orm_relations(relations))
    if region is None:
        raise NotFound(f"Region with {region_id} was not found")
    await attach_currencies([region], relations)
    return region


def _orm_relations(relations: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(r for r in relations if r != "currency")


async def attach_currencies(regions: list[Region], relations: tuple[str, ...]) -> None:
    """Set `region.currency` (one query for all regions) when the relation was asked for."""
    if "currency" not in relations or not regions:
        return
    currencies = {c.code: c for c in await Currency.filter(code__in={r.currency_code for r in regions})}
    for region in regions:
        region.currency = currencies.get(region.currency_code)

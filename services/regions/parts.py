"""What every cart answer shows of its region besides the region row: its countries, payment and
fulfillment providers and tax rates, with the tax rates' attachments to
products, product types and shipping options (services/regions/taxes.py) and whether its currency
prices with tax included (which services/regions/currencies.py changes by touching the regions). They change rarely, and reading
them would take four to seven statements of every cart read, so each process remembers them per
region.

An entry is used only while all of these hold:
- its version is the region row's `updated_at`, which the cart read has just read. Code that
  changes a region's countries, providers, tax rates or their attachments saves the region row in
  the same transaction (`touch_region`; the seed loader saves every region it loads), so every
  process sees the change at its next cart read;
- it is younger than MAX_AGE_SECONDS, the bound on how long a change made behind the
  application's back (SQL by hand) can go unseen;
- it was read outside any transaction: a change being decided (a cart change, a completion,
  payment sessions) may use an entry that holds for the region row it has just read (the entry
  was read from committed rows of that very version), but keeps nothing it reads itself (it may
  not be committed).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

from tortoise.backends.base.client import TransactionalDBClient

from tortoise.expressions import Subquery

from models import Country, Currency, FulfillmentProvider, PaymentProvider, Region, TaxRate
from services.regions.taxes import Overrides, region_overrides

__all__ = ["RegionParts", "region_parts", "touch_region", "forget_region_parts", "MAX_AGE_SECONDS"]

MAX_AGE_SECONDS = 30.0
_MAX_ENTRIES = 512  # regions are few; this only bounds a process that sees many come and go


@dataclass
class RegionParts:
    countries: list[Country]
    payment_providers: list[PaymentProvider]
    fulfillment_providers: list[FulfillmentProvider]
    tax_rates: list[TaxRate]
    overrides: Overrides = field(default_factory=Overrides)  # the tax rates' attachments
    currency_includes_tax: bool = False  # the region's currency prices with tax included


@dataclass(frozen=True)
class _Entry:
    version: datetime | None
    loaded_at: float  # time.monotonic()
    parts: RegionParts


_entries: dict[str, _Entry] = {}


async def region_parts(region: Region) -> RegionParts:
    """The region's parts (a fresh copy of each list), from memory when the entry still holds."""
    entry = _entries.get(region.id)
    if entry is None or entry.version != region.updated_at or time.monotonic() - entry.loaded_at > MAX_AGE_SECONDS:
        if _in_transaction():
            return await _read(region.id)
        entry = _Entry(region.updated_at, time.monotonic(), await _read(region.id))
        _remember(region.id, entry)
    parts = entry.parts
    return RegionParts(list(parts.countries), list(parts.payment_providers), list(parts.fulfillment_providers),
                       list(parts.tax_rates), parts.overrides, parts.currency_includes_tax)


async def touch_region(region_id: str) -> None:
    """Call inside the transaction that changes the region's countries, providers or tax rates:
    every process's entry for it stops holding once the change commits."""
    await Region.filter(id=region_id).update(updated_at=datetime.now(timezone.utc))
    _entries.pop(region_id, None)


def forget_region_parts(region_id: str | None = None) -> None:
    """Drop this process's entry for the region (every entry without an id)."""
    if region_id is None:
        _entries.clear()
    else:
        _entries.pop(region_id, None)


async def _read(region_id: str) -> RegionParts:
    tax_rates = list(await TaxRate.filter(region_id=region_id).order_by("created_at", "id"))
    inclusive = await Currency.filter(
        code__in=Subquery(Region.filter(id=region_id).values("currency_code")), includes_tax=True,
    ).exists()
    return RegionParts(
        countries=list(await Country.filter(region_id=region_id).order_by("id")),
        payment_providers=list(await PaymentProvider.filter(regions__id=region_id).order_by("id")),
        fulfillment_providers=list(await FulfillmentProvider.filter(regions__id=region_id).order_by("id")),
        tax_rates=tax_rates,
        overrides=await region_overrides(tax_rates),
        currency_includes_tax=inclusive,
    )


def _remember(region_id: str, entry: _Entry) -> None:
    _entries.pop(region_id, None)
    if len(_entries) >= _MAX_ENTRIES:
        _entries.pop(next(iter(_entries)))
    _entries[region_id] = entry


def _in_transaction() -> bool:
    return isinstance(Region._meta.db, TransactionalDBClient)

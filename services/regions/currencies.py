"""Currencies: the ISO 4217 list seeded by the migrations, and whether prices in each include tax."""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.expressions import Q

from models import Currency, Region
from services.core.db import atomic
from services.core.errors import NotFound
from services.core.listing import FindConfig, find_page
from services.regions.parts import touch_region

__all__ = ["CurrencyFilter", "list_currencies", "update_currency"]


@dataclass
class CurrencyFilter:
    code: str | None = None  # exact, any case
    q: str | None = None  # case-insensitive, over code or name
    includes_tax: bool | None = None


async def list_currencies(f: CurrencyFilter, config: FindConfig) -> tuple[list[Currency], int]:
    """One page of currencies and the number that match; ties are broken by code."""
    qs = Currency.all()
    if f.code is not None:
        qs = qs.filter(code=f.code.lower())
    if f.q:
        qs = qs.filter(Q(code__icontains=f.q) | Q(name__icontains=f.q))
    if f.includes_tax is not None:
        qs = qs.filter(includes_tax=f.includes_tax)
    return await find_page(qs, config)


async def update_currency(code: str, *, includes_tax: bool | None = None) -> Currency:
    """Set whether prices in the currency include tax (Medusa 1.20's tax-inclusive pricing). The
    regions pricing in it are touched, so every process prices with the new flag at its next read
    (services/regions/parts.py)."""
    code = code.lower()
    async with atomic():
        currency = await Currency.get_or_none(code=code)
        if currency is None:
            raise NotFound(f"Currency with code: {code} was not found")
        if includes_tax is not None and includes_tax != currency.includes_tax:
            currency.includes_tax = includes_tax
            await currency.save(update_fields=["includes_tax"])
            for region_id in await Region.filter(currency_code=code).values_list("id", flat=True):
                await touch_region(region_id)
    return currency

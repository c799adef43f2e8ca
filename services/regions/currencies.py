"""Currencies: the ISO 4217 list seeded by the migrations, and whether prices in each include tax."""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.expressions import Q

from models import Currency
from services.core.errors import NotFound
from services.core.listing import FindConfig, find_page

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
    code = code.lower()
    currency = await Currency.get_or_none(code=code)
    if currency is None:
        raise NotFound(f"Currency with code: {code} was not found")
    if includes_tax is not None and includes_tax != currency.includes_tax:
        currency.includes_tax = includes_tax
        await currency.save(update_fields=["includes_tax"])
    return currency

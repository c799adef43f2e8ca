"""Currencies: the ISO 4217 list seeded by the migrations, and whether prices in each include tax."""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.expressions import Q

from models import Currency
from services.errors import NotFound
from services.listing import FindConfig

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
    # services.listing.find_page breaks ties by `id`, which a currency does not have.
    terms = [f"-{name}" if desc else name for name, desc in config.order]
    if not any(name == "code" for name, _ in config.order):
        terms.append("code")
    page = await qs.order_by(*terms).offset(config.offset).limit(config.limit)
    short = len(page) < config.limit and (page or not config.offset)
    return page, len(page) + config.offset if short else await qs.count()


async def update_currency(code: str, *, includes_tax: bool | None = None) -> Currency:
    code = code.lower()
    currency = await Currency.get_or_none(code=code)
    if currency is None:
        raise NotFound(f"Currency with code: {code} was not found")
    if includes_tax is not None and includes_tax != currency.includes_tax:
        currency.includes_tax = includes_tax
        await currency.save(update_fields=["includes_tax"])
    return currency

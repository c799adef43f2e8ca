"""Regions: where the store sells, in which currency, with which taxes and providers.

A country belongs to one region at most. Every change to a region, its countries or its providers
saves the region row in its transaction, so the carts of every process see it at their next read
(services/regions/parts.py).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from tortoise.models import Model
from tortoise.queryset import QuerySet

from models import Country, Currency, FulfillmentProvider, PaymentProvider, Region, Store, TaxProvider
from services import fulfillment
from services.core.db import atomic
from services.core.errors import Duplicate, InvalidData, NotFound
from services.core.ids import fits, fitting
from services.core.listing import FindConfig, date_filters, find_one, find_page
from services.core.updates import apply_changes, save_changes
from services.regions.parts import forget_region_parts, touch_region

__all__ = [
    "list_regions", "get_region", "attach_currencies", "create_region", "update_region", "delete_region",
    "add_country", "remove_country", "add_payment_provider", "remove_payment_provider",
    "add_fulfillment_provider", "remove_fulfillment_provider", "fulfillment_options",
]

_UNSET: Any = object()

# What errors call each kind of provider, and the relation of Region holding the enabled ones.
_LABELS: dict[type[Model], str] = {PaymentProvider: "Payment", FulfillmentProvider: "Fulfillment", TaxProvider: "Tax"}
_ENABLED: dict[type[Model], str] = {PaymentProvider: "payment_providers", FulfillmentProvider: "fulfillment_providers"}


# ---------------------------------------------------------------- reads


async def list_regions(
    config: FindConfig, *, q: str | None = None, created_at: dict | None = None, updated_at: dict | None = None,
    deleted_at: dict | None = None,
) -> tuple[list[Region], int]:
    """One page of regions; `q` finds a part of the name (any case). A `deleted_at` comparison lets
    soft-deleted regions match, as in Medusa."""
    dates = date_filters(created_at=created_at, updated_at=updated_at, deleted_at=deleted_at)
    qs = Region.filter(**dates)
    if not any(key.startswith("deleted_at") for key in dates):
        qs = qs.filter(deleted_at=None)
    if q:
        qs = qs.filter(name__icontains=q)
    regions, count = await find_page(qs, replace(config, relations=_orm_relations(config.relations)))
    await attach_currencies(regions, config.relations)
    return regions, count


async def get_region(region_id: str, relations: tuple[str, ...] = ()) -> Region:
    _check_id(region_id)
    region = await find_one(_live().filter(id=region_id), _orm_relations(relations))
    if not region:
        raise _not_found(region_id)
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


async def fulfillment_options(region_id: str) -> list[dict]:
    """For each fulfillment provider of the region (by id): `{provider_id, options}`, the options
    as the provider names them. A provider enabled in the region but not registered in this
    process is a NotFound, as in Medusa."""
    region = await get_region(region_id, ("fulfillment_providers",))
    return [
        {"provider_id": p.id, "options": await fulfillment.get_provider(p.id).fulfillment_options()}
        for p in region.fulfillment_providers
    ]


# ---------------------------------------------------------------- checks


def _live() -> QuerySet:
    return Region.filter(deleted_at=None)


def _not_found(region_id: str) -> NotFound:
    return NotFound(f"Region with {region_id} was not found")


def _check_id(region_id: str) -> None:
    # The answer every other over-long id gets (app/web/errors.py), never a lookup
    if not fits(Region, region_id):
        raise InvalidData("id is too long or not valid")


async def _locked(region_id: str) -> Region:
    # The row lock orders concurrent changes of one region (PostgreSQL); SQLite writes one at a time.
    _check_id(region_id)
    region = await _live().filter(id=region_id).select_for_update().first()
    if not region:
        raise _not_found(region_id)
    return region


async def _store_currency(code: str) -> str:
    """The code, lower-cased, when the store sells in that currency."""
    code = code.lower()
    if not fits(Currency, code, "code") or not await Store.filter(currencies__code=code).exists():
        raise InvalidData("Invalid currency code")
    return code


def _check_tax_rate(rate: float) -> None:
    if not 0 <= rate <= 100:  # a percentage (Medusa's message says "between 0 and 1")
        raise InvalidData("The tax_rate must be between 0 and 100")


async def _providers(model: type[Model], ids: list[str]) -> list[Model]:
    """The provider rows of these ids, each once, in the order given; NotFound for the first unknown.
    (Medusa answers 400 here and 404 on the add routes; one answer serves both.)"""
    wanted = list(dict.fromkeys(ids))
    found = {p.id: p for p in await model.filter(id__in=fitting(model, wanted))} if wanted else {}
    for provider_id in wanted:
        if provider_id not in found:
            raise NotFound(f"{_LABELS[model]} provider {provider_id} was not found")
    return [found[i] for i in wanted]


async def _countries(codes: list[str], region_id: str | None) -> list[Country]:
    """The countries of these ISO 3166-1 alpha-2 codes (any case), each once. Each must exist and
    be free or already in `region_id`."""
    wanted = list(dict.fromkeys(c.lower() for c in codes))
    found = {c.iso_2: c for c in await Country.filter(iso_2__in=fitting(Country, wanted, "iso_2"))} if wanted else {}
    for code in wanted:
        if code not in found:
            raise InvalidData("Invalid country code")
    rows = [found[c] for c in wanted]
    for country in rows:
        if country.region_id is not None and country.region_id != region_id:
            raise _taken(country)
    return rows


def _taken(country: Country) -> Duplicate:
    return Duplicate(f"{country.display_name} already exists in region {country.region_id}")


async def _claim(region_id: str, countries: list[Country], *, only: bool) -> bool:
    """Put the countries (checked free by `_countries`) in the region; with `only`, every other
    country leaves it. A conditional UPDATE, so a country another request took meanwhile is a
    Duplicate and nothing changes. Whether anything changed."""
    ids = [c.id for c in countries]
    moved = 0
    if only:
        leaving = Country.filter(region_id=region_id)
        moved += await (leaving.exclude(id__in=ids) if ids else leaving).update(region_id=None)
    if ids:
        moved += await Country.filter(id__in=ids, region_id=None).update(region_id=region_id)
        taken = await Country.filter(id__in=ids).exclude(region_id=region_id).first()
        if taken is not None:
            raise _taken(taken)
    return moved > 0


async def _set_providers(region: Region, model: type[Model], ids: list[str]) -> bool:
    """Make these the region's providers of that kind; whether the set changed."""
    relation = getattr(region, _ENABLED[model])
    wanted = await _providers(model, ids)
    current = {p.id for p in await relation.all()}
    if current == {p.id for p in wanted}:
        return False
    await relation.clear()
    if wanted:
        await relation.add(*wanted)
    return True


# ---------------------------------------------------------------- changes


async def create_region(
    *, name: str, currency_code: str, tax_rate: float, payment_providers: list[str], fulfillment_providers: list[str],
    countries: list[str], tax_code: str | None = None, metadata: dict | None = None, relations: tuple[str, ...] = (),
    includes_tax: bool = False,
) -> Region:
    """A new region selling in one of the store's currencies (`tax_rate` a percentage) to the
    countries given (ISO codes, any case; none may be in another region), with these providers."""
    async with atomic():
        code = await _store_currency(currency_code)
        _check_tax_rate(tax_rate)
        payment = await _providers(PaymentProvider, payment_providers)
        shipping = await _providers(FulfillmentProvider, fulfillment_providers)
        rows = await _countries(countries, None)
        region = await Region.create(
            name=name, currency_code=code, tax_rate=tax_rate, tax_code=tax_code, metadata=metadata,
            includes_tax=includes_tax,
        )
        if payment:
            await region.payment_providers.add(*payment)
        if shipping:
            await region.fulfillment_providers.add(*shipping)
        await _claim(region.id, rows, only=False)
    return await get_region(region.id, relations)


async def update_region(
    region_id: str, relations: tuple[str, ...] = (), *, name: str | None = None, currency_code: str | None = None,
    tax_rate: float | None = None, tax_code: str | None = _UNSET, gift_cards_taxable: bool | None = None,
    automatic_taxes: bool | None = None, tax_provider_id: str | None = _UNSET,
    payment_providers: list[str] | None = None, fulfillment_providers: list[str] | None = None,
    countries: list[str] | None = None, metadata: dict | None = None, includes_tax: bool | None = None,
) -> Region:
    """Change what is given: None keeps a value, except `tax_code` (null clears it) and
    `tax_provider_id` (null: the system provider). A list given replaces the region's set (an
    empty one empties it); countries left out leave the region. Metadata is merged."""
    async with atomic():
        region = await _locked(region_id)
        columns: dict[str, Any] = {
            k: v for k, v in (("name", name), ("gift_cards_taxable", gift_cards_taxable),
                              ("automatic_taxes", automatic_taxes), ("includes_tax", includes_tax)) if v is not None
        }
        if currency_code is not None:
            columns["currency_code"] = await _store_currency(currency_code)
        if tax_rate is not None:
            _check_tax_rate(tax_rate)
            columns["tax_rate"] = tax_rate
        if tax_code is not _UNSET:
            columns["tax_code"] = tax_code
        if tax_provider_id is not _UNSET:
            if tax_provider_id is not None:
                await _providers(TaxProvider, [tax_provider_id])
            columns["tax_provider_id"] = tax_provider_id
        # Every value in `columns` is given: None there clears `tax_code` or `tax_provider_id`.
        changed = apply_changes(region, columns, clearable=columns, metadata=metadata)
        moved = False
        for model, ids in ((PaymentProvider, payment_providers), (FulfillmentProvider, fulfillment_providers)):
            if ids is not None:
                moved = await _set_providers(region, model, ids) or moved
        if countries is not None:
            moved = await _claim(region.id, await _countries(countries, region.id), only=True) or moved
        if await save_changes(region, changed):
            forget_region_parts(region.id)
        elif moved:
            await touch_region(region.id)
    return await get_region(region_id, relations)


async def delete_region(region_id: str) -> None:
    """A soft delete; its countries leave it, free for another region at once. Its carts, shipping
    options and tax rates stay, as in Medusa. An unknown region is no error (Medusa's is a 404)."""
    if not fits(Region, region_id):
        return
    async with atomic():
        region = await _live().filter(id=region_id).select_for_update().first()
        if region is None:
            return
        await Country.filter(region_id=region.id).update(region_id=None)
        region.deleted_at = datetime.now(timezone.utc)
        await region.save(update_fields=["deleted_at", "updated_at"])
        forget_region_parts(region.id)


async def add_country(region_id: str, country_code: str, relations: tuple[str, ...] = ()) -> Region:
    """Put the country in the region: a country already in it is no change, one in another region
    a Duplicate."""
    async with atomic():
        region = await _locked(region_id)
        if await _claim(region.id, await _countries([country_code], region.id), only=False):
            await touch_region(region.id)
    return await get_region(region_id, relations)


async def remove_country(region_id: str, country_code: str, relations: tuple[str, ...] = ()) -> Region:
    """Take the country (any case) out of the region; one not in it is no change."""
    async with atomic():
        region = await _locked(region_id)
        code = country_code.lower()
        left = fits(Country, code, "iso_2") and await Country.filter(iso_2=code, region_id=region.id).update(
            region_id=None
        )
        if left:
            await touch_region(region.id)
    return await get_region(region_id, relations)


async def _add_provider(model: type[Model], region_id: str, provider_id: str, relations: tuple[str, ...]) -> Region:
    async with atomic():
        region = await _locked(region_id)
        provider = (await _providers(model, [provider_id]))[0]
        relation = getattr(region, _ENABLED[model])
        if not await relation.filter(id=provider.id).exists():
            await relation.add(provider)
            await touch_region(region.id)
    return await get_region(region_id, relations)


async def _remove_provider(model: type[Model], region_id: str, provider_id: str, relations: tuple[str, ...]) -> Region:
    async with atomic():
        region = await _locked(region_id)
        relation = getattr(region, _ENABLED[model])
        provider = fits(model, provider_id) and await relation.filter(id=provider_id).first()
        if provider:
            await relation.remove(provider)
            await touch_region(region.id)
    return await get_region(region_id, relations)


async def add_payment_provider(region_id: str, provider_id: str, relations: tuple[str, ...] = ()) -> Region:
    """Enable the payment provider in the region (no change when it is already)."""
    return await _add_provider(PaymentProvider, region_id, provider_id, relations)


async def remove_payment_provider(region_id: str, provider_id: str, relations: tuple[str, ...] = ()) -> Region:
    """Disable the payment provider in the region (no change when it is not enabled)."""
    return await _remove_provider(PaymentProvider, region_id, provider_id, relations)


async def add_fulfillment_provider(region_id: str, provider_id: str, relations: tuple[str, ...] = ()) -> Region:
    """Enable the fulfillment provider in the region (no change when it is already)."""
    return await _add_provider(FulfillmentProvider, region_id, provider_id, relations)


async def remove_fulfillment_provider(region_id: str, provider_id: str, relations: tuple[str, ...] = ()) -> Region:
    """Disable the fulfillment provider in the region (no change when it is not enabled)."""
    return await _remove_provider(FulfillmentProvider, region_id, provider_id, relations)

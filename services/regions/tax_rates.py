"""Tax rates: a region's named rates (percent), each attached to the products, product types and
shipping options it applies to instead of the region's default rate (services/regions/taxes.py).

Every change saves the region row in its transaction (`touch_region`), so the carts of every
process see the new rates at their next read (services/regions/parts.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from tortoise.functions import Count
from tortoise.models import Model
from tortoise.queryset import QuerySet

from models import Product, ProductType, Region, ShippingOption, TaxRate
from services.core.db import atomic
from services.core.errors import NotAllowed, NotFound
from services.core.ids import fits, fitting
from services.core.listing import FindConfig, date_filters, find_one, find_page
from services.core.updates import UNSET, apply_changes, save_changes
from services.regions.parts import touch_region

__all__ = [
    "KINDS", "TaxRateFilter", "list_tax_rates", "get_tax_rate", "create_tax_rate", "update_tax_rate",
    "delete_tax_rate", "add_links", "remove_links", "link_counts",
]


@dataclass(frozen=True)
class _Kind:
    model: type[Model]
    missing: str  # Medusa's message for an unknown id, `{}` standing for it


# What a rate attaches to: the relation on TaxRate, by the name the API gives it.
KINDS: dict[str, _Kind] = {
    "products": _Kind(Product, "Product with id: {} was not found"),
    "product_types": _Kind(ProductType, "Product type with id: {} was not found"),
    "shipping_options": _Kind(ShippingOption, "Shipping Option with {} was not found"),
}



@dataclass
class TaxRateFilter:
    region_id: list[str] = field(default_factory=list)  # any of these regions
    name: str | None = None  # exact
    code: str | None = None  # exact
    rate: float | dict[str, float | None] | None = None  # exact, or {"gt": 5, "lte": 20}
    q: str | None = None  # case-insensitive, in the name
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None


def _not_found(rate_id: str) -> NotFound:
    return NotFound(f"TaxRate with {rate_id} was not found")


def _filtered(f: TaxRateFilter) -> QuerySet:
    # Unlike Medusa v1, a falsy value filters too (`rate=0` finds the zero rates).
    qs = TaxRate.filter(**date_filters(created_at=f.created_at, updated_at=f.updated_at))
    if f.region_id:
        qs = qs.filter(region_id__in=f.region_id)
    if f.name is not None:
        qs = qs.filter(name=f.name)
    if f.code is not None:
        qs = qs.filter(code=f.code)
    if isinstance(f.rate, dict):
        qs = qs.filter(**date_filters(rate=f.rate))  # the same comparison operators, on a number
    elif f.rate is not None:
        qs = qs.filter(rate=f.rate)
    if f.q:
        qs = qs.filter(name__icontains=f.q)
    return qs


async def list_tax_rates(f: TaxRateFilter, config: FindConfig) -> tuple[list[TaxRate], int]:
    """One page of rates; `config.relations` may load products, product_types, shipping_options."""
    return await find_page(_filtered(f), config)


async def get_tax_rate(rate_id: str, relations: tuple[str, ...] = ()) -> TaxRate:
    found = fits(TaxRate, rate_id) and await find_one(TaxRate.filter(id=rate_id), relations)
    if not found:
        raise _not_found(rate_id)
    return found


async def link_counts(rate_ids: list[str], kinds: list[str]) -> dict[str, dict[str, int]]:
    """For each kind asked for, how many live rows each rate is attached to (one query a kind)."""
    out: dict[str, dict[str, int]] = {}
    for kind in kinds:
        rows = await (
            KINDS[kind].model.filter(deleted_at=None, tax_rates__id__in=rate_ids)
            .annotate(n=Count("id")).group_by("tax_rates__id").values_list("tax_rates__id", "n")
        ) if rate_ids else []
        out[kind] = {rate_id: n for rate_id, n in rows}
    return out


async def _locked(rate_id: str) -> TaxRate:
    rate = fits(TaxRate, rate_id) and await TaxRate.filter(id=rate_id).select_for_update().first()
    if not rate:
        raise _not_found(rate_id)
    return rate


async def _live_region(region_id: str) -> Region:
    region = fits(Region, region_id) and await Region.filter(id=region_id, deleted_at=None).first()
    if not region:
        raise NotFound(f"Region with id: {region_id} was not found")
    return region


async def _rows(kind: str, ids: list[str]) -> list[Model]:
    """The live rows of `kind` with these ids, in the order given; NotFound for the first unknown."""
    spec = KINDS[kind]
    wanted = list(dict.fromkeys(ids))
    found = {r.id: r for r in await spec.model.filter(id__in=fitting(spec.model, wanted), deleted_at=None)}
    for i in wanted:
        if i not in found:
            raise NotFound(spec.missing.format(i))
    return [found[i] for i in wanted]


def _same_region(rate: TaxRate, options: list[ShippingOption]) -> None:
    for option in options:
        if option.region_id != rate.region_id:
            raise NotAllowed(
                "Shipping Option and Tax Rate must belong to the same Region to be associated. "
                f"Shipping Option with id: {option.id} belongs to Region with id: {option.region_id} and "
                f"Tax Rate with id: {rate.id} belongs to Region with id: {rate.region_id}"
            )


async def _attach(rate: TaxRate, kind: str, ids: list[str], *, replace: bool) -> None:
    rows = await _rows(kind, ids)
    if kind == "shipping_options":
        _same_region(rate, rows)
    relation = getattr(rate, kind)
    if replace:
        await relation.clear()
    if rows:
        await relation.add(*rows)


async def create_tax_rate(
    *, code: str, name: str, region_id: str, rate: float | None = None, products: list[str] | None = None,
    product_types: list[str] | None = None, shipping_options: list[str] | None = None,
    relations: tuple[str, ...] = (),
) -> TaxRate:
    """A new rate in a live region, attached to the rows given (all must exist, options in the region)."""
    links = {"products": products, "product_types": product_types, "shipping_options": shipping_options}
    async with atomic():
        await _live_region(region_id)
        tax_rate = await TaxRate.create(code=code, name=name, region_id=region_id, rate=rate)
        for kind, ids in links.items():
            if ids:
                await _attach(tax_rate, kind, ids, replace=False)
        await touch_region(region_id)
    return await get_tax_rate(tax_rate.id, relations)


async def update_tax_rate(
    rate_id: str, relations: tuple[str, ...] = (), *, code: str | None = None, name: str | None = None,
    region_id: str | None = None, rate: float | None | object = UNSET, products: list[str] | None = None,
    product_types: list[str] | None = None, shipping_options: list[str] | None = None,
) -> TaxRate:
    """Change the given columns (`rate` null clears it); a list given replaces the rate's
    attachments of its kind (an empty one detaches all). A rate moved to another region may keep
    only shipping options of that region: others must be replaced in the same request."""
    async with atomic():
        tax_rate = await _locked(rate_id)
        old_region = tax_rate.region_id
        if region_id is not None and region_id != old_region:
            await _live_region(region_id)
        changed = apply_changes(tax_rate, {"code": code, "name": name, "rate": rate, "region_id": region_id},
                                clearable={"rate"})
        await save_changes(tax_rate, changed)
        links = {"products": products, "product_types": product_types, "shipping_options": shipping_options}
        for kind, ids in links.items():
            if ids is not None:
                await _attach(tax_rate, kind, ids, replace=True)
        if "region_id" in changed and shipping_options is None:
            _same_region(tax_rate, list(await ShippingOption.filter(tax_rates__id=rate_id, deleted_at=None)))
        await touch_region(old_region)
        if tax_rate.region_id != old_region:
            await touch_region(tax_rate.region_id)
    return await get_tax_rate(rate_id, relations)


async def delete_tax_rate(rate_id: str) -> None:
    """A hard delete (its attachments go with it); an unknown rate is no error."""
    if not fits(TaxRate, rate_id):
        return
    async with atomic():
        tax_rate = await TaxRate.filter(id=rate_id).select_for_update().first()
        if tax_rate is None:
            return
        await tax_rate.delete()
        await touch_region(tax_rate.region_id)


async def add_links(rate_id: str, kind: str, ids: list[str], relations: tuple[str, ...] = ()) -> TaxRate:
    """Attach the rows (those already attached stay once). All or nothing: an unknown id, or a
    shipping option of another region, changes nothing."""
    async with atomic():
        tax_rate = await _locked(rate_id)
        await _attach(tax_rate, kind, ids, replace=False)
        await touch_region(tax_rate.region_id)
    return await get_tax_rate(rate_id, relations)


async def remove_links(rate_id: str, kind: str, ids: list[str], relations: tuple[str, ...] = ()) -> TaxRate:
    """Detach the rows; ids not attached (or unknown) are ignored."""
    spec = KINDS[kind]
    async with atomic():
        tax_rate = await _locked(rate_id)
        rows = await spec.model.filter(id__in=fitting(spec.model, ids), tax_rates__id=rate_id)
        if rows:
            await getattr(tax_rate, kind).remove(*rows)
        await touch_region(tax_rate.region_id)
    return await get_tax_rate(rate_id, relations)

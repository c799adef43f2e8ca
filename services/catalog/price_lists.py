"""Price lists: sale or override prices of variants for a time window, for everyone or for
customer groups. Their prices are `money_amount` rows naming the
list; services/catalog/pricing.py decides when they apply.

Unlike Medusa v1: a price id given to an update must be one of the list's (Medusa updates any
price, even a variant's base price); an unknown region is a 404, not a 500; a currency code is
read in any case; `ends_at` must follow `starts_at`; min_quantity must not exceed max_quantity.
A list and its prices are deleted for good, as in Medusa.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from tortoise.expressions import Q, Subquery
from tortoise.queryset import QuerySet

from models import Currency, CustomerGroup, MoneyAmount, PriceList, Product, ProductVariant, Region
from services.catalog.price_list_reads import prices_by_list
from services.catalog.product_prices import check_target
from services.catalog.products import AdminProductFilter, PricedProducts, list_admin_products
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.ids import fits, fitting
from services.core.listing import FindConfig, date_filters, find_one, find_page

__all__ = [
    "PriceInput", "PriceListFilter", "LoadedPriceList", "list_price_lists", "get_price_list", "create_price_list",
    "update_price_list", "delete_price_list", "add_prices", "delete_prices", "delete_product_prices",
    "delete_variant_prices", "list_price_list_products", "MAX_QUANTITY",
]

MAX_QUANTITY = 2**31 - 1  # min/max_quantity are INTEGER columns
KEEP: Any = object()  # a bound not given for a price being changed


@dataclass(frozen=True)
class PriceInput:
    """A price of the list: for a region (in its currency) or for a currency. With `id`, the
    list's price of that id is changed: a bound given as KEEP is kept, so is the place (region or
    currency) when neither is given."""

    variant_id: str
    amount: int
    currency_code: str | None = None
    region_id: str | None = None
    min_quantity: Any = None  # int | None | KEEP
    max_quantity: Any = None
    id: str | None = None


@dataclass(frozen=True)
class PriceListFilter:
    id: str | None = None
    q: str | None = None
    name: str | None = None
    description: str | None = None
    status: tuple[str, ...] = ()
    type: tuple[str, ...] = ()
    customer_groups: tuple[str, ...] = ()
    created_at: dict | None = None
    updated_at: dict | None = None
    deleted_at: dict | None = None


@dataclass
class LoadedPriceList:
    """A list (its `customer_groups` prefetched when asked for) with its `prices`, each with its
    `variant` (None: not asked for)."""

    price_list: PriceList
    prices: list[MoneyAmount] | None = None


# ---------------------------------------------------------------- reads


def _not_found(price_list_id: str) -> NotFound:
    return NotFound(f"Price list with id: {price_list_id} was not found")


async def _live(price_list_id: str, *, lock: bool = False) -> PriceList:
    qs = PriceList.filter(id=price_list_id, deleted_at=None)
    if lock:
        qs = qs.select_for_update()
    found = await qs.first() if fits(PriceList, price_list_id) else None
    if found is None:
        raise _not_found(price_list_id)
    return found


def _filtered(f: PriceListFilter) -> QuerySet:
    dates = date_filters(created_at=f.created_at, updated_at=f.updated_at, deleted_at=f.deleted_at)
    qs = PriceList.filter(**dates)
    if not any(key.startswith("deleted_at") for key in dates):
        qs = qs.filter(deleted_at=None)
    for column, value in (("id", f.id), ("name", f.name), ("description", f.description)):
        if value is not None:
            qs = qs.filter(**{column: value})
    if f.status:
        qs = qs.filter(status__in=f.status)
    if f.type:
        qs = qs.filter(type__in=f.type)
    if f.customer_groups:
        in_groups = PriceList.filter(customer_groups__id__in=list(f.customer_groups)).values_list("id", flat=True)
        qs = qs.filter(id__in=Subquery(in_groups))
    if f.q:
        by_group = PriceList.filter(
            customer_groups__name__icontains=f.q, customer_groups__deleted_at=None
        ).values_list("id", flat=True)
        qs = qs.filter(Q(name__icontains=f.q) | Q(description__icontains=f.q) | Q(id__in=Subquery(by_group)))
    return qs


async def _load(lists: list[PriceList], relations: tuple[str, ...]) -> list[LoadedPriceList]:
    """The lists with their prices when asked for (one query, whatever the number of lists)."""
    out = [LoadedPriceList(pl) for pl in lists]
    ids = [pl.id for pl in lists]
    if "prices" in relations and ids:
        by_list = await prices_by_list(ids)
        for loaded in out:
            loaded.prices = by_list.get(loaded.price_list.id, [])
    return out


def _orm(config: FindConfig) -> FindConfig:
    # `prices` are rows naming the list, not an ORM relation: _load reads them.
    return replace(config, relations=tuple(r for r in config.relations if r == "customer_groups"))


async def list_price_lists(f: PriceListFilter, config: FindConfig) -> tuple[list[LoadedPriceList], int]:
    """One page of lists; `q` finds a part of the name, the description or a group's name."""
    lists, count = await find_page(_filtered(f), _orm(config))
    return await _load(lists, config.relations), count


async def get_price_list(price_list_id: str, relations: tuple[str, ...] = ("prices", "customer_groups")) -> LoadedPriceList:
    found = fits(PriceList, price_list_id) and await find_one(
        PriceList.filter(id=price_list_id, deleted_at=None), _orm(FindConfig(relations=relations)).relations
    )
    if not found:
        raise _not_found(price_list_id)
    return (await _load([found], relations))[0]


# ---------------------------------------------------------------- writes


def _check_window(starts_at: datetime | None, ends_at: datetime | None) -> None:
    if starts_at is not None and ends_at is not None and ends_at <= starts_at:
        raise InvalidData("ends_at must be after starts_at")


async def _groups(group_ids: list[str]) -> list[CustomerGroup]:
    wanted = list(dict.fromkeys(group_ids))
    found = {g.id: g for g in await CustomerGroup.filter(id__in=fitting(CustomerGroup, wanted), deleted_at=None)}
    missing = next((i for i in wanted if i not in found), None)
    if missing is not None:
        raise NotFound(f"CustomerGroup with id {missing} was not found")
    return [found[i] for i in wanted]


async def _rows(price_list: PriceList, prices: list[PriceInput]) -> tuple[list[MoneyAmount], list[MoneyAmount]]:
    """The new rows and the changed rows for `prices`, every reference checked with one query per
    kind (variants, regions, currencies, the list's own prices)."""
    variant_ids = fitting(ProductVariant, [p.variant_id for p in prices])
    variants = set(await ProductVariant.filter(id__in=variant_ids, deleted_at=None).values_list("id", flat=True))
    missing = next((p.variant_id for p in prices if p.variant_id not in variants), None)
    if missing is not None:
        raise NotFound(f"Product_variant with variant_id {missing} does not exist.")
    region_ids = fitting(Region, [p.region_id for p in prices if p.region_id])
    regions = dict(await Region.filter(id__in=region_ids, deleted_at=None).values_list("id", "currency_code"))
    missing = next((p.region_id for p in prices if p.region_id and p.region_id not in regions), None)
    if missing is not None:
        raise NotFound(f"Region with {missing} was not found")
    codes = {p.currency_code.lower() for p in prices if p.currency_code}
    known = set(await Currency.filter(code__in=codes).values_list("code", flat=True)) if codes else set()
    missing = next((c for c in codes if c not in known), None)
    if missing is not None:
        raise NotFound(f"Currency with currency_code {missing} does not exist.")
    price_ids = fitting(MoneyAmount, [p.id for p in prices if p.id])
    own = {m.id: m for m in await MoneyAmount.filter(id__in=price_ids, price_list_id=price_list.id, deleted_at=None)}
    missing = next((p.id for p in prices if p.id and p.id not in own), None)
    if missing is not None:
        raise NotFound(f"Price with id: {missing} was not found in the price list {price_list.id}")

    new, changed = [], []
    for p in prices:
        place: dict[str, Any] = {}
        if p.region_id:
            place = {"region_id": p.region_id, "currency_code": regions[p.region_id]}
        elif p.currency_code:
            place = {"region_id": None, "currency_code": p.currency_code.lower()}
        values = {"variant_id": p.variant_id, "amount": p.amount, **place}
        bounds = {k: v for k, v in (("min_quantity", p.min_quantity), ("max_quantity", p.max_quantity)) if v is not KEEP}
        row = own[p.id] if p.id else MoneyAmount(price_list_id=price_list.id)
        row.update_from_dict({**values, **bounds})
        _check_bounds(row)
        (changed if p.id else new).append(row)
    return new, changed


def _check_bounds(row: MoneyAmount) -> None:
    low, high = row.min_quantity, row.max_quantity
    if low is not None and high is not None and low > high:
        raise InvalidData("min_quantity must not be greater than max_quantity")


def _bounds(p: PriceInput) -> dict:
    """A new price's bounds: one not given is none."""
    return {k: None for k in ("min_quantity", "max_quantity") if getattr(p, k) is KEEP}


def _check_targets(prices: list[PriceInput]) -> None:
    for p in prices:
        check_target(p.region_id, p.currency_code, p.id)


async def _write_prices(price_list: PriceList, prices: list[PriceInput]) -> None:
    new, changed = await _rows(price_list, prices)
    for row in changed:
        await row.save()
    if new:
        await MoneyAmount.bulk_create(new)


async def create_price_list(
    *, name: str, description: str, type: str, prices: list[PriceInput], status: str = "draft",
    starts_at: datetime | None = None, ends_at: datetime | None = None, customer_groups: list[str] | None = None,
    includes_tax: bool = False,
) -> LoadedPriceList:
    _check_targets(prices)
    _check_window(starts_at, ends_at)
    async with atomic():
        groups = await _groups(customer_groups or [])
        price_list = await PriceList.create(
            name=name, description=description, type=type, status=status, starts_at=starts_at, ends_at=ends_at,
            includes_tax=includes_tax,
        )
        if groups:
            await price_list.customer_groups.add(*groups)
        await _write_prices(price_list, [replace(p, id=None, **_bounds(p)) for p in prices])
    return await get_price_list(price_list.id)


async def update_price_list(price_list_id: str, *, prices: list[PriceInput] | None = None,
                            customer_groups: list[str] | None = None, **changes: Any) -> LoadedPriceList:
    """The given columns changed (`starts_at`/`ends_at` None: cleared); prices with an id are
    changed, others added, the rest kept; `customer_groups` replaces the groups ([] clears)."""
    _check_targets(prices or [])
    async with atomic():
        price_list = await _live(price_list_id, lock=True)
        price_list.update_from_dict(changes)
        _check_window(price_list.starts_at, price_list.ends_at)
        if customer_groups is not None:
            groups = await _groups(customer_groups)
            await price_list.customer_groups.clear()
            if groups:
                await price_list.customer_groups.add(*groups)
        await _write_prices(price_list, prices or [])
        await price_list.save()
    return await get_price_list(price_list_id)


async def add_prices(price_list_id: str, prices: list[PriceInput], *, override: bool = False) -> LoadedPriceList:
    """New prices for the list (an `id` given is not reused); `override`: they replace all others."""
    _check_targets(prices)
    async with atomic():
        price_list = await _live(price_list_id, lock=True)
        new, _ = await _rows(price_list, [replace(p, id=None, **_bounds(p)) for p in prices])
        if override:
            await MoneyAmount.filter(price_list_id=price_list.id).delete()
        if new:
            await MoneyAmount.bulk_create(new)
        await price_list.save(update_fields=["updated_at"])
    return await get_price_list(price_list_id)


async def delete_price_list(price_list_id: str) -> None:
    """The list, its prices and its group links are deleted; an unknown list is not an error."""
    if not fits(PriceList, price_list_id):
        return
    async with atomic():
        price_list = await PriceList.filter(id=price_list_id).select_for_update().first()
        if price_list is None:
            return
        await MoneyAmount.filter(price_list_id=price_list.id).delete()
        await price_list.customer_groups.clear()
        await price_list.delete()


async def _delete_where(price_list_id: str, **where: Any) -> list[str]:
    async with atomic():
        price_list = await _live(price_list_id, lock=True)
        qs = MoneyAmount.filter(price_list_id=price_list.id, **where)
        ids = list(await qs.values_list("id", flat=True))
        if ids:
            await MoneyAmount.filter(id__in=ids).delete()
            await price_list.save(update_fields=["updated_at"])
    return ids


async def delete_prices(price_list_id: str, price_ids: list[str]) -> None:
    """The list's prices of those ids are deleted (others' prices are left alone)."""
    await _delete_where(price_list_id, id__in=fitting(MoneyAmount, price_ids))


async def delete_product_prices(price_list_id: str, product_ids: list[str]) -> list[str]:
    """The list's prices of every variant of the products; the ids deleted."""
    variants = ProductVariant.filter(product_id__in=fitting(Product, product_ids))
    return await _delete_where(price_list_id, variant_id__in=Subquery(variants.values_list("id", flat=True)))


async def delete_variant_prices(price_list_id: str, variant_id: str) -> list[str]:
    return await _delete_where(price_list_id, variant_id__in=fitting(ProductVariant, [variant_id]))


async def list_price_list_products(price_list_id: str, f: AdminProductFilter, config: FindConfig) -> PricedProducts:
    """The products with a price in the list; each variant shows the list's prices and its base
    prices (each with its `price_list`)."""
    price_list = await _live(price_list_id)
    priced = await list_admin_products(replace(f, price_list_id=[price_list.id]), config)
    for product in priced.products:
        for variant in getattr(product.variants, "related_objects", None) or []:
            keys = priced.prices.get(variant.id)
            if keys is None:
                continue
            keys["prices"] = [p for p in variant.prices.related_objects if p.price_list_id in (None, price_list.id)]
            for p in keys["prices"]:
                p.price_list = price_list if p.price_list_id else None
    return priced

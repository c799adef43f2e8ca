"""Products as the storefront reads them (published, in a sales channel, priced for a context) and
as the back office reads them (every status, base prices only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from tortoise.expressions import Q, Subquery
from tortoise.queryset import QuerySet

from models import DiscountCondition, Product, ProductVariant, Region
from models.product import PRODUCT_STATUSES
from services.core.errors import InvalidData, NotFound
from services.core.listing import FindConfig, date_filters, find_one, find_page
from services.catalog.pricing import PriceContext, decorate_variants, price_context, tax_rates_for_products
from services.sales_channels.scopes import KeyScope, check_channel, check_product, listing_channels
from services.store.defaults import get_store

__all__ = [
    "StoreProductFilter", "AdminProductFilter", "list_store_products", "get_store_product",
    "list_admin_products", "get_admin_product", "PricedProducts", "PRODUCT_ALIASES",
]

PRODUCT_ALIASES = {"profiles": "profile"}


@dataclass
class _ProductFilter:
    """The filters both interfaces share."""

    q: str | None = None
    id: list[str] = field(default_factory=list)
    collection_id: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)  # tag ids, not values
    type_id: list[str] = field(default_factory=list)
    sales_channel_id: list[str] = field(default_factory=list)
    title: str | None = None
    description: str | None = None
    handle: str | None = None
    is_giftcard: bool | None = None
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None


@dataclass
class StoreProductFilter(_ProductFilter):
    region_id: str | None = None
    currency_code: str | None = None


@dataclass
class AdminProductFilter(_ProductFilter):
    status: list[str] = field(default_factory=list)
    price_list_id: list[str] = field(default_factory=list)
    discount_condition_id: str | None = None
    deleted_at: dict[str, datetime | None] | None = None  # given: soft-deleted products are candidates


@dataclass
class PricedProducts:
    products: list[Product]
    count: int
    prices: dict[str, dict]  # variant id -> price keys


async def _context(region_id: str | None, currency_code: str | None) -> PriceContext:
    region = None
    if region_id:
        region = await Region.get_or_none(id=region_id, deleted_at=None)
        if region is None:
            raise NotFound(f"Region with {region_id} was not found")
    return PriceContext(region=region, currency_code=(currency_code or "").lower() or None)


def _matching(qs: QuerySet, f: _ProductFilter, channel_ids: list[str]) -> QuerySet:
    """`qs` narrowed by the shared filters; a product may repeat (see `_once`)."""
    if channel_ids:
        qs = qs.filter(sales_channels__id__in=channel_ids)
    if f.q:
        qs = qs.filter(
            Q(title__icontains=f.q) | Q(description__icontains=f.q) | Q(variants__title__icontains=f.q)
            | Q(variants__sku__icontains=f.q) | Q(collection__title__icontains=f.q)
        )
    else:
        qs = qs.filter(**{k: v for k, v in (("title", f.title), ("description", f.description)) if v is not None})
    for column, values in (("id", f.id), ("collection_id", f.collection_id), ("type_id", f.type_id),
                           ("tags__id", f.tags)):
        if values:
            qs = qs.filter(**{f"{column}__in": values})
    if f.handle is not None:
        qs = qs.filter(handle=f.handle)
    if f.is_giftcard is not None:
        qs = qs.filter(is_giftcard=f.is_giftcard)
    return qs.filter(**date_filters(created_at=f.created_at, updated_at=f.updated_at))


def _once(qs: QuerySet, f: _ProductFilter, channel_ids: list[str]) -> QuerySet:
    # Joins through variants, tags or channels can repeat a product; select each once.
    if f.q or f.tags or len(channel_ids) > 1:
        return Product.filter(id__in=Subquery(qs.values_list("id", flat=True)))
    return qs


def _store_filtered(f: StoreProductFilter, channel_ids: list[str]) -> QuerySet:
    qs = _matching(Product.filter(deleted_at=None, status="published"), f, channel_ids)
    return _once(qs, f, channel_ids)


async def _priced(
    products: list[Product], relations: tuple[str, ...], ctx: PriceContext, customer_id: str | None = None
) -> dict[str, dict]:
    """The price keys of the products' variants for `ctx` and the customer's price lists."""
    if "variants.prices" not in relations:
        return {}
    variants = [v for p in products for v in p.variants.related_objects]
    ctx = await price_context(variants, region=ctx.region, currency_code=ctx.currency_code, customer_id=customer_id)
    rates_by_product = {}
    if ctx.region is not None and ctx.region.automatic_taxes:
        rates_by_product = await tax_rates_for_products(ctx.region, [p.id for p in products])
    default_rates = [{"rate": ctx.region.tax_rate, "name": "default", "code": "default"}] if ctx.region else None
    out: dict[str, dict] = {}
    for product in products:
        rates = None
        if ctx.region is not None and ctx.region.automatic_taxes:
            rates = rates_by_product.get(product.id) or default_rates
        out.update(decorate_variants(list(product.variants.related_objects), ctx, rates))
    return out


async def list_store_products(
    f: StoreProductFilter, config: FindConfig, scope: KeyScope | None = None, customer_id: str | None = None
) -> PricedProducts:
    """Published products of the channels asked for, else of the publishable key's `scope`, else
    of the store's default channel."""
    ctx = await _context(f.region_id, f.currency_code)
    channel_ids = listing_channels(scope, f.sales_channel_id) or [
        c for c in [(await get_store()).default_sales_channel_id] if c
    ]
    products, count = await find_page(_store_filtered(f, channel_ids), config, PRODUCT_ALIASES)
    return PricedProducts(products, count, await _priced(products, config.relations, ctx, customer_id))


async def get_store_product(
    product_id: str, relations: tuple[str, ...], region_id: str | None = None, currency_code: str | None = None,
    scope: KeyScope | None = None, sales_channel_id: str | None = None, customer_id: str | None = None,
) -> PricedProducts:
    """The published product; with a publishable key's `scope`, only one sold in the key's channels
    (a `sales_channel_id` given must be one of them too)."""
    check_channel(scope, [sales_channel_id] if sales_channel_id else [])
    ctx = await _context(region_id, currency_code)
    product = await find_one(
        Product.filter(id=product_id, deleted_at=None, status="published"), relations, PRODUCT_ALIASES
    )
    if product is None:
        raise NotFound(f"Product with id: {product_id} was not found")
    await check_product(scope, product_id)
    return PricedProducts([product], 1, await _priced([product], relations, ctx, customer_id))


# ---------------------------------------------------------------- the back office


def _admin_filtered(f: AdminProductFilter) -> QuerySet:
    bad = [s for s in f.status if s not in PRODUCT_STATUSES]
    if bad:
        raise InvalidData(f"each value in status must be one of the following values: {', '.join(PRODUCT_STATUSES)}")
    qs = Product.all() if f.deleted_at is not None else Product.filter(deleted_at=None)
    qs = _matching(qs, f, f.sales_channel_id).filter(**date_filters(deleted_at=f.deleted_at))
    if f.status:
        qs = qs.filter(status__in=f.status)
    if f.price_list_id:
        with_list_price = ProductVariant.filter(deleted_at=None, prices__price_list_id__in=f.price_list_id)
        qs = qs.filter(id__in=Subquery(with_list_price.values_list("product_id", flat=True)))
    if f.discount_condition_id is not None:
        in_condition = DiscountCondition.filter(id=f.discount_condition_id)
        qs = qs.filter(id__in=Subquery(in_condition.values_list("products__id", flat=True)))
    return _once(qs, f, f.sales_channel_id)


def _base_prices(products: list[Product], relations: tuple[str, ...]) -> dict[str, dict]:
    """The back office sees each variant's base prices (no price-list rows) and no chosen price."""
    if "variants.prices" not in relations:
        return {}
    out: dict[str, dict] = {}
    for product in products:
        out.update(decorate_variants(list(product.variants.related_objects), PriceContext(), None))
    for keys in out.values():
        keys["prices"] = [p for p in keys["prices"] if p.price_list_id is None]
    return out


async def list_admin_products(f: AdminProductFilter, config: FindConfig) -> PricedProducts:
    products, count = await find_page(_admin_filtered(f), config, PRODUCT_ALIASES)
    return PricedProducts(products, count, _base_prices(products, config.relations))


async def get_admin_product(product_id: str, relations: tuple[str, ...]) -> PricedProducts:
    product = await find_one(Product.filter(id=product_id, deleted_at=None), relations, PRODUCT_ALIASES)
    if product is None:
        raise NotFound(f"Product with id: {product_id} was not found")
    return PricedProducts([product], 1, _base_prices([product], relations))

"""Products as the storefront reads them: published, in a sales channel, priced for a context."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from tortoise.expressions import Q, Subquery
from tortoise.queryset import QuerySet

from models import Product, Region
from services.errors import NotFound
from services.listing import FindConfig, date_filters, find_one, find_page
from services.pricing import PriceContext, decorate_variants, tax_rates_for_products
from services.store import get_store

__all__ = ["StoreProductFilter", "list_store_products", "get_store_product", "PricedProducts", "PRODUCT_ALIASES"]

PRODUCT_ALIASES = {"profiles": "profile"}


@dataclass
class StoreProductFilter:
    q: str | None = None
    id: list[str] = field(default_factory=list)
    collection_id: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    type_id: list[str] = field(default_factory=list)
    sales_channel_id: list[str] = field(default_factory=list)
    title: str | None = None
    description: str | None = None
    handle: str | None = None
    is_giftcard: bool | None = None
    region_id: str | None = None
    currency_code: str | None = None
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None


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


def _filtered(f: StoreProductFilter, channel_ids: list[str]) -> QuerySet:
    qs = Product.filter(deleted_at=None, status="published")
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
    qs = qs.filter(**date_filters(created_at=f.created_at, updated_at=f.updated_at))
    # Joins through variants, tags or channels can repeat a product; select each once.
    if f.q or f.tags or len(channel_ids) > 1:
        return Product.filter(id__in=Subquery(qs.values_list("id", flat=True)))
    return qs


async def _priced(products: list[Product], relations: tuple[str, ...], ctx: PriceContext) -> dict[str, dict]:
    if "variants.prices" not in relations:
        return {}
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


async def list_store_products(f: StoreProductFilter, config: FindConfig) -> PricedProducts:
    ctx = await _context(f.region_id, f.currency_code)
    channel_ids = f.sales_channel_id or [c for c in [(await get_store()).default_sales_channel_id] if c]
    products, count = await find_page(_filtered(f, channel_ids), config, PRODUCT_ALIASES)
    return PricedProducts(products, count, await _priced(products, config.relations, ctx))


async def get_store_product(
    product_id: str, relations: tuple[str, ...], region_id: str | None = None, currency_code: str | None = None
) -> PricedProducts:
    ctx = await _context(region_id, currency_code)
    product = await find_one(
        Product.filter(id=product_id, deleted_at=None, status="published"), relations, PRODUCT_ALIASES
    )
    if product is None:
        raise NotFound(f"Product with id: {product_id} was not found")
    return PricedProducts([product], 1, await _priced([product], relations, ctx))

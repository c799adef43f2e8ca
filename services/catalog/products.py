"""Products as the storefront reads them (published, in a sales channel, priced for a context) and
as the back office reads them (every status, base prices only)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from tortoise.expressions import Subquery
from tortoise.queryset import QuerySet

from models import Cart, DiscountCondition, Product, ProductCategory, ProductVariant, Region
from models.product import PRODUCT_STATUSES
from services.core.errors import InvalidData, NotFound
from services.core.listing import FindConfig, date_filters, find_one, find_page
from services.core.search_pages import find_page_of_any
from services.catalog import product_q
from services.catalog.category_tree_reads import category_ids_with_descendants, visible_ids
from services.catalog.search_engines import matching_ids
from services.catalog.pricing import PriceContext, decorate_variants, price_context, tax_rates_for_products
from services.sales_channels.scopes import KeyScope, check_channel, check_product, listing_channels
from services.catalog.product_reads import ROW_RELATIONS, load_product_rows
from services.inventory.channel_stock import show_channel_stock
from services.store.defaults import default_channel_id

__all__ = [
    "StoreProductFilter", "AdminProductFilter", "list_store_products", "get_store_product",
    "list_admin_products", "get_admin_product", "PricedProducts", "PRODUCT_ALIASES",
    "price_keys", "base_price_keys", "price_context_for",
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
    category_id: list[str] = field(default_factory=list)  # in any of these categories
    include_category_children: bool | None = None  # or in a category below one of them


@dataclass
class StoreProductFilter(_ProductFilter):
    region_id: str | None = None
    currency_code: str | None = None
    cart_id: str | None = None  # its region prices the products


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


async def price_context_for(
    region_id: str | None, currency_code: str | None, cart_id: str | None = None,
) -> PriceContext:
    """The region (404 when unknown or deleted) or the bare currency a price is chosen for; a
    cart's region (404 for an unknown cart) wins over both, as in Medusa v1."""
    if cart_id:
        cart_region = await Cart.filter(id=cart_id, deleted_at=None).values_list("region_id", flat=True)
        if not cart_region:
            raise NotFound(f"Cart with {cart_id} was not found")
        region_id, currency_code = cart_region[0], None
    region = None
    if region_id:
        region = await Region.get_or_none(id=region_id, deleted_at=None)
        if region is None:
            raise NotFound(f"Region with {region_id} was not found")
    return PriceContext(region=region, currency_code=(currency_code or "").lower() or None)


def _matching(
    qs: QuerySet, f: _ProductFilter, channel_ids: list[str], found: list[str], joined: bool = False,
) -> QuerySet:
    """`qs` narrowed by the shared filters; a product may repeat (see `_once`). `q` matches as
    Medusa's substring does (services/catalog/product_q.py; `joined`: through the joins), or as
    the search engine does (`found`: see `_found`)."""
    if channel_ids:
        qs = qs.filter(sales_channels__id__in=channel_ids)
    if f.q:
        qs = qs.filter(product_q.matches(f.q, found, joined, _with_deleted(f)))
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


def _with_deleted(f: _ProductFilter) -> bool:
    """Whether the list asks for soft-deleted rows (the admin's `deleted_at`): then `q` reads
    soft-deleted variants and collections too, as Medusa v1's list does."""
    return isinstance(f, AdminProductFilter) and f.deleted_at is not None


async def _in_categories(qs: QuerySet, f: _ProductFilter, storefront: bool) -> QuerySet:
    """`qs` narrowed to products in the categories asked for (and the categories below them with
    `include_category_children`). The store matches only categories a shopper may see: active,
    public, under active and public ancestors. One statement more with children, none without."""
    if not f.category_id:
        return qs
    if f.include_category_children:
        ids = await category_ids_with_descendants(f.category_id, shown_only=storefront)
        return qs.filter(categories__id__in=ids) if ids else qs.filter(id__in=[])
    if not storefront:
        return qs.filter(categories__id__in=f.category_id)
    shown = ProductCategory.filter(id__in=f.category_id).filter(id__in=visible_ids())
    return qs.filter(categories__id__in=Subquery(shown.values_list("id", flat=True)))


def _once(qs: QuerySet, f: _ProductFilter, channel_ids: list[str], joined: bool = False) -> QuerySet:
    # Joins through variants, tags, categories or channels can repeat a product; select each once.
    if (product_q.repeats_products(f.q, joined) or f.tags or len(f.category_id) > 1 or f.include_category_children
            or len(channel_ids) > 1):
        return Product.filter(id__in=Subquery(qs.values_list("id", flat=True)))
    return qs


async def _found(f: _ProductFilter, storefront: bool) -> list[str]:
    """What the search engine finds for `q` (prefixes, tags, a typo on PostgreSQL), which a list
    adds to Medusa's substring matches: the dashboard still finds a product by the middle of a
    word, and now also as the store's search does. The list keeps its own order and count."""
    return await matching_ids(f.q, published_only=storefront) if f.q else []


async def _store_filtered(
    f: StoreProductFilter, channel_ids: list[str], found: list[str], joined: bool = False,
) -> QuerySet:
    qs = _matching(Product.filter(deleted_at=None, status="published"), f, channel_ids, found, joined)
    return _once(await _in_categories(qs, f, storefront=True), f, channel_ids, joined)


async def _shown_categories(products: list[Product], relations: tuple[str, ...]) -> None:
    """Leave in each product's `categories` only those a shopper may see (one statement)."""
    if "categories" not in relations:
        return
    loaded = {c.id for p in products for c in p.categories.related_objects}
    if not loaded:
        return
    shown = set(await ProductCategory.filter(id__in=list(loaded)).filter(id__in=visible_ids()).values_list(
        "id", flat=True))
    for p in products:
        p.categories.related_objects = [c for c in p.categories.related_objects if c.id in shown]


async def price_keys(
    variants: list[ProductVariant], ctx: PriceContext, customer_id: str | None = None,
    rates_by_product: dict[str, list[dict]] | None = None,
) -> dict[str, dict]:
    """The price keys of `variants` (their `prices` loaded) for `ctx` and the customer's price
    lists, with the taxes of each variant's product in the region: a constant number of
    statements (one fewer when the products' tax-rate overrides come with them)."""
    ctx = await price_context(variants, region=ctx.region, currency_code=ctx.currency_code, customer_id=customer_id)
    taxed = ctx.region is not None and ctx.region.automatic_taxes
    if taxed and rates_by_product is None:
        rates_by_product = await tax_rates_for_products(ctx.region, list({v.product_id for v in variants}))
    rates_by_product = rates_by_product or {}
    default_rates = [{"rate": ctx.region.tax_rate, "name": "default", "code": "default"}] if ctx.region else None
    by_product: dict[str, list[ProductVariant]] = {}
    for v in variants:
        by_product.setdefault(v.product_id, []).append(v)
    out: dict[str, dict] = {}
    for product_id, group in by_product.items():
        rates = (rates_by_product.get(product_id) or default_rates) if taxed else None
        out.update(decorate_variants(group, ctx, rates))
    return out


async def _channel_stock(products: list[Product], relations: tuple[str, ...], channel_ids: list[str]) -> None:
    """With INVENTORY_LOCATIONS on, the variants show what the channels' locations have available."""
    if "variants" in relations:
        await show_channel_stock([v for p in products for v in p.variants.related_objects], channel_ids)


async def _priced(
    products: list[Product], relations: tuple[str, ...], ctx: PriceContext, customer_id: str | None = None,
    rates_by_product: dict[str, list[dict]] | None = None,
) -> dict[str, dict]:
    """The price keys of the products' variants for `ctx` and the customer's price lists."""
    if "variants.prices" not in relations:
        return {}
    variants = [v for p in products for v in p.variants.related_objects]
    return await price_keys(variants, ctx, customer_id, rates_by_product)


def _by_rows(relations: tuple[str, ...]) -> bool:
    """Whether services/catalog/product_reads.py reads every relation asked for."""
    return set(relations) <= ROW_RELATIONS


async def _page_by_rows(
    qs: QuerySet, config: FindConfig, ctx: PriceContext | None = None, estimated_by: QuerySet | None = None,
) -> tuple[list[Product], int, dict]:
    """The page, then every row below it in one statement (its one-row relations included),
    with the products' tax-rate overrides when the context's region computes taxes."""
    products, count = await find_page(qs, replace(config, relations=()), estimated_by=estimated_by)
    return products, count, await _rows_below(products, config.relations, ctx)


async def _one_by_rows(qs: QuerySet, relations: tuple[str, ...], ctx: PriceContext | None = None):
    product = await qs.first()
    rates = await _rows_below([product], relations, ctx) if product is not None else {}
    return product, rates


async def _rows_below(products: list[Product], relations: tuple[str, ...], ctx: PriceContext | None) -> dict:
    taxed = ctx is not None and ctx.region is not None and ctx.region.automatic_taxes
    return await load_product_rows(products, relations, tax_region_id=ctx.region.id if taxed else None)


async def list_store_products(
    f: StoreProductFilter, config: FindConfig, scope: KeyScope | None = None, customer_id: str | None = None
) -> PricedProducts:
    """Published products of the channels asked for, else of the publishable key's `scope`, else
    of the store's default channel."""
    ctx = await price_context_for(f.region_id, f.currency_code, f.cart_id)
    channel_ids = listing_channels(scope, f.sales_channel_id) or [c for c in [await default_channel_id()] if c]
    found = await _found(f, True)
    qs = await _store_filtered(f, channel_ids, found)
    estimate = await _store_filtered(f, channel_ids, found, joined=True) if f.q else None
    if _by_rows(config.relations):
        products, count, rates = await _page_by_rows(qs, config, ctx, estimate)
        await _shown_categories(products, config.relations)
        await _channel_stock(products, config.relations, channel_ids)
        return PricedProducts(products, count, await _priced(products, config.relations, ctx, customer_id, rates))
    products, count = await find_page(qs, config, PRODUCT_ALIASES, estimate)
    await _shown_categories(products, config.relations)
    await _channel_stock(products, config.relations, channel_ids)
    return PricedProducts(products, count, await _priced(products, config.relations, ctx, customer_id))


async def get_store_product(
    product_id: str, relations: tuple[str, ...], region_id: str | None = None, currency_code: str | None = None,
    scope: KeyScope | None = None, sales_channel_id: str | None = None, customer_id: str | None = None,
    cart_id: str | None = None,
) -> PricedProducts:
    """The published product; with a publishable key's `scope`, only one sold in the key's channels
    (a `sales_channel_id` given must be one of them too)."""
    check_channel(scope, [sales_channel_id] if sales_channel_id else [])
    ctx = await price_context_for(region_id, currency_code, cart_id)
    qs, rates = Product.filter(id=product_id, deleted_at=None, status="published"), None
    if _by_rows(relations):
        product, rates = await _one_by_rows(qs, relations, ctx)
    else:
        product = await find_one(qs, relations, PRODUCT_ALIASES)
    if product is None:
        raise NotFound(f"Product with id: {product_id} was not found")
    await check_product(scope, product_id)
    await _shown_categories([product], relations)
    channel_ids = [sales_channel_id] if sales_channel_id else list(scope.sales_channel_ids) if scope else []
    await _channel_stock([product], relations, channel_ids)
    return PricedProducts([product], 1, await _priced([product], relations, ctx, customer_id, rates))


# ---------------------------------------------------------------- the back office


async def _admin_filtered(f: AdminProductFilter, found: list[str], joined: bool = False) -> QuerySet:
    bad = [s for s in f.status if s not in PRODUCT_STATUSES]
    if bad:
        raise InvalidData(f"each value in status must be one of the following values: {', '.join(PRODUCT_STATUSES)}")
    qs = Product.all() if f.deleted_at is not None else Product.filter(deleted_at=None)
    qs = _matching(qs, f, f.sales_channel_id, found, joined).filter(**date_filters(deleted_at=f.deleted_at))
    if f.status:
        qs = qs.filter(status__in=f.status)
    if f.price_list_id:
        with_list_price = ProductVariant.filter(
            deleted_at=None, prices__price_list_id__in=f.price_list_id, prices__deleted_at=None,
        )
        qs = qs.filter(id__in=Subquery(with_list_price.values_list("product_id", flat=True)))
    if f.discount_condition_id is not None:
        in_condition = DiscountCondition.filter(id=f.discount_condition_id)
        qs = qs.filter(id__in=Subquery(in_condition.values_list("products__id", flat=True)))
    return _once(await _in_categories(qs, f, storefront=False), f, f.sales_channel_id, joined)


def base_price_keys(variants: list[ProductVariant]) -> dict[str, dict]:
    """The back office without a region or currency sees each variant's base prices (no
    price-list rows) and no chosen price."""
    out = decorate_variants(variants, PriceContext(), None)
    for keys in out.values():
        keys["prices"] = [p for p in keys["prices"] if p.price_list_id is None]
    return out


def _base_prices(products: list[Product], relations: tuple[str, ...]) -> dict[str, dict]:
    if "variants.prices" not in relations:
        return {}
    return base_price_keys([v for p in products for v in p.variants.related_objects])


async def list_admin_products(f: AdminProductFilter, config: FindConfig) -> PricedProducts:
    found = await _found(f, False)
    estimate = await _admin_filtered(f, found, joined=True) if f.q else None
    if f.q and product_q.indexed(f.q) and _by_rows(config.relations):
        # Each place `q` is looked for in read with the other filters, in the list's order, up to
        # the page's end (services/core/search_pages.py `find_page_ids_of_any`): a word most of the
        # catalogue holds finds the page along the order's index instead of reading every match.
        unsearched = await _admin_filtered(replace(f, q=None, title=None, description=None), [])
        places = product_q.places(f.q, found, _with_deleted(f))
        products, count = await find_page_of_any(unsearched, places, config, estimate)
        await _rows_below(products, config.relations, None)
        return PricedProducts(products, count, _base_prices(products, config.relations))
    qs = await _admin_filtered(f, found)
    if _by_rows(config.relations):
        products, count, _ = await _page_by_rows(qs, config, estimated_by=estimate)
    else:
        products, count = await find_page(qs, config, PRODUCT_ALIASES, estimate)
    return PricedProducts(products, count, _base_prices(products, config.relations))


async def get_admin_product(product_id: str, relations: tuple[str, ...]) -> PricedProducts:
    qs = Product.filter(id=product_id, deleted_at=None)
    if _by_rows(relations):
        product, _ = await _one_by_rows(qs, relations)
    else:
        product = await find_one(qs, relations, PRODUCT_ALIASES)
    if product is None:
        raise NotFound(f"Product with id: {product_id} was not found")
    return PricedProducts([product], 1, _base_prices([product], relations))

"""Product variants as the back office looks them up across products (`/admin/variants`): the
draft-order and claim screens search them and price
them for a region, a currency, a cart's region or a customer's price lists."""

from __future__ import annotations

from dataclasses import dataclass, field

from tortoise.expressions import Q
from tortoise.queryset import QuerySet

from models import ProductVariant
from services.catalog.products import base_price_keys, price_context_for, price_keys
from services.core.errors import NotFound
from services.core.listing import FindConfig, find_one, find_page

__all__ = ["VariantFilter", "VariantPricing", "PricedVariants", "list_variants", "get_variant"]


@dataclass
class VariantFilter:
    q: str | None = None  # case-insensitive, in the variant's title or SKU or its product's title
    id: list[str] = field(default_factory=list)
    title: list[str] = field(default_factory=list)  # exactly one of these
    inventory_quantity: dict[str, int] | None = None  # {"eq"|"lt"|"gt"|"lte"|"gte": n}
    manage_inventory: bool | None = None
    allow_backorder: bool | None = None


@dataclass
class VariantPricing:
    """What the prices are chosen for; none of them: base prices only, nothing chosen."""

    region_id: str | None = None
    currency_code: str | None = None
    cart_id: str | None = None  # its region wins over `region_id` and `currency_code`
    customer_id: str | None = None  # their groups' price lists apply


@dataclass
class PricedVariants:
    variants: list[ProductVariant]
    count: int
    prices: dict[str, dict]  # variant id -> price keys


def _filtered(f: VariantFilter) -> QuerySet:
    qs = ProductVariant.filter(deleted_at=None, product__deleted_at=None)
    if f.q:
        qs = qs.filter(Q(title__icontains=f.q) | Q(sku__icontains=f.q) | Q(product__title__icontains=f.q))
    if f.id:
        qs = qs.filter(id__in=f.id)
    if f.title:
        qs = qs.filter(title__in=f.title)
    for op, n in (f.inventory_quantity or {}).items():
        qs = qs.filter(**{"inventory_quantity" if op == "eq" else f"inventory_quantity__{op}": n})
    for column in ("manage_inventory", "allow_backorder"):
        if getattr(f, column) is not None:
            qs = qs.filter(**{column: getattr(f, column)})
    return qs


async def _price_keys(variants: list[ProductVariant], relations: tuple[str, ...], pricing: VariantPricing) -> dict:
    if "prices" not in relations or not variants:
        return {}
    if not (pricing.cart_id or pricing.region_id or pricing.currency_code or pricing.customer_id):
        return base_price_keys(variants)
    ctx = await price_context_for(pricing.region_id, pricing.currency_code, pricing.cart_id)
    return await price_keys(variants, ctx, pricing.customer_id)


async def list_variants(f: VariantFilter, config: FindConfig, pricing: VariantPricing) -> PricedVariants:
    variants, count = await find_page(_filtered(f), config)
    return PricedVariants(variants, count, await _price_keys(variants, config.relations, pricing))


async def get_variant(variant_id: str, relations: tuple[str, ...]) -> PricedVariants:
    variant = await find_one(ProductVariant.filter(id=variant_id, deleted_at=None, product__deleted_at=None), relations)
    if variant is None:
        raise NotFound(f"Variant with id: {variant_id} was not found")
    return PricedVariants([variant], 1, await _price_keys([variant], relations, VariantPricing()))

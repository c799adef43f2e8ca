"""Products and variants as both interfaces show them: variants carry their decorated price
keys, prices carry their `price_list` (null for a base price)."""

from __future__ import annotations

from collections.abc import Callable

from app.web.serialize import dump, relation_tree
from models import MoneyAmount, Product, ProductVariant
from services.catalog.products import PricedProducts
from services.catalog.variants_read import PricedVariants

__all__ = ["dump_products", "dump_variants"]


def _decorating(prices: dict[str, dict], single_profile: bool = False) -> Callable:
    """The `extra` hook of `dump` that adds each variant's price keys (by variant id)."""
    def extra(obj, out: dict) -> None:
        if isinstance(obj, MoneyAmount):
            out["price_list"] = dump(getattr(obj, "price_list", None))  # set by pricing when it applies
        elif isinstance(obj, ProductVariant) and obj.id in prices:
            keys = dict(prices[obj.id])
            keys["prices"] = [dump(p, extra=extra) for p in keys["prices"]]
            out.update(keys)
        elif single_profile and isinstance(obj, Product) and "profiles" in out:
            out["profile"] = out["profiles"][-1] if out["profiles"] else None

    return extra


def dump_products(
    priced: PricedProducts, relations: tuple[str, ...], fields=None, *, single_profile: bool = False
) -> list[dict]:
    """`single_profile`: also show `profile`, the last of `profiles` (Medusa's admin entity getter)."""
    extra = _decorating(priced.prices, single_profile)
    tree = relation_tree(relations)
    return [dump(p, tree, fields, extra) for p in priced.products]


def dump_variants(priced: PricedVariants, relations: tuple[str, ...], fields=None) -> list[dict]:
    extra = _decorating(priced.prices)
    tree = relation_tree(relations)
    return [dump(v, tree, fields, extra) for v in priced.variants]

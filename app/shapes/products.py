"""Products as both interfaces show them: variants carry their decorated price keys, prices
carry their `price_list` (null for a base price)."""

from __future__ import annotations

from app.web.serialize import dump, relation_tree
from models import MoneyAmount, Product, ProductVariant
from services.catalog.products import PricedProducts

__all__ = ["dump_products"]


def dump_products(
    priced: PricedProducts, relations: tuple[str, ...], fields=None, *, single_profile: bool = False
) -> list[dict]:
    """`single_profile`: also show `profile`, the last of `profiles` (Medusa's admin entity getter)."""
    def extra(obj, out: dict) -> None:
        if isinstance(obj, MoneyAmount):
            out["price_list"] = dump(getattr(obj, "price_list", None))  # set by pricing when it applies
        elif isinstance(obj, ProductVariant) and obj.id in priced.prices:
            keys = dict(priced.prices[obj.id])
            keys["prices"] = [dump(p, extra=extra) for p in keys["prices"]]
            out.update(keys)
        elif single_profile and isinstance(obj, Product) and "profiles" in out:
            out["profile"] = out["profiles"][-1] if out["profiles"] else None

    tree = relation_tree(relations)
    return [dump(p, tree, fields, extra) for p in priced.products]

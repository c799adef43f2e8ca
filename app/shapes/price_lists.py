"""Price lists as the admin shows them: the list's columns, its `customer_groups` and its
`prices` when asked for, each price with its `variant_id`, `variant` and `variants` (Medusa v1's
many-to-many link, one variant here)."""

from __future__ import annotations

from app.web.serialize import dump, relation_tree
from services.catalog.price_lists import LoadedPriceList

__all__ = ["dump_price_lists"]


def _price(price) -> dict:
    out = dump(price)
    variant = dump(price.variant)
    out["variant"], out["variants"] = variant, [variant] if variant else []
    return out


def dump_price_lists(loaded: list[LoadedPriceList], relations: tuple[str, ...], fields=None) -> list[dict]:
    tree = {k: v for k, v in relation_tree(relations).items() if k == "customer_groups"}
    out = []
    for item in loaded:
        data = dump(item.price_list, tree, fields)
        if item.prices is not None:
            data["prices"] = [_price(p) for p in item.prices]
        out.append(data)
    return out

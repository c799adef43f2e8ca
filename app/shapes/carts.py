"""The cart response: the cart's columns, `object: "cart"`, the
relations asked for plus those its totals are made of (as Medusa v1 adds them), the selected
payment session, and the totals of the cart, of each line and of each shipping method.

`payment_session` is always present: the selected session or null (Medusa leaves the key out
when none is selected and shows null after a region change; null serves both). There is no
`raw_discount_total` anywhere: amounts are whole units from the start.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from app.web.serialize import dump, relation_tree
from services.carts.view import CartView
from services.regions.taxes import TaxLine
from services.carts.totals import ItemTotals, ShippingTotals

__all__ = ["DEFAULT_RELATIONS", "ALLOWED_RELATIONS", "TOTAL_KEYS", "cart_json"]

DEFAULT_RELATIONS = (
    "gift_cards", "region", "items", "items.variant", "items.adjustments", "payment", "shipping_address",
    "billing_address", "region.countries", "region.payment_providers", "shipping_methods", "payment_sessions",
    "shipping_methods.shipping_option", "discounts", "discounts.rule", "sales_channel",
)
# Loaded for the totals whatever was asked for, so always shown; a region always shows its providers.
TOTALS_RELATIONS = (
    "items", "items.variant", "items.variant.product", "items.variant.product.profiles", "items.tax_lines",
    "items.adjustments", "gift_cards", "discounts", "discounts.rule", "shipping_methods",
    "shipping_methods.tax_lines", "shipping_address", "region", "region.tax_rates", "region.payment_providers",
    "region.fulfillment_providers",
)
ALLOWED_RELATIONS = tuple(dict.fromkeys(DEFAULT_RELATIONS + TOTALS_RELATIONS))
TOTAL_KEYS = (
    "subtotal", "discount_total", "item_tax_total", "shipping_total", "shipping_tax_total", "tax_total",
    "gift_card_total", "gift_card_tax_total", "total",
)
_ITEM_TOTALS = ("subtotal", "discount_total", "total", "original_total", "original_tax_total", "tax_total")
_METHOD_TOTALS = ("subtotal", "total", "original_total", "original_tax_total", "tax_total")


def cart_json(
    view: CartView, relations: tuple[str, ...] = DEFAULT_RELATIONS, fields: frozenset[str] | None = None,
) -> dict:
    tree = _tree(tuple(relations))
    out = dump(view.cart, None, fields)
    out["object"] = "cart"
    for name, sub in tree.items():
        out[name] = _RELATIONS[name](view, sub)
    out["payment_session"] = dump(view.payment_session)
    totals = view.totals
    out.update({key: getattr(totals, key) for key in TOTAL_KEYS})
    return out


@lru_cache(maxsize=256)  # the relations asked for: the default on every step, few others
def _tree(relations: tuple[str, ...]) -> dict[str, dict]:
    """The relation tree of the answer (read only: shared by the answers that ask alike)."""
    return relation_tree(relations + TOTALS_RELATIONS)


def _tax_line(line: Any, owner_key: str, owner_id: str) -> dict:
    if isinstance(line, TaxLine):  # computed for this answer, not stored: no id
        return {"rate": line.rate, "name": line.name, "code": line.code, owner_key: owner_id}
    return dump(line)


def _items(view: CartView, sub: dict) -> list[dict]:
    out = []
    variants: dict[int, dict | None] = {}  # lines of one variant share its one instance (reads.py), so its dict
    for item in view.items:
        data = dump(item)
        if "variant" in sub:
            shown = variants.get(id(item.variant))
            if shown is None:
                shown = variants[id(item.variant)] = dump(item.variant, sub["variant"])
            data["variant"] = shown
        data["adjustments"] = [dump(a) for a in view.adjustments.get(item.id, ())]
        data["tax_lines"] = [_tax_line(t, "item_id", item.id) for t in view.item_tax_lines.get(item.id, ())]
        totals: ItemTotals = view.totals.items[item.id]
        data.update({key: getattr(totals, key) for key in _ITEM_TOTALS})
        out.append(data)
    return out


def _shipping_methods(view: CartView, sub: dict) -> list[dict]:
    out = []
    for method in view.shipping_methods:
        data = dump(method)
        if "shipping_option" in sub:
            data["shipping_option"] = dump(method.shipping_option)
        data["tax_lines"] = [
            _tax_line(t, "shipping_method_id", method.id) for t in view.method_tax_lines.get(method.id, ())
        ]
        totals: ShippingTotals = view.totals.shipping_methods[method.id]
        data.update({key: getattr(totals, key) for key in _METHOD_TOTALS})
        out.append(data)
    return out


def _region(view: CartView, sub: dict) -> dict:
    data = dump(view.cart.region)
    parts = view.region
    for name in ("countries", "payment_providers", "fulfillment_providers", "tax_rates"):
        if name in sub:
            data[name] = [dump(row) for row in getattr(parts, name)]
    return data


_RELATIONS = {
    "gift_cards": lambda view, sub: [dump(g) for g in view.gift_cards],
    "region": _region,
    "items": _items,
    "payment": lambda view, sub: None,  # a payment exists only once the cart is completed
    "shipping_address": lambda view, sub: dump(view.cart.shipping_address),
    "billing_address": lambda view, sub: dump(view.cart.billing_address),
    "shipping_methods": _shipping_methods,
    "payment_sessions": lambda view, sub: [dump(s) for s in view.payment_sessions],
    "discounts": lambda view, sub: [dump(d, sub) for d in view.discounts],
    "sales_channel": lambda view, sub: dump(view.cart.sales_channel),
}

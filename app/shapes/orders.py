"""The order answer: the order's columns, `object:
"order"`, the relations asked for, and its totals, on every route that shows an order.

Lines always show their variant, adjustments, tax lines and totals, and shipping methods their
option, tax lines and totals: they are loaded for the totals anyway (as in Medusa v1, whose
answers show them too). The top-level totals are on every order, whatever `fields` names: they
cost nothing more to show. Fulfillments always show their items and tracking links, returns their
items (each with its reason) and return shipping: all are read for the page at once. Claims and
swaps show with everything below them, which the claims and swaps areas read
(`with_claims_and_swaps`): orders, below them, read only their rows. Order edits show as an
empty list (their own routes serve them) because Medusa's clients read the key.
"""

from __future__ import annotations

from typing import Any

from app.web.serialize import dump, relation_tree
from models import Fulfillment, LineItem, Return, ShippingMethod
from services.claims.view import load_claims
from services.orders.list_reads import ListedOrder
from services.orders.totals import TOTAL_KEYS
from services.orders.view import AfterSale, OrderView, load_placed_view
from services.swaps.view import load_swaps

__all__ = [
    "ORDER_COLUMNS", "STORE_COLUMNS", "STORE_RELATIONS", "STORE_ALLOWED_RELATIONS", "ADMIN_RELATIONS",
    "ADMIN_ALLOWED_RELATIONS", "PLACED_RELATIONS", "TOTAL_KEYS", "FIELD_EXTRAS", "order_json",
    "placed_order_json", "item_json", "fulfillment_json", "return_json", "claim_json", "swap_json",
    "with_claims_and_swaps",
]

ORDER_COLUMNS = (
    "id", "status", "fulfillment_status", "payment_status", "display_id", "cart_id", "draft_order_id",
    "customer_id", "email", "billing_address_id", "shipping_address_id", "region_id", "currency_code",
    "tax_rate", "canceled_at", "no_notification", "idempotency_key", "external_id", "sales_channel_id",
    "created_at", "updated_at", "metadata",
)
# What a shopper sees of an order (Medusa v1's store fields).
STORE_COLUMNS = (
    "id", "status", "fulfillment_status", "payment_status", "display_id", "cart_id", "customer_id", "email",
    "region_id", "currency_code", "tax_rate", "created_at",
)
STORE_RELATIONS = (
    "shipping_address", "fulfillments", "fulfillments.tracking_links", "items", "items.variant",
    "shipping_methods", "shipping_methods.shipping_option", "discounts", "discounts.rule", "customer", "payments",
    "region",
)
STORE_ALLOWED_RELATIONS = STORE_RELATIONS + ("billing_address",)
_EMPTY = ("edits",)
# Medusa v1's admin defaults (`defaultAdminOrdersRelations`).
ADMIN_RELATIONS = (
    "billing_address", "claims", "claims.additional_items", "claims.additional_items.variant",
    "claims.claim_items", "claims.claim_items.images", "claims.claim_items.item", "claims.fulfillments",
    "claims.fulfillments.tracking_links", "claims.return_order", "claims.return_order.shipping_method",
    "claims.return_order.shipping_method.tax_lines", "claims.shipping_address", "claims.shipping_methods",
    "customer", "discounts", "discounts.rule", "fulfillments", "fulfillments.items", "fulfillments.tracking_links",
    "gift_card_transactions", "gift_cards", "items", "payments", "refunds", "region", "returns", "returns.items",
    "returns.items.reason", "returns.shipping_method", "returns.shipping_method.shipping_option",
    "returns.shipping_method.tax_lines", "shipping_address", "shipping_methods", "shipping_methods.shipping_option",
    "shipping_methods.tax_lines", "swaps", "swaps.additional_items", "swaps.additional_items.variant",
    "swaps.fulfillments", "swaps.fulfillments.tracking_links", "swaps.payment", "swaps.return_order",
    "swaps.return_order.shipping_method", "swaps.return_order.shipping_method.shipping_option",
    "swaps.return_order.shipping_method.tax_lines", "swaps.shipping_address", "swaps.shipping_methods",
    "swaps.shipping_methods.shipping_option", "swaps.shipping_methods.tax_lines", "sales_channel",
)
# Everything the admin's order answer can show, as a tree: `expand` accepts every path in it (each
# shows), which holds every relation Medusa v1's order, swap, claim and return routes name for what
# lies under an order. A line's `variant.product` (and its `profiles`) shows only when asked for.
_LINE = {"variant": {"product": {"profiles": {}}}, "adjustments": {}, "tax_lines": {}}
_METHOD = {"shipping_option": {}, "tax_lines": {}}
_FULFILLMENT = {"items": {}, "tracking_links": {}}
_RETURN = {"items": {"reason": {}}, "shipping_method": _METHOD}
ADMIN_TREE: dict[str, dict] = {
    **{name: {} for name in (
        "shipping_address", "billing_address", "customer", "region", "sales_channel", "gift_cards",
        "gift_card_transactions", "payments", "refunds", "edits",
    )},
    "items": _LINE, "shipping_methods": _METHOD, "discounts": {"rule": {}}, "fulfillments": _FULFILLMENT,
    "returns": _RETURN,
    "claims": {
        "claim_items": {"item": {"variant": {}}, "images": {}, "tags": {}}, "additional_items": _LINE,
        "fulfillments": _FULFILLMENT, "return_order": _RETURN, "shipping_address": {}, "shipping_methods": _METHOD,
    },
    "swaps": {
        "additional_items": _LINE, "fulfillments": _FULFILLMENT, "return_order": _RETURN, "payment": {},
        "shipping_address": {}, "shipping_methods": _METHOD,
    },
}


def _paths(tree: dict, prefix: str = "") -> tuple[str, ...]:
    return tuple(p for name, below in tree.items() for p in (prefix + name, *_paths(below, f"{prefix}{name}.")))


ADMIN_ALLOWED_RELATIONS = _paths(ADMIN_TREE)
# Cart completion's answer: what the order is loaded with there.
PLACED_RELATIONS = (
    "shipping_address", "items", "items.variant", "items.adjustments", "items.tax_lines", "payments",
    "shipping_methods", "shipping_methods.tax_lines", "shipping_methods.shipping_option", "region", "discounts",
    "discounts.rule", "gift_cards", "gift_card_transactions", "refunds", "swaps", "claims",
)
# Names `fields` may hold besides columns (they are always shown anyway, or are `object`).
FIELD_EXTRAS = ("object",) + TOTAL_KEYS

_PAYMENT_COLUMNS = (
    "id", "swap_id", "cart_id", "order_id", "amount", "currency_code", "amount_refunded", "provider_id", "data",
    "captured_at", "canceled_at", "created_at", "updated_at", "metadata", "idempotency_key",
)
_TRANSACTION_COLUMNS = ("id", "gift_card_id", "order_id", "amount", "created_at", "is_taxable", "tax_rate")
_ITEM_TOTALS = ("subtotal", "discount_total", "total", "original_total", "original_tax_total", "tax_total")
_METHOD_TOTALS = ("subtotal", "total", "original_total", "original_tax_total", "tax_total")


def order_json(
    view: OrderView | ListedOrder, relations: tuple[str, ...], fields: frozenset[str] | None = None,
    columns: tuple[str, ...] = ORDER_COLUMNS, *, returnable_items: bool = False,
) -> dict:
    """`columns` (or those of them `fields` names), `object`, `relations`, the totals, and the
    lines that can be returned when `returnable_items` is asked for. A `ListedOrder` (a lean
    list page) has only the relations that `reads_lean` allows."""
    out = _columns(view.order, columns, fields)
    if fields is None or "object" in fields:
        out["object"] = "order"
    tree = relation_tree(relations)
    for name, below in tree.items():
        out[name] = _RELATIONS[name](view, below)
    totals = view.totals
    out.update({key: getattr(totals, key) for key in TOTAL_KEYS})
    if returnable_items:
        # Shown like `items` (the dashboard's return forms read each one's variant.product.title).
        below = tree.get("items") or {"variant": {"product": {}}}
        out["returnable_items"] = [item_json(view, i, below) for i in view.returnable_items]
    return out


async def with_claims_and_swaps(views: list[OrderView | ListedOrder]) -> list[OrderView | ListedOrder]:
    """`views` with their claims and swaps and what lies below them, from the rows the views were
    read with (none for views read without their after-sale rows): a fixed number of statements
    for the whole page, none when no order has a claim or a swap."""
    ids = [v.order.id for v in views]
    claims = await load_claims(ids, [c for v in views for c in v.after_sale.claim_rows])
    swaps = await load_swaps(ids, [s for v in views for s in v.after_sale.swap_rows])
    for view in views:
        view.after_sale.claims, view.after_sale.swaps = claims[view.order.id], swaps[view.order.id]
    return views


async def placed_order_json(order_id: str) -> dict:
    """The order as cart completion answers it: every column, the relations of PLACED_RELATIONS
    and the full totals. NotFound when there is no such order."""
    return order_json(await load_placed_view(order_id), PLACED_RELATIONS)


def item_json(view: OrderView, item: LineItem, below: dict | None = None) -> dict:
    """The line with its variant (and the variant's product, when `below` names
    `variant.product`), adjustments, tax lines and totals."""
    data = dump(item)
    data["variant"] = dump(item.variant)
    product = (below or {}).get("variant", {}).get("product")
    if product is not None and item.variant is not None:
        data["variant"]["product"] = _product(item.variant.product, "profiles" in product)
    data["adjustments"] = [dump(a) for a in view.adjustments[item.id]]
    data["tax_lines"] = [dump(t) for t in view.item_tax_lines[item.id]]
    totals = view.totals.items[item.id]
    data.update({key: getattr(totals, key) for key in _ITEM_TOTALS})
    data["refundable"] = view.totals.refundable[item.id]
    return data


def _product(product: Any, profiles: bool) -> dict | None:
    # Medusa v1.20's `profiles` is the product's shipping profiles; a product here has one.
    data = dump(product)
    if data is not None and profiles:
        data["profiles"] = [dump(product.profile)] if product.profile is not None else []
    return data


def _columns(row: Any, columns: tuple[str, ...], fields: frozenset[str] | None = None) -> dict:
    values = row.__dict__
    return {c: values.get(c) for c in columns if fields is None or c in fields}


def _method(view: OrderView, method: ShippingMethod) -> dict:
    data = dump(method)
    data["shipping_option"] = dump(method.shipping_option)
    data["tax_lines"] = [dump(t) for t in view.method_tax_lines[method.id]]
    totals = view.totals.shipping_methods[method.id]
    data.update({key: getattr(totals, key) for key in _METHOD_TOTALS})
    return data


def fulfillment_json(after: AfterSale, fulfillment: Fulfillment) -> dict:
    data = dump(fulfillment)
    data["items"] = [dump(i) for i in after.fulfillment_items.get(fulfillment.id, [])]
    data["tracking_links"] = [dump(t) for t in after.tracking_links.get(fulfillment.id, [])]
    return data


def return_json(after: AfterSale, ret: Return) -> dict:
    """The return with its items (each with its reason) and its shipping method (with the
    option and tax lines), null when it is shipped back without one."""
    data = dump(ret)
    data["items"] = [dump(i, {"reason": {}}) for i in after.return_items.get(ret.id, [])]
    method = after.return_methods.get(ret.id)
    data["shipping_method"] = None
    if method is not None:
        data["shipping_method"] = dump(method, {"shipping_option": {}})
        data["shipping_method"]["tax_lines"] = [dump(t) for t in after.return_method_tax_lines.get(method.id, [])]
    return data


def claim_json(parts, below: dict) -> dict:
    """A claim with its claimed items (each with its line, photos and tags), replacements, parcels,
    return (with its shipping), address and shipping methods; a replacement's product when `below` asks for it."""
    data = dump(parts.claim)
    data["claim_items"] = []
    for item in parts.claim_items:
        row = dump(item)
        row["item"] = dump(item.item, {"variant": {}}) if getattr(item, "item", None) is not None else None
        row["images"] = [dump(i) for i in item.images]
        row["tags"] = [dump(t) for t in item.tags]
        data["claim_items"].append(row)
    data["additional_items"] = _new_lines(parts.additional_items, parts.item_tax_lines, below, parts.item_adjustments)
    data["fulfillments"] = [{**dump(f), "items": [dump(i) for i in parts.fulfillment_items.get(f.id, [])],
                             "tracking_links": [dump(t) for t in parts.tracking_links.get(f.id, [])]}
                            for f in parts.fulfillments]
    data["return_order"] = _return_order(parts)
    data["shipping_address"] = dump(parts.shipping_address)
    data["shipping_methods"] = [
        {**dump(m, {"shipping_option": {}}), "tax_lines": [dump(t) for t in m.tax_lines]} for m in parts.shipping_methods
    ]
    return data


def _return_order(parts) -> dict | None:
    """A claim's or a swap's return with its items (each with its reason) and its shipping method."""
    if parts.return_order is None:
        return None
    ret = {**dump(parts.return_order), "items": [dump(i, {"reason": {}}) for i in parts.return_items]}
    method = parts.return_method
    ret["shipping_method"] = None if method is None else {
        **dump(method, {"shipping_option": {}}), "tax_lines": [dump(t) for t in method.tax_lines]}
    return ret


def _new_lines(lines: list, tax_lines: dict, below: dict, adjustments: dict) -> list[dict]:
    """A claim's or a swap's new lines, each with its variant (and product, when `below` asks)."""
    product = below.get("additional_items", {}).get("variant", {}).get("product")
    out = []
    for line in lines:
        row = dump(line)
        row["variant"] = dump(line.variant)
        if product is not None and line.variant is not None:
            row["variant"]["product"] = _product(line.variant.product, "profiles" in product)
        row["tax_lines"] = [dump(t) for t in tax_lines.get(line.id, [])]
        row["adjustments"] = [dump(a) for a in adjustments.get(line.id, [])]
        out.append(row)
    return out


def swap_json(parts, below: dict) -> dict:
    """A swap with its new lines, parcels, return (items, reasons, shipping), payment, address
    and shipping methods; a new line's product when `below` asks for it."""
    data = dump(parts.swap)
    data["additional_items"] = _new_lines(parts.additional_items, parts.item_tax_lines, below, parts.item_adjustments)
    data["fulfillments"] = [{**dump(f), "items": [dump(i) for i in parts.fulfillment_items.get(f.id, [])],
                             "tracking_links": [dump(t) for t in parts.tracking_links.get(f.id, [])]}
                            for f in parts.fulfillments]
    data["return_order"] = _return_order(parts)
    data["payment"] = _columns(parts.payment, _PAYMENT_COLUMNS) if parts.payment is not None else None
    data["shipping_address"] = dump(parts.shipping_address)
    data["shipping_methods"] = [
        {**dump(m, {"shipping_option": {}}), "tax_lines": [dump(t) for t in m.tax_lines]} for m in parts.shipping_methods
    ]
    return data


def _one(name: str):
    return lambda view, below: dump(getattr(view.order, name))


_RELATIONS = {
    **{name: _one(name) for name in ("shipping_address", "billing_address", "customer", "region", "sales_channel")},
    "items": lambda view, below: [item_json(view, i, below) for i in view.items],
    "shipping_methods": lambda view, below: [_method(view, m) for m in view.shipping_methods],
    "discounts": lambda view, below: [dump(d, {"rule": {}}) for d in view.discounts],
    "gift_cards": lambda view, below: [dump(g) for g in view.gift_cards],
    "gift_card_transactions": lambda view, below: [
        _columns(t, _TRANSACTION_COLUMNS) for t in view.gift_card_transactions
    ],
    "payments": lambda view, below: [_columns(p, _PAYMENT_COLUMNS) for p in view.payments],
    "fulfillments": lambda view, below: [fulfillment_json(view.after_sale, f) for f in view.after_sale.fulfillments],
    "refunds": lambda view, below: [dump(r) for r in view.after_sale.refunds],
    "returns": lambda view, below: [return_json(view.after_sale, r) for r in view.after_sale.returns],
    "claims": lambda view, below: [claim_json(c, below) for c in view.after_sale.claims],
    "swaps": lambda view, below: [swap_json(c, below) for c in view.after_sale.swaps],
    **{name: (lambda view, below: []) for name in _EMPTY},
}

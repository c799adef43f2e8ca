"""The order edit answer and the payment collection answer
(Medusa v1's `/store/payment-collections`).

An edit always shows its `status` and its totals (`subtotal, discount_total, shipping_total,
gift_card_total, gift_card_tax_total, tax_total, total` of the edited order, and
`difference_due`), whatever `fields` names: they cost nothing more. Its lines show as the order's
lines do (variant, adjustments, tax lines, line totals). A shopper never sees the back office's
columns (`internal_note, created_by, confirmed_by, canceled_by`) nor who made a collection.
"""

from __future__ import annotations

from typing import Any

from app.shapes.orders import ORDER_COLUMNS, item_json, order_json
from app.web.serialize import dump, relation_tree
from models import LineItem, OrderItemChange, PaymentCollection, PaymentCollectionSession
from services.order_edits.totals import EditView

__all__ = [
    "ADMIN_COLUMNS", "STORE_COLUMNS", "RELATIONS", "ADMIN_ALLOWED_RELATIONS", "EXTRA_FIELDS", "TOTAL_KEYS",
    "COLLECTION_COLUMNS", "COLLECTION_RELATIONS", "edit_json", "collection_json", "session_json",
]

ADMIN_COLUMNS = (
    "id", "order_id", "internal_note", "created_by", "requested_by", "requested_at", "confirmed_by", "confirmed_at",
    "declined_by", "declined_reason", "declined_at", "canceled_by", "canceled_at", "payment_collection_id",
    "created_at", "updated_at",
)
_BACK_OFFICE = ("internal_note", "created_by", "confirmed_by", "canceled_by")
STORE_COLUMNS = tuple(c for c in ADMIN_COLUMNS if c not in _BACK_OFFICE)
# Medusa v1's default relations of every edit answer, admin and store alike.
RELATIONS = (
    "changes", "changes.line_item", "changes.line_item.variant", "changes.original_line_item",
    "changes.original_line_item.variant", "items", "items.variant", "items.adjustments", "items.tax_lines",
    "payment_collection",
)
ADMIN_ALLOWED_RELATIONS = RELATIONS + ("order",)
TOTAL_KEYS = (
    "discount_total", "gift_card_total", "gift_card_tax_total", "shipping_total", "subtotal", "tax_total", "total",
)
EXTRA_FIELDS = ("status", "difference_due") + TOTAL_KEYS

_CHANGE_COLUMNS = (
    "id", "type", "order_edit_id", "original_line_item_id", "line_item_id", "created_at", "updated_at", "deleted_at",
)
COLLECTION_COLUMNS = (
    "id", "type", "status", "description", "amount", "authorized_amount", "region_id", "currency_code", "metadata",
    "created_at", "updated_at", "deleted_at",
)
COLLECTION_RELATIONS = ("region", "payment_sessions")
_SESSION_COLUMNS = (
    "id", "payment_collection_id", "provider_id", "is_selected", "is_initiated", "status", "data", "amount",
    "payment_authorized_at", "created_at", "updated_at",
)


def _columns(row: Any, columns: tuple[str, ...], fields: frozenset[str] | None = None) -> dict:
    values = row.__dict__
    return {c: values.get(c) for c in columns if fields is None or c in fields}


def edit_json(
    view: EditView, relations: tuple[str, ...] = RELATIONS, fields: frozenset[str] | None = None, *,
    store: bool = False,
) -> dict:
    """The admin's or the store's columns (those `fields` names), `status`, `relations` and the
    totals."""
    out = _columns(view.edit, STORE_COLUMNS if store else ADMIN_COLUMNS, fields)
    out["status"] = view.status
    for name, sub in relation_tree(relations).items():
        if name == "changes":
            out[name] = [_change(view, c, sub) for c in view.changes]
        elif name == "items":
            out[name] = [item_json(view.edited, i) for i in view.items]
        elif name == "payment_collection":
            collection = view.payment_collection
            out[name] = collection_json(collection, (), store=store) if collection is not None else None
        elif name == "order":
            out[name] = order_json(view.order, (), None, ORDER_COLUMNS)
    totals = view.edited.totals
    out.update({key: getattr(totals, key) for key in TOTAL_KEYS})
    out["difference_due"] = view.difference_due
    return out


def _change(view: EditView, change: OrderItemChange, sub: dict) -> dict:
    out = _columns(change, _CHANGE_COLUMNS)
    for name, column in (("line_item", "line_item_id"), ("original_line_item", "original_line_item_id")):
        if name in sub:
            item = view.change_items.get(getattr(change, column) or "")
            out[name] = _line(item, "variant" in sub[name]) if item is not None else None
    return out


def _line(item: LineItem, with_variant: bool) -> dict:
    data = dump(item)
    if with_variant:
        data["variant"] = dump(item.variant)
    return data


def collection_json(
    collection: PaymentCollection, relations: tuple[str, ...] = COLLECTION_RELATIONS,
    fields: frozenset[str] | None = None, *, store: bool = True,
) -> dict:
    out = _columns(collection, COLLECTION_COLUMNS, fields)
    if not store and (fields is None or "created_by" in fields):
        out["created_by"] = collection.created_by
    if "region" in relations:
        out["region"] = dump(collection.region)
    if "payment_sessions" in relations:
        out["payment_sessions"] = [session_json(s) for s in collection.payment_sessions]
    return out


def session_json(session: PaymentCollectionSession) -> dict:
    return _columns(session, _SESSION_COLUMNS)

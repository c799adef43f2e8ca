"""The draft order answer: the draft's columns, its cart and the order it
became.

One draft shows its cart as every cart route does (app/shapes/carts.py: relations and totals) plus
the cart's customer; a list shows each cart's columns with the relations asked for, no totals
(as Medusa v1). Every answer shows every column of the draft, `completed_at` included (Medusa
leaves it out of most answers; it is when the draft was paid). `order` is the order's columns.
"""

from __future__ import annotations

from app.shapes.carts import cart_json
from app.shapes.orders import ORDER_COLUMNS
from app.web.serialize import dump, relation_tree
from models import DraftOrder, Order
from services.draft_orders.drafts import DraftOrderView

__all__ = ["DRAFT_COLUMNS", "draft_order_json", "draft_orders_json"]

DRAFT_COLUMNS = (
    "id", "status", "display_id", "cart_id", "order_id", "canceled_at", "completed_at", "created_at", "updated_at",
    "metadata", "no_notification_order", "idempotency_key",
)


def draft_order_json(view: DraftOrderView) -> dict:
    out = _columns(view.draft)
    cart = None
    if view.cart is not None:
        cart = cart_json(view.cart)
        cart["customer"] = dump(view.customer)
    out["cart"] = cart
    out["order"] = _order(view.order)
    return out


def draft_orders_json(
    drafts: list[DraftOrder], orders: dict[str, Order], relations: tuple[str, ...],
    fields: frozenset[str] | None = None,
) -> list[dict]:
    """A page of drafts, loaded with the cart relations of `relations` (services.draft_orders.drafts)."""
    tree = relation_tree(relations)
    out = []
    for draft in drafts:
        data = _columns(draft, fields)
        if "cart" in tree:
            data["cart"] = dump(draft.cart, tree["cart"])
        if "order" in tree:
            data["order"] = _order(orders.get(draft.order_id) if draft.order_id else None)
        out.append(data)
    return out


def _columns(draft: DraftOrder, fields: frozenset[str] | None = None) -> dict:
    values = draft.__dict__
    return {c: values.get(c) for c in DRAFT_COLUMNS if fields is None or c in fields}


def _order(order: Order | None) -> dict | None:
    if order is None:
        return None
    values = order.__dict__
    return {**{c: values.get(c) for c in ORDER_COLUMNS}, "object": "order"}

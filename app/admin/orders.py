"""Admin orders, the reading side: `GET /admin/orders` and `GET /admin/orders/:id` (reference
extra §6.1, §6.2).

Totals: Medusa v1's list shows no top-level totals unless `fields` names none of them, and only
the named ones when it names some (QUIRK). A dashboard's order list shows each order's total and
what was paid and refunded, so every order here, listed or not, carries all twelve totals
whatever `fields` says: they come from rows read for the whole page at once, at no cost per order.
Every column is shown (Medusa's admin drops `object`, the address ids, `external_id` and
`idempotency_key`; the Order resource lists them).
"""

from __future__ import annotations

from sanic import Blueprint, Request

from app.shapes.orders import order_json
from app.shapes.order_query import admin_list_query, admin_one_query, order_filter
from app.web.responses import json
from services.orders.listing import list_orders
from services.orders.view import ADMIN_NOT_FOUND, load_order_view

__all__ = ["bp"]

bp = Blueprint("admin_orders", url_prefix="/orders")


@bp.get("")
async def list_(request: Request):
    q = admin_list_query(request.query_string)
    views, count = await list_orders(order_filter(q.filters), q.find())
    return json({
        "orders": [order_json(v, q.relations, q.fields) for v in views],
        "count": count, "offset": q.offset, "limit": q.limit,
    })


@bp.get("/<order_id:str>")
async def get(request: Request, order_id: str):
    q, returnable = admin_one_query(request.query_string)
    view = await load_order_view(order_id, message=ADMIN_NOT_FOUND)
    return json({"order": order_json(view, q.relations, q.fields, returnable_items=returnable)})

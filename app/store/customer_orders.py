"""The signed-in customer's orders: `GET /store/customers/me/orders`.

The customer filter is forced to the session's customer, so no filter (not even an order's id)
reaches another customer's orders. Every answer carries its totals.
"""

from __future__ import annotations

from sanic import Blueprint, Request

from app.web.auth import require_customer
from app.shapes.orders import STORE_COLUMNS, order_json
from app.shapes.order_query import CUSTOMER_LIST, order_filter
from app.web.query import parse_query
from app.web.responses import json
from services.orders.listing import list_orders

__all__ = ["bp"]

bp = Blueprint("store_customer_orders", url_prefix="/customers/me/orders")


@bp.get("")
async def list_(request: Request):
    customer_id = await require_customer(request)
    q = parse_query(request.query_string, CUSTOMER_LIST)
    views, count = await list_orders(order_filter(q.filters, customer_id=customer_id), q.find())
    return json({
        "orders": [order_json(v, q.relations, q.fields, STORE_COLUMNS) for v in views],
        "count": count, "offset": q.offset, "limit": q.limit,
    })

"""Store orders: `/store/orders` look-up, get by id and get by cart.

No sign-in is asked: an order's id is its secret, and the look-up needs both the number and the
email (and the shipping postal code when the shopper gives one, which Medusa v1 ignores). Its
404 is JSON `{"type": "not_found", "message": "Not Found"}` where Medusa answers plain text.
"""

from __future__ import annotations

from sanic import Blueprint, Request

from app.shapes.orders import STORE_COLUMNS, order_json
from app.shapes.order_query import STORE_LOOKUP, STORE_ONE, only_keys
from app.web.query import ParsedQuery
from app.web.rate_limits import order_lookup_guard
from app.web.responses import json
from services.orders.listing import lookup_order
from services.orders.view import OrderView, load_order_view, load_order_view_by_cart

__all__ = ["bp"]

bp = Blueprint("store_orders", url_prefix="/orders")


def _answer(view: OrderView, q: ParsedQuery):
    return json({"order": order_json(view, q.relations, q.fields, STORE_COLUMNS)})


@bp.get("")
async def lookup(request: Request):
    q = only_keys(request.query_string, STORE_LOOKUP, ("expand", "fields", "display_id", "email", "shipping_address"))
    f = q.filters
    postal_code = f.shipping_address.postal_code if f.shipping_address else None
    # Misses count per email and per address: guessing display ids ends in a 429.
    async with order_lookup_guard(request, f.email):
        view = await lookup_order(f.display_id, f.email, postal_code)
    return _answer(view, q)


@bp.get("/<order_id:str>")
async def get(request: Request, order_id: str):
    q = only_keys(request.query_string, STORE_ONE)
    return _answer(await load_order_view(order_id), q)


@bp.get("/cart/<cart_id:str>")
async def get_by_cart(request: Request, cart_id: str):
    q = only_keys(request.query_string, STORE_ONE)
    return _answer(await load_order_view_by_cart(cart_id), q)

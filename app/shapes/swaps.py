"""A swap as `/admin/swaps/{id}`, the store's swap routes and a swap cart's completion answer it:
its columns with its new lines, parcels, return, payment, address
and shipping methods (as under an order's `swaps`), its order's columns, and its cart with the
cart's totals."""

from __future__ import annotations

from app.shapes.carts import cart_json
from app.shapes.orders import ORDER_COLUMNS, swap_json
from models import Swap
from services.carts.view import load_cart_view
from services.swaps.statuses import find_swap
from services.swaps.view import load_swap_parts

__all__ = ["swap_answer", "swap_page"]

_BELOW = {"additional_items": {"variant": {}}}


async def swap_answer(swap_id: str) -> dict:
    return (await swap_page([await find_swap(swap_id)], with_cart=True))[0]


async def swap_page(swaps: list[Swap], *, with_cart: bool = False) -> list[dict]:
    out = []
    for parts in await load_swap_parts(swaps, with_order=True):
        data = swap_json(parts, _BELOW)
        order = parts.order
        data["order"] = {c: order.__dict__.get(c) for c in ORDER_COLUMNS} if order is not None else None
        if with_cart:
            data["cart"] = cart_json(await load_cart_view(parts.swap.cart_id)) if parts.swap.cart_id else None
        out.append(data)
    return out

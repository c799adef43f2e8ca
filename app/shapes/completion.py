"""What a cart completion answers, in the API's shapes: the placed order, the cart when the
shopper still has something to do, or the refusal the key stores. Used by the route and by the
retry worker alike, so a key finished by either replays the same body."""

from __future__ import annotations

from app.shapes.carts import cart_json
from app.shapes.orders import PLACED_RELATIONS, order_json, placed_order_json
from app.shapes.swaps import swap_answer
from app.web.errors import stored_answer
from services.carts.view import load_cart_view
from services.core.errors import DomainError
from services.orders.view import OrderView

__all__ = ["ApiAnswers"]


class ApiAnswers:
    async def order(self, order_id: str) -> dict:
        return await placed_order_json(order_id)

    async def cart(self, cart_id: str) -> dict:
        return cart_json(await load_cart_view(cart_id))

    async def swap(self, swap_id: str) -> dict:
        return await swap_answer(swap_id)

    async def placed_order(self, view: OrderView) -> dict:
        return order_json(view, PLACED_RELATIONS)

    def refused(self, error: DomainError) -> tuple[int, dict]:
        return stored_answer(error)

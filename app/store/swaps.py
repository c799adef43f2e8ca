"""Store swaps (Medusa's `StorePostSwapsReq`): `POST /store/swaps`, a shopper
exchanging items of their order under an `Idempotency-Key` (a double submit makes one swap), and
`GET /store/swaps/{cart_id}`, the swap of a swap cart.

Who may: as for store returns (services/returns/shoppers.py), an order of a customer with an
account only by that customer signed in, a guest's order by its id; Medusa v1 lets anyone who
knows an order's id make a swap on it.
"""

from __future__ import annotations

from typing import Annotated

from sanic import Blueprint, Request

from app.shapes.swaps import swap_answer
from app.web.auth import customer_id
from app.web.keyed import keyed_json
from app.web.responses import json
from app.web.validation import Body, NonEmptyStr, parse_body, max_lines
from app.web.rma import NewItem, ReturnedItem
from services.returns.shoppers import check_shopper_may_return
from services.swaps.creation import create_shopper_swap
from services.swaps.view import swap_of_cart

__all__ = ["bp"]

bp = Blueprint("store_swaps", url_prefix="/swaps")


class NewSwap(Body):
    order_id: NonEmptyStr
    return_items: Annotated[list[ReturnedItem], max_lines("return")]
    return_shipping_option: str | None = None
    additional_items: Annotated[list[NewItem], max_lines("swap")]


@bp.post("")
async def create(request: Request):
    body = parse_body(request, NewSwap)
    await check_shopper_may_return(body.order_id, await customer_id(request))
    key = request.headers.get("idempotency-key")

    async def run() -> dict:
        swap = await create_shopper_swap(
            body.order_id, [i.model_dump() for i in body.return_items], [i.model_dump() for i in body.additional_items],
            body.return_shipping_option, idempotency_key=key,
        )
        return {"swap": await swap_answer(swap.id)}

    return await keyed_json(request, "/store/swaps", {"order_id": body.order_id}, run)


@bp.get("/<cart_id:str>")
async def by_cart(request: Request, cart_id: str):
    return json({"swap": await swap_answer((await swap_of_cart(cart_id)).id)})

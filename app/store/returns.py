"""Store returns: `POST /store/returns` (a shopper asks to send items back; Medusa's
`StorePostReturnsReq`), by the rules of the admin's returns (services/returns), under an
`Idempotency-Key` as in Medusa, so a double submit asks once."""

from __future__ import annotations

from typing import Annotated

from sanic import Blueprint, Request

from app.shapes.orders import return_json
from app.web.auth import customer_id
from app.web.keyed import keyed_json
from app.web.validation import Body, NonEmptyStr, parse_body, max_lines
from app.web.rma import ReturnedItem
from services.returns.listing import load_returns
from services.returns.requests import request_return
from services.returns.shoppers import check_shopper_may_return

__all__ = ["bp"]

bp = Blueprint("store_returns", url_prefix="/returns")


class ReturnShipping(Body):
    option_id: NonEmptyStr


class NewReturn(Body):
    order_id: NonEmptyStr
    items: Annotated[list[ReturnedItem], max_lines("return")]
    return_shipping: ReturnShipping | None = None


@bp.post("")
async def create(request: Request):
    body = parse_body(request, NewReturn)
    await check_shopper_may_return(body.order_id, await customer_id(request))
    key = request.headers.get("idempotency-key")

    async def run() -> dict:
        ret = await request_return(
            body.order_id, [i.model_dump() for i in body.items],
            return_shipping=body.return_shipping.model_dump() if body.return_shipping else None, idempotency_key=key,
        )
        after, _ = await load_returns([ret])
        return {"return": return_json(after, ret)}

    return await keyed_json(request, "/store/returns", {}, run)

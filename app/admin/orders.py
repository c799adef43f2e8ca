"""Admin orders, the reading side: `GET /admin/orders` and `GET /admin/orders/:id`.

Totals: Medusa v1's list shows no top-level totals unless `fields` names none of them, and only
the named ones when it names some (QUIRK). A dashboard's order list shows each order's total and
what was paid and refunded, so every order here, listed or not, carries all twelve totals
whatever `fields` says: they come from rows read for the whole page at once, at no cost per order.
Every column is shown (Medusa's admin drops `object`, the address ids, `external_id` and
`idempotency_key`; the Order resource lists them).

The operations answer the order as the get does, with the same
`expand`/`fields`. Capture, refund, fulfillment, shipment and return take an
`Idempotency-Key` (services/orders/keyed.py).
"""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request

from app.admin.order_answers import keyed_order, moved_order, order_answer
from app.shapes.orders import order_json, with_claims_and_swaps
from app.shapes.order_query import ADMIN_ONE, admin_list_query, admin_one_query, only_keys, order_filter
from app.web.responses import json
from app.web.validation import (
    MAX_FEW, AddressFields, Amount, Body, Email, NonEmptyStr, SignedAmount, max_items, max_lines, parse_body,
)
from app.web.rma import ReturnShipping, ReturnedItem
from services.orders.cancellation import cancel_order
from services.orders.capture import capture_order
from services.orders.fulfilments import cancel_fulfillment, fulfil_order
from services.orders.lifecycle import archive_order, complete_order
from services.orders.refunds import refund_order
from services.orders.shipments import ship_fulfillment
from services.orders.shipping_methods import add_shipping_method
from services.orders.listing import list_orders
from services.orders.updates import update_order
from services.orders.view import ADMIN_NOT_FOUND, load_order_view
from services.returns.receiving import receive_return
from services.returns.requests import request_return

__all__ = ["bp"]

bp = Blueprint("admin_orders", url_prefix="/orders")


@bp.get("")
async def list_(request: Request):
    q = admin_list_query(request.query_string)
    views, count = await list_orders(order_filter(q.filters), q.find())
    return json({
        "orders": [order_json(v, q.relations, q.fields) for v in await with_claims_and_swaps(views)],
        "count": count, "offset": q.offset, "limit": q.limit,
    })


@bp.get("/<order_id:str>")
async def get(request: Request, order_id: str):
    q, returnable = admin_one_query(request.query_string)
    [view] = await with_claims_and_swaps([await load_order_view(order_id, message=ADMIN_NOT_FOUND)])
    return json({"order": order_json(view, q.relations, q.fields, returnable_items=returnable)})


class UpdateOrder(Body):
    email: Email = None  # type: ignore[assignment]  # absent: kept; null: refused
    billing_address: AddressFields | None = None
    shipping_address: AddressFields | None = None
    metadata: dict[str, Any] | None = None
    no_notification: bool = None  # type: ignore[assignment]


@bp.post("/<order_id:str>")
async def update(request: Request, order_id: str):
    body = parse_body(request, UpdateOrder)
    only_keys(request.query_string, ADMIN_ONE)  # a bad query is refused before anything changes
    await update_order(order_id, body.model_dump(exclude_unset=True))
    return json(await order_answer(request, order_id))


@bp.post("/<order_id:str>/capture")
async def capture(request: Request, order_id: str):
    return await keyed_order(request, order_id, "capture", lambda key: capture_order(order_id))


class NewRefund(Body):
    amount: SignedAmount  # below one is refused by the service with Medusa's words
    reason: str
    note: str | None = None
    no_notification: bool | None = None


@bp.post("/<order_id:str>/refund")
async def refund(request: Request, order_id: str):
    body = parse_body(request, NewRefund)
    return await keyed_order(request, order_id, "refund", lambda key: refund_order(
        order_id, body.amount, body.reason, body.note, no_notification=body.no_notification, idempotency_key=key,
    ))


class FulfilledItem(Body):
    item_id: NonEmptyStr
    quantity: int


class NewFulfillment(Body):
    items: Annotated[list[FulfilledItem], max_lines("fulfillment")]
    no_notification: bool | None = None
    location_id: str | None = None
    metadata: dict[str, Any] | None = None


@bp.post("/<order_id:str>/fulfillment")
async def fulfil(request: Request, order_id: str):
    body = parse_body(request, NewFulfillment)
    return await keyed_order(request, order_id, "fulfillment", lambda key: fulfil_order(
        order_id, [i.model_dump() for i in body.items], no_notification=body.no_notification,
        location_id=body.location_id, metadata=body.metadata,
    ))


@bp.post("/<order_id:str>/fulfillments/<fulfillment_id:str>/cancel")
async def cancel_fulfilment(request: Request, order_id: str, fulfillment_id: str):
    return await moved_order(request, order_id, lambda o: cancel_fulfillment(o, fulfillment_id))


class NewShipment(Body):
    fulfillment_id: NonEmptyStr
    tracking_numbers: Annotated[list[str], max_items(MAX_FEW)] | None = None
    no_notification: bool | None = None


@bp.post("/<order_id:str>/shipment")
async def ship(request: Request, order_id: str):
    body = parse_body(request, NewShipment)
    return await keyed_order(request, order_id, "shipment", lambda key: ship_fulfillment(
        order_id, body.fulfillment_id, body.tracking_numbers, no_notification=body.no_notification,
    ))


class NewReturn(Body):
    items: Annotated[list[ReturnedItem], max_lines("return")]
    return_shipping: ReturnShipping | None = None
    note: str | None = None
    receive_now: bool = False
    no_notification: bool | None = None
    refund: SignedAmount | None = None
    location_id: str | None = None


@bp.post("/<order_id:str>/return")
async def request_a_return(request: Request, order_id: str):
    body = parse_body(request, NewReturn)
    items = [i.model_dump() for i in body.items]

    async def run(key: str | None) -> None:
        ret = await request_return(
            order_id, items, return_shipping=body.return_shipping.model_dump() if body.return_shipping else None,
            refund=body.refund, no_notification=body.no_notification, location_id=body.location_id,
            idempotency_key=key,
        )
        if body.receive_now:
            await receive_return(ret.id, items, refund=body.refund, location_id=body.location_id)

    return await keyed_order(request, order_id, "return", run)


class NewShippingMethod(Body):
    price: Amount
    option_id: NonEmptyStr
    data: dict[str, Any] | None = None


@bp.post("/<order_id:str>/shipping-methods")
async def add_method(request: Request, order_id: str):
    body = parse_body(request, NewShippingMethod)
    return await moved_order(request, order_id, lambda o: add_shipping_method(o, body.option_id, body.price, body.data))


@bp.post("/<order_id:str>/cancel")
async def cancel(request: Request, order_id: str):
    return await moved_order(request, order_id, cancel_order)


@bp.post("/<order_id:str>/archive")
async def archive(request: Request, order_id: str):
    return await moved_order(request, order_id, archive_order)


@bp.post("/<order_id:str>/complete")
async def complete(request: Request, order_id: str):
    return await moved_order(request, order_id, complete_order)

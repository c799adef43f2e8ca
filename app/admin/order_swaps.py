"""Admin swaps on an order: `/admin/orders/{id}/swaps` and what
follows (cancel, fulfil, ship, cancel a swap fulfillment, process the payment). Each answers the
order; making, fulfilling, shipping and processing the payment take an `Idempotency-Key`."""

from __future__ import annotations

from typing import Annotated

from sanic import Blueprint, Request

from app.admin.order_answers import keyed_order, moved_order
from app.web.validation import Amount, Body, NonEmptyStr, parse_body, max_items, max_lines, MAX_FEW
from app.web.rma import NewItem, NewItemsFulfillment, ReturnShipping, ReturnedItem
from services.swaps.creation import create_swap
from services.swaps.operations import cancel_swap, cancel_swap_fulfillment, fulfil_swap, ship_swap
from services.swaps.payment import process_swap_payment

__all__ = ["bp"]

bp = Blueprint("admin_order_swaps", url_prefix="/orders/<order_id:str>/swaps")


class CustomShipping(Body):
    option_id: NonEmptyStr
    price: Amount


class NewSwap(Body):
    return_items: Annotated[list[ReturnedItem], max_lines("return")]
    return_shipping: ReturnShipping | None = None
    additional_items: Annotated[list[NewItem], max_lines("swap")] | None = None
    custom_shipping_options: Annotated[list[CustomShipping], max_items(MAX_FEW)] = []
    sales_channel_id: str | None = None
    no_notification: bool | None = None
    return_location_id: str | None = None
    allow_backorder: bool = True


@bp.post("")
async def create(request: Request, order_id: str):
    body = parse_body(request, NewSwap).model_dump()
    return await keyed_order(request, order_id, "swaps", lambda key: create_swap(order_id, body, idempotency_key=key))


@bp.post("/<swap_id:str>/cancel")
async def cancel(request: Request, order_id: str, swap_id: str):
    return await moved_order(request, order_id, lambda o: cancel_swap(o, swap_id))


@bp.post("/<swap_id:str>/fulfillments")
async def fulfil(request: Request, order_id: str, swap_id: str):
    body = parse_body(request, NewItemsFulfillment) if request.body else NewItemsFulfillment()
    return await keyed_order(request, order_id, f"swaps/{swap_id}/fulfillments", lambda key: fulfil_swap(
        order_id, swap_id, no_notification=body.no_notification, location_id=body.location_id, metadata=body.metadata,
    ))


@bp.post("/<swap_id:str>/fulfillments/<fulfillment_id:str>/cancel")
async def cancel_fulfillment(request: Request, order_id: str, swap_id: str, fulfillment_id: str):
    return await moved_order(request, order_id, lambda o: cancel_swap_fulfillment(o, swap_id, fulfillment_id))


class SwapShipment(Body):
    fulfillment_id: NonEmptyStr
    tracking_numbers: Annotated[list[str], max_items(MAX_FEW)] | None = None
    no_notification: bool | None = None


@bp.post("/<swap_id:str>/shipments")
async def ship(request: Request, order_id: str, swap_id: str):
    body = parse_body(request, SwapShipment)
    return await keyed_order(request, order_id, f"swaps/{swap_id}/shipments", lambda key: ship_swap(
        order_id, swap_id, body.fulfillment_id, body.tracking_numbers, body.no_notification,
    ))


@bp.post("/<swap_id:str>/process-payment")
async def process_payment(request: Request, order_id: str, swap_id: str):
    return await keyed_order(request, order_id, f"swaps/{swap_id}/process-payment",
                             lambda key: process_swap_payment(order_id, swap_id))

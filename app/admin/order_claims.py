"""Admin claims on an order: `/admin/orders/{id}/claims` and what follows
(update, cancel, fulfil, ship, cancel a claim fulfillment). Each answers the order; making, fulfilling
and shipping a claim take an `Idempotency-Key`."""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request

from app.admin.order_answers import keyed_order, moved_order
from app.web.validation import AddressFields, Amount, Body, NonEmptyStr, parse_body, max_items, max_lines, MAX_FEW
from app.web.rma import NewItem, NewItemsFulfillment
from services.claims.creation import create_claim
from services.claims.operations import cancel_claim, cancel_claim_fulfillment, fulfil_claim, ship_claim
from services.claims.updates import update_claim

__all__ = ["bp"]

bp = Blueprint("admin_order_claims", url_prefix="/orders/<order_id:str>/claims")


class ClaimedItem(Body):
    item_id: NonEmptyStr
    quantity: int
    reason: str | None = None
    note: str | None = None
    tags: Annotated[list[str], max_items(MAX_FEW)] | None = None
    images: Annotated[list[str], max_items(MAX_FEW)] | None = None
    metadata: dict[str, Any] | None = None


class ReturnShipping(Body):
    option_id: str | None = None
    price: Amount | None = None


class ClaimShipping(Body):
    id: str | None = None
    option_id: str | None = None
    price: Amount | None = None
    data: dict[str, Any] | None = None


class NewClaim(Body):
    type: str
    claim_items: Annotated[list[ClaimedItem], max_lines("claim")]
    return_shipping: ReturnShipping | None = None
    additional_items: Annotated[list[NewItem], max_lines("claim")] | None = None
    shipping_methods: Annotated[list[ClaimShipping], max_items(MAX_FEW)] | None = None
    refund_amount: Amount | None = None
    shipping_address: AddressFields | None = None
    no_notification: bool | None = None
    return_location_id: str | None = None
    metadata: dict[str, Any] | None = None


@bp.post("")
async def create(request: Request, order_id: str):
    body = parse_body(request, NewClaim).model_dump(exclude_unset=True)
    return await keyed_order(request, order_id, "claims", lambda key: create_claim(order_id, body, idempotency_key=key))


class ClaimImageRef(Body):
    id: str | None = None
    url: str | None = None


class ClaimTagRef(Body):
    id: str | None = None
    value: str | None = None


class ClaimedItemChange(Body):
    id: NonEmptyStr
    note: str | None = None
    reason: str | None = None
    images: Annotated[list[ClaimImageRef], max_items(MAX_FEW)] = []
    tags: Annotated[list[ClaimTagRef], max_items(MAX_FEW)] = []
    metadata: dict[str, Any] | None = None


class ClaimChange(Body):
    claim_items: Annotated[list[ClaimedItemChange], max_lines("claim")] | None = None
    shipping_methods: Annotated[list[ClaimShipping], max_items(MAX_FEW)] | None = None
    no_notification: bool | None = None
    metadata: dict[str, Any] | None = None


@bp.post("/<claim_id:str>")
async def update(request: Request, order_id: str, claim_id: str):
    body = parse_body(request, ClaimChange).model_dump(exclude_unset=True)
    return await moved_order(request, order_id, lambda o: update_claim(o, claim_id, body))


@bp.post("/<claim_id:str>/cancel")
async def cancel(request: Request, order_id: str, claim_id: str):
    return await moved_order(request, order_id, lambda o: cancel_claim(o, claim_id))


@bp.post("/<claim_id:str>/fulfillments")
async def fulfil(request: Request, order_id: str, claim_id: str):
    body = parse_body(request, NewItemsFulfillment) if request.body else NewItemsFulfillment()
    return await keyed_order(request, order_id, f"claims/{claim_id}/fulfillments", lambda key: fulfil_claim(
        order_id, claim_id, no_notification=body.no_notification, location_id=body.location_id, metadata=body.metadata,
    ))


@bp.post("/<claim_id:str>/fulfillments/<fulfillment_id:str>/cancel")
async def cancel_fulfillment(request: Request, order_id: str, claim_id: str, fulfillment_id: str):
    return await moved_order(request, order_id, lambda o: cancel_claim_fulfillment(o, claim_id, fulfillment_id))


class ClaimShipment(Body):
    fulfillment_id: NonEmptyStr
    tracking_numbers: Annotated[list[str], max_items(MAX_FEW)] | None = None


@bp.post("/<claim_id:str>/shipments")
async def ship(request: Request, order_id: str, claim_id: str):
    body = parse_body(request, ClaimShipment)
    return await keyed_order(request, order_id, f"claims/{claim_id}/shipments", lambda key: ship_claim(
        order_id, claim_id, body.fulfillment_id, body.tracking_numbers,
    ))

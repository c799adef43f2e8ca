"""Admin reservations: `/admin/reservations`, registered only with INVENTORY_LOCATIONS on.
A reservation holds units at a location: creating, moving or growing one is refused (400) when
the location has fewer available, as a level never goes below nothing available here."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sanic import Blueprint, Request

from app.shapes.inventory import dump_reservations
from app.web.auth import require_admin
from app.web.query import DateComparison, Filters, QuerySpec, StrList, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS
from app.web.validation import Body, NonEmptyStr, parse_body
from models import ReservationItem
from services.inventory.reservations import (
    delete_reservation, get_reservation, joined, list_reservations, reserve, update_reservation,
)

__all__ = ["bp"]

bp = Blueprint("admin_reservations", url_prefix="/reservations")

Quantity = Annotated[int, Field(gt=0, le=2**31 - 1)]


class QuantityFilter(Filters):
    lt: int | None = None
    gt: int | None = None
    lte: int | None = None
    gte: int | None = None


class TextFilter(Filters):
    contains: str | None = None
    starts_with: str | None = None
    ends_with: str | None = None
    equals: str | None = None


class ListFilters(Filters):
    location_id: StrList | None = None
    inventory_item_id: StrList | None = None
    line_item_id: StrList | None = None
    created_by: StrList | None = None
    quantity: QuantityFilter | None = None
    description: str | TextFilter | None = None  # a plain text: a part of it, any case
    created_at: DateComparison | None = None


LIST = QuerySpec(columns=COLUMNS[ReservationItem], allowed_relations=("line_item", "line_item.order", "inventory_item"),
                 filters=ListFilters, default_limit=20)


class CreateReservation(Body):
    location_id: NonEmptyStr
    inventory_item_id: NonEmptyStr
    quantity: Quantity
    line_item_id: NonEmptyStr | None = None
    description: str | None = None
    metadata: dict[str, Any] | None = None


class UpdateReservation(Body):
    location_id: NonEmptyStr | None = None
    quantity: Quantity | None = None
    description: str | None = None
    metadata: dict[str, Any] | None = None


def _one(reservation: ReservationItem) -> dict:
    return {"reservation": dump_reservations([reservation])[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    f = q.filters
    description = {"contains": f.description} if isinstance(f.description, str) else (
        f.description.model_dump(exclude_none=True) if f.description else None)
    reservations, count = await list_reservations(
        q.find(), location_id=f.location_id, inventory_item_id=f.inventory_item_id, line_item_id=f.line_item_id,
        created_by=f.created_by, quantity=f.quantity.model_dump() if f.quantity else None, description=description,
        created_at=f.created_at.model_dump() if f.created_at else None,
    )
    extra = await joined(reservations, q.relations)
    return json({"reservations": dump_reservations(reservations, q.fields, extra), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateReservation)
    user = await require_admin(request)
    return json(_one(await reserve(**body.model_dump(), created_by=user.id, check_line=True)))


@bp.get("/<reservation_id:str>")
async def get(request: Request, reservation_id: str):
    return json(_one(await get_reservation(reservation_id)))


@bp.post("/<reservation_id:str>")
async def update(request: Request, reservation_id: str):
    body = parse_body(request, UpdateReservation)
    return json(_one(await update_reservation(reservation_id, **body.model_dump(exclude_unset=True))))


@bp.delete("/<reservation_id:str>")
async def delete(request: Request, reservation_id: str):
    await delete_reservation(reservation_id)
    return deleted(reservation_id, "reservation")

"""Admin stock locations: `/admin/stock-locations` and the sales channels' locations
(`POST|DELETE /admin/sales-channels/{id}/stock-locations`), registered only with
INVENTORY_LOCATIONS on (off: 404, as Medusa without its stock-location module). Shapes as
`admin.oas.json`; deleting a location where units are reserved is a 400 naming them."""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request

from app.shapes.inventory import dump_locations
from app.web.query import DateComparison, Filters, QuerySpec, StrList, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump
from app.web.validation import Body, NonEmptyStr, max_length, parse_body
from models import StockLocation
from services.inventory.locations import (
    AddressInput, add_channel_location, create_location, delete_location, get_location, list_locations,
    load_relations, remove_channel_location, update_location,
)

__all__ = ["bp"]

bp = Blueprint("admin_stock_locations")

RELATIONS = ("address", "sales_channels")
Text = Annotated[str, max_length(10_000)]


class ListFilters(Filters):
    q: str | None = None
    id: StrList | None = None
    name: StrList | None = None
    sales_channel_id: StrList | None = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    deleted_at: DateComparison | None = None


LIST = QuerySpec(columns=COLUMNS[StockLocation], allowed_relations=RELATIONS, filters=ListFilters,
                 allowed_order=("id", "name", "created_at", "updated_at"), default_limit=20)
ONE = LIST.one(filters=None)


class Address(Body):
    address_1: NonEmptyStr
    country_code: Annotated[NonEmptyStr, max_length(2)]
    address_2: Text | None = None
    company: Text | None = None
    city: Text | None = None
    phone: Text | None = None
    province: Text | None = None
    postal_code: Text | None = None
    metadata: dict[str, Any] | None = None

    def input(self) -> AddressInput:
        return AddressInput(**{**self.model_dump(), "country_code": self.country_code.lower()})


class CreateLocation(Body):
    name: Annotated[NonEmptyStr, max_length(10_000)]
    address_id: NonEmptyStr | None = None
    address: Address | None = None
    metadata: dict[str, Any] | None = None


class UpdateLocation(Body):
    name: Annotated[NonEmptyStr, max_length(10_000)] = None  # type: ignore[assignment]
    address_id: NonEmptyStr | None = None
    address: Address | None = None
    metadata: dict[str, Any] | None = None


class ChannelLocation(Body):
    location_id: NonEmptyStr


async def _one(request: Request, location: StockLocation) -> dict:
    q = parse_query(request.query_string, ONE)
    await load_relations([location], q.relations)
    return {"stock_location": dump_locations([location], q.relations, q.fields)[0]}


@bp.get("/stock-locations")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    locations, count = await list_locations(q.find(), **q.filters.plain(), **q.filters.comparisons())
    await load_relations(locations, q.relations)
    return json({"stock_locations": dump_locations(locations, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("/stock-locations")
async def create(request: Request):
    body = parse_body(request, CreateLocation)
    location = await create_location(name=body.name, address_id=body.address_id,
                                     address=body.address.input() if body.address else None, metadata=body.metadata)
    return json(await _one(request, location))


@bp.get("/stock-locations/<location_id:str>")
async def get(request: Request, location_id: str):
    return json(await _one(request, await get_location(location_id)))


@bp.post("/stock-locations/<location_id:str>")
async def update(request: Request, location_id: str):
    body = parse_body(request, UpdateLocation)
    location = await update_location(location_id, name=body.name, address_id=body.address_id,
                                     address=body.address.input() if body.address else None, metadata=body.metadata)
    return json(await _one(request, location))


@bp.delete("/stock-locations/<location_id:str>")
async def delete(request: Request, location_id: str):
    await delete_location(location_id)
    return deleted(location_id, "stock_location")


@bp.post("/sales-channels/<channel_id:str>/stock-locations")
async def add_to_channel(request: Request, channel_id: str):
    body = parse_body(request, ChannelLocation)
    return json({"sales_channel": dump(await add_channel_location(channel_id, body.location_id))})


@bp.delete("/sales-channels/<channel_id:str>/stock-locations")
async def remove_from_channel(request: Request, channel_id: str):
    body = parse_body(request, ChannelLocation)
    await remove_channel_location(channel_id, body.location_id)
    return deleted(channel_id, "stock-location")

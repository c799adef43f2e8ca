"""Admin inventory items: `/admin/inventory-items` with their location levels, and
`GET /admin/variants/{id}/inventory`; registered only with INVENTORY_LOCATIONS on (off: 404, as
Medusa without its inventory module). Shapes as `admin.oas.json`: lists and single reads show
each item's levels (with available units) and stock sums; writes answer the item alone."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sanic import Blueprint, Request

from app.shapes.inventory import dump_item, dump_items_with_levels, dump_level
from app.web.query import BoolStr, Filters, QuerySpec, StrList, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS
from app.web.validation import Body, NonEmptyStr, parse_body
from models import InventoryItem
from services.inventory.items import ItemFields, create_item, delete_item, get_item, list_items, update_item
from services.inventory.levels import create_level, delete_level, list_levels, set_level
from services.inventory.locations import get_location
from services.inventory.variant_stock import variant_inventory

__all__ = ["bp"]

bp = Blueprint("admin_inventory_items")

Units = Annotated[int, Field(ge=0, le=2**31 - 1)]
Size = Annotated[int, Field(ge=0, le=2**31 - 1)]


class ListFilters(Filters):
    q: str | None = None
    id: StrList | None = None
    location_id: StrList | None = None
    sku: StrList | None = None
    origin_country: StrList | None = None
    mid_code: StrList | None = None
    material: StrList | None = None
    hs_code: StrList | None = None
    weight: int | None = None
    length: int | None = None
    height: int | None = None
    width: int | None = None
    requires_shipping: BoolStr = None


# Every read shows the levels, and a list the variants with their product: naming them is allowed.
LIST = QuerySpec(columns=COLUMNS[InventoryItem], filters=ListFilters, default_limit=20,
                 allowed_order=("id", "sku", "title", "created_at", "updated_at"),
                 allowed_relations=("location_levels", "variants", "variants.product"))
ONE = LIST.one(filters=None)


class LevelFilters(Filters):
    location_id: StrList | None = None


LEVELS = QuerySpec(columns=(), filters=LevelFilters, selectable=False, is_list=False)


class ItemBody(Body):
    sku: str | None = None
    hs_code: str | None = None
    origin_country: str | None = None
    mid_code: str | None = None
    material: str | None = None
    weight: Size | None = None
    length: Size | None = None
    height: Size | None = None
    width: Size | None = None
    title: str | None = None
    description: str | None = None
    thumbnail: str | None = None
    requires_shipping: bool | None = None
    metadata: dict[str, Any] | None = None

    def item_fields(self) -> ItemFields:
        return ItemFields(**{k: getattr(self, k) for k in ItemFields.__dataclass_fields__})


class CreateItem(ItemBody):
    variant_id: NonEmptyStr
    # The variant's own fields, which Medusa's body accepts too: the variant keeps them.
    ean: str | None = None
    upc: str | None = None
    barcode: str | None = None
    inventory_quantity: int | None = None
    allow_backorder: bool | None = None
    manage_inventory: bool | None = None


class CreateLevel(Body):
    location_id: NonEmptyStr
    stocked_quantity: Units
    incoming_quantity: Units | None = None


class UpdateLevel(Body):
    stocked_quantity: Units | None = None
    incoming_quantity: Units | None = None


def _item(item: InventoryItem) -> dict:
    return {"inventory_item": dump_item(item)}


@bp.get("/inventory-items")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    f = q.filters
    exact = f.model_dump(exclude={"q", "id", "location_id"}, exclude_none=True)
    items, count = await list_items(q.find(), q=f.q, id=f.id, location_id=f.location_id, exact=exact)
    rows = await dump_items_with_levels(items, f.location_id, with_variants=True, fields=q.fields)
    return json({"inventory_items": rows, "count": count, "offset": q.offset, "limit": q.limit})


@bp.post("/inventory-items")
async def create(request: Request):
    body = parse_body(request, CreateItem)
    return json(_item(await create_item(body.variant_id, body.item_fields())))


@bp.get("/inventory-items/<item_id:str>")
async def get(request: Request, item_id: str):
    q = parse_query(request.query_string, ONE)
    rows = await dump_items_with_levels([await get_item(item_id)], fields=q.fields)
    return json({"inventory_item": rows[0]})


@bp.post("/inventory-items/<item_id:str>")
async def update(request: Request, item_id: str):
    body = parse_body(request, ItemBody)
    return json(_item(await update_item(item_id, body.item_fields())))


@bp.delete("/inventory-items/<item_id:str>")
async def delete(request: Request, item_id: str):
    await delete_item(item_id)
    return deleted(item_id, "inventory_item")


@bp.get("/inventory-items/<item_id:str>/location-levels")
async def levels_(request: Request, item_id: str):
    q = parse_query(request.query_string, LEVELS)
    item = await get_item(item_id)
    levels = await list_levels([item.id], q.filters.location_id)
    return json({"inventory_item": {"id": item.id, "location_levels": [dump_level(lv) for lv in levels]}})


@bp.post("/inventory-items/<item_id:str>/location-levels")
async def add_level(request: Request, item_id: str):
    body = parse_body(request, CreateLevel)
    item = await get_item(item_id)
    await get_location(body.location_id)
    await create_level(item.id, body.location_id, stocked_quantity=body.stocked_quantity,
                       incoming_quantity=body.incoming_quantity or 0)
    return json(_item(item))


@bp.post("/inventory-items/<item_id:str>/location-levels/<location_id:str>")
async def update_level(request: Request, item_id: str, location_id: str):
    body = parse_body(request, UpdateLevel)
    item = await get_item(item_id)
    await set_level(item.id, location_id, **body.model_dump(exclude_none=True))
    return json(_item(item))


@bp.delete("/inventory-items/<item_id:str>/location-levels/<location_id:str>")
async def remove_level(request: Request, item_id: str, location_id: str):
    item = await get_item(item_id)
    await delete_level(item.id, location_id)
    return json(_item(item))


@bp.get("/variants/<variant_id:str>/inventory")
async def variant_stock(request: Request, variant_id: str):
    items, availability = await variant_inventory(variant_id)
    return json({"variant": {"id": variant_id, "inventory": await dump_items_with_levels(items),
                             "sales_channel_availability": availability}})

"""Admin order edits: `/admin/order-edits`. Every answer is the edit with
Medusa's default relations and its totals (app/shapes/order_edits.py); the rules live in
services/order_edits/edits.py."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sanic import Blueprint, Request

from app.web.auth import require_admin
from app.shapes.order_edits import ADMIN_ALLOWED_RELATIONS, ADMIN_COLUMNS, EXTRA_FIELDS, RELATIONS, edit_json
from app.web.query import Filters, QuerySpec, parse_query
from app.web.responses import deleted, json
from app.web.validation import Body, NonEmptyStr, parse_body
from services.carts.items import MAX_QUANTITY
from services.order_edits.totals import EditView, list_edits, load_edit_view
from services.order_edits.edits import (
    add_item, cancel_edit, confirm_edit, create_edit, delete_change, delete_edit, remove_item, request_confirmation,
    update_edit, update_item,
)

__all__ = ["bp"]

bp = Blueprint("admin_order_edits", url_prefix="/order-edits")

Quantity = Annotated[int, Field(ge=1, le=MAX_QUANTITY)]


class ListFilters(Filters):
    q: str | None = None
    order_id: str | None = None


LIST = QuerySpec(
    columns=ADMIN_COLUMNS, default_relations=RELATIONS, allowed_relations=ADMIN_ALLOWED_RELATIONS,
    allowed_order=("created_at", "updated_at", "requested_at", "confirmed_at", "id"), extra_fields=EXTRA_FIELDS,
    filters=ListFilters, default_limit=20,
)
GET = LIST.one(filters=None)


class NewEdit(Body):
    order_id: NonEmptyStr
    internal_note: str | None = None
    created_by: str | None = None  # accepted and ignored, as Medusa does: the signed-in user made it


class EditChanges(Body):
    internal_note: str | None = None


class NewItem(Body):
    variant_id: NonEmptyStr
    quantity: Quantity
    metadata: dict[str, Any] | None = None


class ItemQuantity(Body):
    quantity: Quantity


class ConfirmationRequest(Body):
    payment_collection_description: str | None = None


def _answer(view: EditView):
    return json({"order_edit": edit_json(view)})


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    views, count = await list_edits(q.find(), q=q.filters.q, order_id=q.filters.order_id)
    return json({
        "order_edits": [edit_json(v, q.relations, q.fields) for v in views],
        "count": count, "limit": q.limit, "offset": q.offset,
    })


@bp.post("")
async def create(request: Request):
    body = parse_body(request, NewEdit)
    user = await require_admin(request)
    return _answer(await create_edit(body.order_id, user.id, body.internal_note))


@bp.get("/<edit_id:str>")
async def get(request: Request, edit_id: str):
    q = parse_query(request.query_string, GET)
    return json({"order_edit": edit_json(await load_edit_view(edit_id), q.relations, q.fields)})


@bp.post("/<edit_id:str>")
async def update(request: Request, edit_id: str):
    body = parse_body(request, EditChanges)
    return _answer(await update_edit(edit_id, body.internal_note))


@bp.delete("/<edit_id:str>")
async def delete(request: Request, edit_id: str):
    await delete_edit(edit_id)
    return deleted(edit_id, "order_edit")


@bp.post("/<edit_id:str>/items")
async def add(request: Request, edit_id: str):
    body = parse_body(request, NewItem)
    return _answer(await add_item(edit_id, body.variant_id, body.quantity, body.metadata))


@bp.post("/<edit_id:str>/items/<item_id:str>")
async def update_quantity(request: Request, edit_id: str, item_id: str):
    body = parse_body(request, ItemQuantity)
    return _answer(await update_item(edit_id, item_id, body.quantity))


@bp.delete("/<edit_id:str>/items/<item_id:str>")
async def remove(request: Request, edit_id: str, item_id: str):
    return _answer(await remove_item(edit_id, item_id))


@bp.delete("/<edit_id:str>/changes/<change_id:str>")
async def undo(request: Request, edit_id: str, change_id: str):
    await delete_change(edit_id, change_id)
    return deleted(change_id, "item_change")


@bp.post("/<edit_id:str>/request")
async def request_(request: Request, edit_id: str):
    body = parse_body(request, ConfirmationRequest)
    user = await require_admin(request)
    return _answer(await request_confirmation(edit_id, user.id, body.payment_collection_description))


@bp.post("/<edit_id:str>/cancel")
async def cancel(request: Request, edit_id: str):
    user = await require_admin(request)
    return _answer(await cancel_edit(edit_id, user.id))


@bp.post("/<edit_id:str>/confirm")
async def confirm(request: Request, edit_id: str):
    user = await require_admin(request)
    return _answer(await confirm_edit(edit_id, user.id))


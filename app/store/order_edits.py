"""Store order edits: `/store/order-edits/:id`, its completion and its decline. No sign-in: the
edit's id is its secret, as Medusa has it; a signed-in shopper is
recorded as the one who confirmed or declined."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.web.auth import customer_id
from app.shapes.order_edits import EXTRA_FIELDS, RELATIONS, STORE_COLUMNS, edit_json
from app.web.query import QuerySpec, parse_query
from app.web.responses import json
from app.web.validation import Body, parse_body
from services.order_edits.totals import EditView, load_edit_view
from services.order_edits.edits import complete_edit, decline_edit

__all__ = ["bp"]

bp = Blueprint("store_order_edits", url_prefix="/order-edits")

GET = QuerySpec(
    columns=STORE_COLUMNS, default_relations=RELATIONS, allowed_relations=RELATIONS, extra_fields=EXTRA_FIELDS,
    is_list=False,
)


class Decline(Body):
    declined_reason: str | None = None


def _answer(view: EditView):
    return json({"order_edit": edit_json(view, store=True)})


@bp.get("/<edit_id:str>")
async def get(request: Request, edit_id: str):
    q = parse_query(request.query_string, GET)
    return json({"order_edit": edit_json(await load_edit_view(edit_id), q.relations, q.fields, store=True)})


@bp.post("/<edit_id:str>/complete")
async def complete(request: Request, edit_id: str):
    return _answer(await complete_edit(edit_id, await customer_id(request)))


@bp.post("/<edit_id:str>/decline")
async def decline(request: Request, edit_id: str):
    body = parse_body(request, Decline)
    return _answer(await decline_edit(edit_id, await customer_id(request), body.declined_reason))

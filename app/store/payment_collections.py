"""Store payment collections: `/store/payment-collections/:id` and the session a shopper pays
it with (Medusa v1's routes, as far as an order edit's amount due needs them): read it, start a
session for one provider of the collection's region (`{payment_collection}`), authorize that
session (`{payment_session}`). No sign-in: the collection's id is its secret, as Medusa has it."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.shapes.order_edits import COLLECTION_COLUMNS, COLLECTION_RELATIONS, collection_json, session_json
from app.web.query import QuerySpec, parse_query
from app.web.responses import json
from app.web.validation import Body, NonEmptyStr, parse_body
from services.payments.collections import authorize_session, get_collection, set_session

__all__ = ["bp"]

bp = Blueprint("store_payment_collections", url_prefix="/payment-collections")

GET = QuerySpec(
    columns=COLLECTION_COLUMNS, default_relations=COLLECTION_RELATIONS, allowed_relations=COLLECTION_RELATIONS,
    is_list=False,
)


class ProviderChoice(Body):
    provider_id: NonEmptyStr


@bp.get("/<collection_id:str>")
async def get(request: Request, collection_id: str):
    q = parse_query(request.query_string, GET)
    return json({"payment_collection": collection_json(await get_collection(collection_id), q.relations, q.fields)})


@bp.post("/<collection_id:str>/sessions")
async def start_session(request: Request, collection_id: str):
    body = parse_body(request, ProviderChoice)
    return json({"payment_collection": collection_json(await set_session(collection_id, body.provider_id))})


@bp.post("/<collection_id:str>/sessions/<session_id:str>/authorize")
async def authorize(request: Request, collection_id: str, session_id: str):
    return json({"payment_session": session_json(await authorize_session(collection_id, session_id))})

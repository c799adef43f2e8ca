"""Store collections: `GET /store/collections`, `GET /store/collections/{id}`.

A collection is shown without its products, as in Medusa v1; the storefront lists them with
`GET /store/products?collection_id[]=...`."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.web.query import DateComparison, Filters, QuerySpec, StrList, parse_query
from app.web.responses import json
from app.web.store_cache import cached
from app.web.serialize import COLUMNS, dump, dump_many
from models import ProductCollection
from services.catalog.collections import CollectionFilter, get_collection, list_collections

bp = Blueprint("store_collections", url_prefix="/collections")


class ListFilters(Filters):
    handle: StrList = []  # `handle[]=a&handle[]=b`, or a plain `handle=a` (Medusa v1 refuses that one)
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[ProductCollection], allowed_order=("id", "title", "handle", "created_at", "updated_at"),
    filters=ListFilters, default_limit=10, selectable=False,
)
ONE = QuerySpec(columns=COLUMNS[ProductCollection], is_list=False, selectable=False)


@bp.get("")
@cached()
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    filters = CollectionFilter(handles=q.filters.handle, **q.filters.comparisons())
    collections, count = await list_collections(filters, q.find())
    return json({"collections": dump_many(collections, ()), "count": count, "offset": q.offset, "limit": q.limit})


@bp.get("/<collection_id:str>")
@cached()
async def get(request: Request, collection_id: str):
    parse_query(request.query_string, ONE)
    return json({"collection": dump(await get_collection(collection_id))})

"""Admin collections: `/admin/collections`.

Medusa v1's list takes no `expand` or `fields`; we accept both (allow-listed) on every route that
answers with collections, so an admin can leave out the products of large collections (`expand=`).
Without them every answer is Medusa's: the collection with its live products and their profiles.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError
from sanic import Blueprint, Request

from app.web.query import DateComparison, Filters, ParsedQuery, QuerySpec, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, NonEmptyStr, max_length, parse_body, max_items
from models import ProductCollection
from services.catalog.collections import (
    CollectionFilter, add_products, create_collection, delete_collection, get_collection, list_collections,
    remove_products, update_collection,
)

bp = Blueprint("admin_collections", url_prefix="/collections")

RELATIONS = ("products", "products.profiles")
ORDER = ("id", "title", "handle", "created_at", "updated_at", "deleted_at")
MAX_BATCH = 10_000  # one statement's parameters stay within what SQLite and PostgreSQL accept
MAX_TEXT = 255  # the columns' length


Title = Annotated[NonEmptyStr, max_length(MAX_TEXT)]
Handle = Annotated[str, max_length(MAX_TEXT)]


class ListFilters(Filters):
    q: str | None = None
    discount_condition_id: str | None = None  # the collections a discount condition names
    title: str | None = None
    handle: str | None = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    deleted_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[ProductCollection], default_relations=RELATIONS, allowed_relations=RELATIONS,
    allowed_order=ORDER, filters=ListFilters, default_limit=10,
)
ONE = QuerySpec(
    columns=COLUMNS[ProductCollection], default_relations=RELATIONS, allowed_relations=RELATIONS, is_list=False,
)


class CreateCollection(Body):
    title: Title
    handle: Handle | None = None  # absent, null or empty: the kebab-cased title
    metadata: dict[str, Any] | None = None


class UpdateCollection(Body):
    title: Title = None  # type: ignore[assignment]  # absent: kept; null: refused
    handle: Handle | None = None  # absent: kept; null or empty: cleared
    metadata: dict[str, Any] | None = None


def _product_ids(value: Any) -> Any:
    if not isinstance(value, list):
        return value  # refused by the list type: "must be an array"
    if not value:
        raise PydanticCustomError("empty", "should not be empty")
    if not all(isinstance(v, str) for v in value):
        raise PydanticCustomError("invalid", "must be an array of strings")
    return value


class ProductBatch(Body):
    product_ids: Annotated[list[str], BeforeValidator(_product_ids), max_items(MAX_BATCH)]


def _one(collection: ProductCollection, q: ParsedQuery) -> dict:
    return {"collection": dump_many([collection], q.relations, q.fields)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    filters = CollectionFilter(**q.filters.plain(), **q.filters.comparisons())
    collections, count = await list_collections(filters, q.find())
    return json({"collections": dump_many(collections, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, CreateCollection)
    return json(_one(await create_collection(**body.model_dump(), relations=q.relations), q))


@bp.get("/<collection_id:str>")
async def get(request: Request, collection_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await get_collection(collection_id, q.relations), q))


@bp.post("/<collection_id:str>")
async def update(request: Request, collection_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, UpdateCollection)
    changes = body.model_dump(exclude_unset=True)
    return json(_one(await update_collection(collection_id, q.relations, **changes), q))


@bp.delete("/<collection_id:str>")
async def delete(request: Request, collection_id: str):
    await delete_collection(collection_id)
    return deleted(collection_id, "product-collection")


@bp.post("/<collection_id:str>/products/batch")
async def add(request: Request, collection_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, ProductBatch)
    return json(_one(await add_products(collection_id, body.product_ids, q.relations), q))


@bp.delete("/<collection_id:str>/products/batch")
async def remove(request: Request, collection_id: str):
    body = parse_body(request, ProductBatch)
    removed = await remove_products(collection_id, body.product_ids)
    return json({"id": collection_id, "object": "product-collection", "removed_products": removed})

"""Admin product categories: `/admin/product-categories`.

As in Medusa v1, a category comes with its parent and its children (one category: its whole
subtree; a list: direct children unless `include_descendants_tree=true`), siblings by rank then
handle. Unlike Medusa v1, one category honours `expand` and `fields`, the
list honours `order` (rank by default), a create may place the category with `rank`, an unknown
product in a batch is a plain invalid_data 400, and a move under its own subtree is refused.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sanic import Blueprint, Request

from app.shapes.product_categories import dump_categories
from app.web.query import BoolStr, Filters, ParsedQuery, QuerySpec, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS
from app.web.validation import Body, NonEmptyStr, max_items, max_length, parse_body
from models import ProductCategory
from services.catalog.categories import RELATIONS, CategoryFilter, CategoryNode, get_category, list_categories
from services.catalog.category_edits import (
    add_products, create_category, delete_category, remove_products, update_category,
)

bp = Blueprint("admin_product_categories", url_prefix="/product-categories")

MAX_TEXT = 255  # the name and handle columns' length
MAX_BATCH = 10_000  # one statement's parameters stay within what SQLite and PostgreSQL accept
ORDER = ("rank", "handle", "name", "created_at", "updated_at", "id")

Name = Annotated[NonEmptyStr, max_length(MAX_TEXT)]
Handle = Annotated[str, max_length(MAX_TEXT)]
Rank = Annotated[int, Field(ge=0)]


class ListFilters(Filters):
    q: str | None = None
    handle: str | None = None
    is_internal: BoolStr = None
    is_active: BoolStr = None
    parent_category_id: str | None = None  # an id, or "null" for the top-level categories
    include_descendants_tree: BoolStr = None


class OneFilters(Filters):
    include_descendants_tree: BoolStr = None  # one category shows its whole subtree unless false


LIST = QuerySpec(
    columns=COLUMNS[ProductCategory], default_relations=RELATIONS, allowed_relations=RELATIONS,
    allowed_order=ORDER, default_order="rank", filters=ListFilters, default_limit=100,
)
ONE = LIST.one(filters=OneFilters)


class CreateCategory(Body):
    name: Name
    handle: Handle | None = None  # absent, null or empty: the kebab-cased name
    description: str = ""
    is_internal: bool = False
    is_active: bool = False
    parent_category_id: str | None = None  # null or "null": a top-level category
    rank: Rank | None = None  # absent: last among its siblings
    metadata: dict[str, Any] | None = None


class UpdateCategory(Body):
    name: Name = None  # type: ignore[assignment]  # absent: kept; null: refused
    handle: Annotated[NonEmptyStr, max_length(MAX_TEXT)] = None  # type: ignore[assignment]
    description: str = None  # type: ignore[assignment]
    is_internal: bool = None  # type: ignore[assignment]
    is_active: bool = None  # type: ignore[assignment]
    parent_category_id: str | None = None  # absent: kept; null or "null": made top-level
    rank: Rank = None  # type: ignore[assignment]
    metadata: dict[str, Any] | None = None


class ProductId(Body):
    id: NonEmptyStr


class ProductBatch(Body):
    product_ids: Annotated[list[ProductId], max_items(MAX_BATCH)]


def _tree(q: ParsedQuery) -> bool:
    return q.filters.include_descendants_tree is not False


def _one(node: CategoryNode, q: ParsedQuery) -> dict:
    return {"product_category": dump_categories([node], q.relations, fields=q.fields)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    f = q.filters
    filters = CategoryFilter(
        q=f.q, handle=f.handle, is_internal=f.is_internal, is_active=f.is_active,
        parent_category_id=f.parent_category_id, roots_only=f.parent_category_id == "null",
    )
    nodes, count = await list_categories(filters, q.find(), descendants_tree=bool(f.include_descendants_tree))
    return json({"product_categories": dump_categories(nodes, q.relations, fields=q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, CreateCategory)
    return json(_one(await create_category(**body.model_dump(), relations=q.relations, descendants_tree=_tree(q)), q))


@bp.get("/<category_id:str>")
async def get(request: Request, category_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await get_category(category_id, q.relations, descendants_tree=_tree(q)), q))


@bp.post("/<category_id:str>")
async def update(request: Request, category_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, UpdateCategory)
    changes = body.model_dump(exclude_unset=True)
    return json(_one(await update_category(category_id, q.relations, descendants_tree=_tree(q), **changes), q))


@bp.delete("/<category_id:str>")
async def delete(request: Request, category_id: str):
    await delete_category(category_id)
    return deleted(category_id, "product-category")


@bp.post("/<category_id:str>/products/batch")
async def add(request: Request, category_id: str):
    q = parse_query(request.query_string, ONE)
    ids = [p.id for p in parse_body(request, ProductBatch).product_ids]
    return json(_one(await add_products(category_id, ids, q.relations, descendants_tree=_tree(q)), q))


@bp.delete("/<category_id:str>/products/batch")
async def remove(request: Request, category_id: str):
    q = parse_query(request.query_string, ONE)
    ids = [p.id for p in parse_body(request, ProductBatch).product_ids]
    return json(_one(await remove_products(category_id, ids, q.relations, descendants_tree=_tree(q)), q))

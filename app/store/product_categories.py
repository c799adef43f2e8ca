"""Store product categories: `GET /store/product-categories`, `GET /store/product-categories/{id}`
(Medusa v1's store routes).

A shopper sees a category when it and every category above it are active and public; a hidden
category hides its whole subtree (Medusa v1 still lists the visible children of a hidden parent).
Every node shows Medusa's store columns only. Siblings keep the ranks the admin gave them, so the
visible ones may skip a rank where a hidden sibling sits.
"""

from __future__ import annotations

from sanic import Blueprint, Request

from app.shapes.product_categories import STORE_COLUMNS, dump_categories
from app.web.query import BoolStr, Filters, QuerySpec, parse_query
from app.web.responses import json
from app.web.store_cache import cached
from services.catalog.categories import RELATIONS, CategoryFilter, get_category, list_categories

bp = Blueprint("store_product_categories", url_prefix="/product-categories")


class ListFilters(Filters):
    q: str | None = None
    handle: str | None = None
    parent_category_id: str | None = None  # an id, or "null" for the top-level categories
    include_descendants_tree: BoolStr = None


class OneFilters(Filters):
    include_descendants_tree: BoolStr = None  # one category shows its whole subtree unless false


LIST = QuerySpec(
    columns=STORE_COLUMNS, default_relations=RELATIONS, allowed_relations=RELATIONS,
    allowed_order=("rank", "handle", "name", "created_at", "updated_at", "id"), default_order="rank",
    filters=ListFilters, default_limit=100,
)
ONE = LIST.one(filters=OneFilters)


@bp.get("")
@cached()
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    f = q.filters
    filters = CategoryFilter(
        q=f.q, handle=f.handle, parent_category_id=f.parent_category_id,
        roots_only=f.parent_category_id == "null", storefront=True,
    )
    nodes, count = await list_categories(filters, q.find(), descendants_tree=bool(f.include_descendants_tree))
    return json({
        "product_categories": dump_categories(nodes, q.relations, columns=STORE_COLUMNS, fields=q.fields),
        "count": count, "offset": q.offset, "limit": q.limit,
    })


@bp.get("/<category_id:str>")
@cached()
async def get(request: Request, category_id: str):
    q = parse_query(request.query_string, ONE)
    tree = q.filters.include_descendants_tree is not False
    node = await get_category(category_id, q.relations, descendants_tree=tree, storefront=True)
    return json({"product_category": dump_categories([node], q.relations, columns=STORE_COLUMNS, fields=q.fields)[0]})

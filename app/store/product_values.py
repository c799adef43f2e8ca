"""Store product tags and types: `GET /store/product-tags`, `GET /store/product-types`; as in
Medusa v1.20, every live one, whatever the products they label."""

from sanic import Blueprint, Request

from app.shapes.product_values import value_list, value_list_spec
from services.catalog.tags_types import list_tags, list_types

bp = Blueprint("store_product_values")

SPEC = value_list_spec(default_limit=20)


@bp.get("/product-tags")
async def tags(request: Request):
    return await value_list(request, SPEC, list_tags, "product_tags")


@bp.get("/product-types")
async def types(request: Request):
    return await value_list(request, SPEC, list_types, "product_types")

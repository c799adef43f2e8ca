"""Admin product tags and types: `GET /admin/product-tags`, `GET /admin/product-types`."""

from sanic import Blueprint, Request

from app.shapes.product_values import value_list, value_list_spec
from services.catalog.tags_types import list_tags, list_types

bp = Blueprint("admin_product_values")

TAGS, TYPES = value_list_spec(default_limit=10), value_list_spec(default_limit=20)


@bp.get("/product-tags")
async def tags(request: Request):
    return await value_list(request, TAGS, list_tags, "product_tags")


@bp.get("/product-types")
async def types(request: Request):
    return await value_list(request, TYPES, list_types, "product_types")

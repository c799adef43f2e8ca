"""Admin writes to a product's variants and options: `POST /admin/products/{id}/variants`,
`POST|DELETE /admin/products/{id}/variants/{variant_id}`, `POST /admin/products/{id}/options`,
`POST|DELETE /admin/products/{id}/options/{option_id}`.
Each answers the product as `GET /admin/products/{id}` shows it; a delete adds Medusa's
`{…_id, object, deleted}` keys."""

from __future__ import annotations

from typing import Annotated

from sanic import Blueprint, Request

from app.admin.product_writes import (
    MAX_PRICES, NewPrice, OptionTitle, OptionValueById, PriceChange, Title, VariantFields, answer,
)
from app.admin.products import RELATIONS
from app.web.responses import json
from app.web.validation import max_items, parse_body
from services.catalog.product_options import add_option, delete_option, update_option
from services.catalog.product_variants import add_variant, delete_variant, update_variant

bp = Blueprint("admin_product_variants", url_prefix="/products")

MAX_OPTIONS = 1_000


class NewVariant(VariantFields):
    title: Title
    prices: Annotated[list[NewPrice], max_items(MAX_PRICES)]
    options: Annotated[list[OptionValueById], max_items(MAX_OPTIONS)] = []


class VariantChange(VariantFields):
    title: Title = None  # type: ignore[assignment]
    prices: Annotated[list[PriceChange], max_items(MAX_PRICES)] = None  # type: ignore[assignment]
    options: Annotated[list[OptionValueById], max_items(MAX_OPTIONS)] = []


@bp.post("/<product_id:str>/variants")
async def create_variant(request: Request, product_id: str):
    body = parse_body(request, NewVariant)
    return json(answer(await add_variant(product_id, body.model_dump(), RELATIONS)))


@bp.post("/<product_id:str>/variants/<variant_id:str>")
async def update_variant_(request: Request, product_id: str, variant_id: str):
    body = parse_body(request, VariantChange)
    return json(answer(await update_variant(product_id, variant_id, body.model_dump(exclude_unset=True), RELATIONS)))


@bp.delete("/<product_id:str>/variants/<variant_id:str>")
async def delete_variant_(request: Request, product_id: str, variant_id: str):
    priced = await delete_variant(product_id, variant_id, RELATIONS)
    return json(answer(priced, variant_id=variant_id, object="product-variant", deleted=True))


@bp.post("/<product_id:str>/options")
async def create_option(request: Request, product_id: str):
    body = parse_body(request, OptionTitle)
    return json(answer(await add_option(product_id, body.title, RELATIONS)))


@bp.post("/<product_id:str>/options/<option_id:str>")
async def update_option_(request: Request, product_id: str, option_id: str):
    body = parse_body(request, OptionTitle)
    return json(answer(await update_option(product_id, option_id, body.title, RELATIONS)))


@bp.delete("/<product_id:str>/options/<option_id:str>")
async def delete_option_(request: Request, product_id: str, option_id: str):
    priced = await delete_option(product_id, option_id, RELATIONS)
    return json(answer(priced, option_id=option_id, object="option", deleted=True))

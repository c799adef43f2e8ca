"""Admin product writes: `POST /admin/products`, `POST /admin/products/{id}`,
`DELETE /admin/products/{id}`, `POST /admin/products/{id}/metadata`. Every answer but the delete's
is `{product}` as `GET /admin/products/{id}` shows it.

Stricter than Medusa v1 where it would answer a 500: dimensions and stock are integers, amounts
are non-negative minor units within a BIGINT, texts fit their columns.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sanic import Blueprint, Request

from app.admin.products import RELATIONS
from app.shapes.products import dump_products
from app.web.responses import deleted, json
from app.web.validation import Amount, Body, max_items, max_length, NonEmptyStr, parse_body
from models.product import PRODUCT_STATUSES
from services.catalog.product_writes import create_product, delete_product, set_product_metadata, update_product
from services.catalog.products import PricedProducts

__all__ = [
    "bp", "answer", "NewPrice", "PriceChange", "VariantFields", "OptionTitle", "OptionValueById", "Title", "MAX_PRICES",
]

bp = Blueprint("admin_product_writes", url_prefix="/products")

MAX_INT = 2**31 - 1  # dimensions, stock and quantity bounds are INTEGER columns
MAX_VARIANTS = 1_000
MAX_PRICES = 1_000  # of one variant
MAX_ITEMS = 1_000  # images, tags, options, categories, channels

Text = Annotated[str, max_length(255)]
Title = Annotated[NonEmptyStr, max_length(255)]
Url = Annotated[str, max_length(2048)]
Quantity = Annotated[int, Field(ge=0, le=MAX_INT)]
Stock = Annotated[int, Field(ge=-MAX_INT - 1, le=MAX_INT)]
Dimension = Annotated[int, Field(ge=0, le=MAX_INT)]
Status = Literal[PRODUCT_STATUSES]  # type: ignore[valid-type]


class NewPrice(Body):
    region_id: str | None = None  # a region or a currency (Medusa's XOR rule, checked in the service)
    currency_code: str | None = None
    amount: Amount
    min_quantity: Quantity | None = None
    max_quantity: Quantity | None = None


class PriceChange(NewPrice):
    id: str | None = None  # one of the variant's base prices


class OptionValue(Body):
    value: Text


class OptionValueById(Body):
    option_id: NonEmptyStr
    value: Text


class VariantFields(Body):
    """What every variant body shares; null clears a text or dimension."""

    sku: Text | None = None
    ean: Text | None = None
    upc: Text | None = None
    barcode: Text | None = None
    hs_code: Text | None = None
    origin_country: Text | None = None
    mid_code: Text | None = None
    material: Text | None = None
    inventory_quantity: Stock | None = None
    allow_backorder: bool | None = None
    manage_inventory: bool | None = None
    weight: Dimension | None = None
    length: Dimension | None = None
    height: Dimension | None = None
    width: Dimension | None = None
    metadata: dict[str, Any] | None = None


class NewVariant(VariantFields):
    title: Title
    prices: Annotated[list[NewPrice], max_items(MAX_PRICES)]
    options: Annotated[list[OptionValue], max_items(MAX_ITEMS)] = []


class VariantChange(VariantFields):
    id: str | None = None  # without one, a new variant
    title: Title = None  # type: ignore[assignment]
    prices: Annotated[list[PriceChange], max_items(MAX_PRICES)] = None  # type: ignore[assignment]
    options: Annotated[list[OptionValueById], max_items(MAX_ITEMS)] = []


class ValueRef(Body):
    id: str | None = None  # not used to find it: Medusa finds a tag or type by its value
    value: Text


class IdRef(Body):
    id: NonEmptyStr


class OptionTitle(Body):
    title: Title


class ProductFields(Body):
    subtitle: Text | None = None
    description: str | None = None
    handle: Text | None = None
    thumbnail: Url | None = None
    collection_id: str | None = None
    type: ValueRef | None = None
    tags: Annotated[list[ValueRef], max_items(MAX_ITEMS)] | None = None
    images: Annotated[list[Url], max_items(MAX_ITEMS)] | None = None
    categories: Annotated[list[IdRef], max_items(MAX_ITEMS)] | None = None
    sales_channels: Annotated[list[IdRef], max_items(MAX_ITEMS)] | None = None
    weight: Dimension | None = None
    length: Dimension | None = None
    height: Dimension | None = None
    width: Dimension | None = None
    hs_code: Text | None = None
    origin_country: Text | None = None
    mid_code: Text | None = None
    material: Text | None = None
    metadata: dict[str, Any] | None = None


class CreateProduct(ProductFields):
    title: Title
    is_giftcard: bool = False
    discountable: bool = True
    status: Status = "draft"  # type: ignore[valid-type]
    options: Annotated[list[OptionTitle], max_items(MAX_ITEMS)] = []
    variants: Annotated[list[NewVariant], max_items(MAX_VARIANTS)] = []


class UpdateProduct(ProductFields):
    # absent: kept; null: refused for these, cleared for the others
    title: Title = None  # type: ignore[assignment]
    discountable: bool = None  # type: ignore[assignment]
    status: Status = None  # type: ignore[valid-type,assignment]
    variants: Annotated[list[VariantChange], max_items(MAX_VARIANTS)] = None  # type: ignore[assignment]


class MetadataPair(Body):
    key: NonEmptyStr
    value: str


def answer(priced: PricedProducts, **extra: Any) -> dict:
    """A write's answer: the product as `GET /admin/products/{id}` shows it by default."""
    return {**extra, "product": dump_products(priced, RELATIONS, single_profile=True)[0]}


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateProduct)
    return json(answer(await create_product(body.model_dump(), RELATIONS)))


@bp.post("/<product_id:str>")
async def update(request: Request, product_id: str):
    body = parse_body(request, UpdateProduct)
    return json(answer(await update_product(product_id, body.model_dump(exclude_unset=True), RELATIONS)))


@bp.delete("/<product_id:str>")
async def delete(request: Request, product_id: str):
    await delete_product(product_id)
    return deleted(product_id, "product")


@bp.post("/<product_id:str>/metadata")
async def metadata(request: Request, product_id: str):
    body = parse_body(request, MetadataPair)
    return json(answer(await set_product_metadata(product_id, body.key, body.value, RELATIONS)))

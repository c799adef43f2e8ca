"""Admin tax rates: `/admin/tax-rates`.

As in Medusa v1, `expand` and `fields` may be arrays (`expand[]=products`); unlike it, a plain
comma list works too, and a falsy filter still filters (`rate=0`). The counts
`product_count`, `product_type_count` and `shipping_option_count` are shown when `fields` names them.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError
from sanic import Blueprint, Request

from app.web.query import DateComparison, Filters, ParsedQuery, QuerySpec, StrList, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, NonEmptyStr, max_items, max_length, parse_body
from models import TaxRate
from services.regions.tax_rates import (
    TaxRateFilter, add_links, create_tax_rate, delete_tax_rate, get_tax_rate, link_counts, list_tax_rates,
    remove_links, update_tax_rate,
)

bp = Blueprint("admin_tax_rates", url_prefix="/tax-rates")

RELATIONS = ("products", "product_types", "shipping_options")
# Medusa's default selection: metadata is shown only when `fields` names it.
DEFAULT_FIELDS = frozenset(("id", "rate", "code", "name", "region_id", "created_at", "updated_at"))
COUNTS = {"product_count": "products", "product_type_count": "product_types",
          "shipping_option_count": "shipping_options"}
# The batch routes' path segment, and the key of their body, by kind.
SEGMENTS = {"products": "products", "product-types": "product_types", "shipping-options": "shipping_options"}
MAX_BATCH = 10_000  # one statement's parameters stay within what SQLite and PostgreSQL accept
MAX_NAME, MAX_CODE = 255, 100  # the columns' lengths


Name = Annotated[NonEmptyStr, max_length(MAX_NAME)]
Code = Annotated[NonEmptyStr, max_length(MAX_CODE)]
Rate = Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)]  # percent
Ids = Annotated[list[str], max_items(MAX_BATCH)]


def _number(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise PydanticCustomError("invalid", "must be a number, or an object of lt, gt, lte, gte numbers")
    return number


def _rate_filter(value: Any) -> Any:
    """`rate=5`, or `rate[gt]=5&rate[lte]=20`."""
    if isinstance(value, dict):
        if not value or set(value) - {"lt", "gt", "lte", "gte"}:
            raise PydanticCustomError("invalid", "must be a number, or an object of lt, gt, lte, gte numbers")
        return {op: _number(v) for op, v in value.items()}
    return _number(value)


RateFilter = Annotated[float | dict[str, float], BeforeValidator(_rate_filter)]


class ListFilters(Filters):
    region_id: StrList = []
    name: str | None = None
    code: str | None = None
    rate: RateFilter | None = None
    q: str | None = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[TaxRate], allowed_relations=RELATIONS, extra_fields=tuple(COUNTS),
    allowed_order=("id", "name", "code", "rate", "region_id", "created_at", "updated_at"), filters=ListFilters,
)
ONE = LIST.one()


class CreateTaxRate(Body):
    code: Code
    name: Name
    region_id: NonEmptyStr
    rate: Rate | None = None
    products: Ids | None = None
    product_types: Ids | None = None
    shipping_options: Ids | None = None


class UpdateTaxRate(Body):
    code: Code = None  # type: ignore[assignment]  # absent: kept; null: refused
    name: Name = None  # type: ignore[assignment]
    region_id: NonEmptyStr = None  # type: ignore[assignment]
    rate: Rate | None = None  # absent: kept; null: cleared
    products: Ids | None = None  # given: replaces the attached products
    product_types: Ids | None = None
    shipping_options: Ids | None = None


class ProductsBatch(Body):
    products: Ids


class ProductTypesBatch(Body):
    product_types: Ids


class ShippingOptionsBatch(Body):
    shipping_options: Ids


BATCHES = {"products": ProductsBatch, "product_types": ProductTypesBatch, "shipping_options": ShippingOptionsBatch}


async def _dump(rates: list[TaxRate], q: ParsedQuery) -> list[dict]:
    fields = q.fields if q.fields is not None else DEFAULT_FIELDS
    asked = [name for name in COUNTS if name in fields]
    counts = await link_counts([r.id for r in rates], [COUNTS[name] for name in asked]) if asked else {}

    def extra(obj: Any, out: dict) -> None:
        if isinstance(obj, TaxRate):
            for name in asked:
                out[name] = counts[COUNTS[name]].get(obj.id, 0)

    return dump_many(rates, q.relations, fields, extra)


async def _one(rate: TaxRate, q: ParsedQuery) -> dict:
    return {"tax_rate": (await _dump([rate], q))[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    filters = TaxRateFilter(**q.filters.plain(), **q.filters.comparisons())
    rates, count = await list_tax_rates(filters, q.find())
    return json({"tax_rates": await _dump(rates, q), "count": count, "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, CreateTaxRate)
    return json(await _one(await create_tax_rate(**body.model_dump(), relations=q.relations), q))


@bp.get("/<rate_id:str>")
async def get(request: Request, rate_id: str):
    q = parse_query(request.query_string, ONE)
    return json(await _one(await get_tax_rate(rate_id, q.relations), q))


@bp.post("/<rate_id:str>")
async def update(request: Request, rate_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, UpdateTaxRate)
    return json(await _one(await update_tax_rate(rate_id, q.relations, **body.model_dump(exclude_unset=True)), q))


@bp.delete("/<rate_id:str>")
async def delete(request: Request, rate_id: str):
    await delete_tax_rate(rate_id)
    return deleted(rate_id, "tax-rate")


@bp.post("/<rate_id:str>/<segment:products|product-types|shipping-options>/batch")
async def add(request: Request, rate_id: str, segment: str):
    kind = SEGMENTS[segment]
    q = parse_query(request.query_string, ONE)
    ids = getattr(parse_body(request, BATCHES[kind]), kind)
    return json(await _one(await add_links(rate_id, kind, ids, q.relations), q))


@bp.delete("/<rate_id:str>/<segment:products|product-types|shipping-options>/batch")
async def remove(request: Request, rate_id: str, segment: str):
    kind = SEGMENTS[segment]
    q = parse_query(request.query_string, ONE)
    ids = getattr(parse_body(request, BATCHES[kind]), kind)
    return json(await _one(await remove_links(rate_id, kind, ids, q.relations), q))

"""Admin regions: `/admin/regions`, their countries, providers and fulfillment options.

Every answer about one region is `{region}` with Medusa's default relations (countries, payment and
fulfillment providers, currency); `expand` and `fields` may narrow it on every route. `includes_tax`
(Medusa 1.20's tax-inclusive pricing, always on here) says the region's prices hold their tax.
Unlike Medusa, an unknown provider is a 404 naming it on every route,
a region's delete is idempotent and a country code is read in any case.
"""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request

from app.web.query import MAX_REFERENCE_LIMIT, DateComparison, Filters, ParsedQuery, QuerySpec, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, NonEmptyStr, max_items, max_length, parse_body
from models import Region
from services.regions.regions import (
    add_country, add_fulfillment_provider, add_payment_provider, create_region, delete_region, fulfillment_options,
    get_region, list_regions, remove_country, remove_fulfillment_provider, remove_payment_provider, update_region,
)

bp = Blueprint("admin_regions", url_prefix="/regions")

RELATIONS = ("countries", "payment_providers", "fulfillment_providers", "currency")
ORDER = ("id", "name", "currency_code", "tax_rate", "tax_code", "created_at", "updated_at", "deleted_at")
MAX_NAME, MAX_TAX_CODE = 255, 100  # the columns' lengths
MAX_CODES = 1_000  # more than there are countries or providers


Name = Annotated[NonEmptyStr, max_length(MAX_NAME)]
TaxCode = Annotated[str, max_length(MAX_TAX_CODE)]
Codes = Annotated[list[str], max_items(MAX_CODES)]


class ListFilters(Filters):
    q: str | None = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    deleted_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[Region], default_relations=RELATIONS, allowed_relations=RELATIONS, allowed_order=ORDER,
    filters=ListFilters, default_limit=50, max_limit=MAX_REFERENCE_LIMIT,
)
ONE = QuerySpec(columns=COLUMNS[Region], default_relations=RELATIONS, allowed_relations=RELATIONS, is_list=False)


class CreateRegion(Body):
    name: Name
    currency_code: NonEmptyStr
    tax_rate: float  # percent
    payment_providers: Codes
    fulfillment_providers: Codes
    countries: Codes  # ISO 3166-1 alpha-2, any case
    tax_code: TaxCode | None = None
    metadata: dict[str, Any] | None = None
    includes_tax: bool = False


class UpdateRegion(Body):
    # absent: kept; null: refused, except tax_code (cleared) and tax_provider_id (the system provider)
    name: Name = None  # type: ignore[assignment]
    currency_code: NonEmptyStr = None  # type: ignore[assignment]
    tax_rate: float = None  # type: ignore[assignment]
    tax_code: TaxCode | None = None
    gift_cards_taxable: bool = None  # type: ignore[assignment]
    automatic_taxes: bool = None  # type: ignore[assignment]
    tax_provider_id: str | None = None
    payment_providers: Codes = None  # type: ignore[assignment]
    fulfillment_providers: Codes = None  # type: ignore[assignment]
    countries: Codes = None  # type: ignore[assignment]
    metadata: dict[str, Any] | None = None
    includes_tax: bool = None  # type: ignore[assignment]


class CountryRef(Body):
    country_code: NonEmptyStr


class ProviderRef(Body):
    provider_id: NonEmptyStr


def _one(region: Region, q: ParsedQuery) -> dict:
    return {"region": dump_many([region], q.relations, q.fields)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    regions, count = await list_regions(q.find(), **q.filters.plain(), **q.filters.comparisons())
    return json({"regions": dump_many(regions, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, CreateRegion)
    return json(_one(await create_region(**body.model_dump(), relations=q.relations), q))


@bp.get("/<region_id:str>")
async def get(request: Request, region_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await get_region(region_id, q.relations), q))


@bp.post("/<region_id:str>")
async def update(request: Request, region_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, UpdateRegion)
    return json(_one(await update_region(region_id, q.relations, **body.model_dump(exclude_unset=True)), q))


@bp.delete("/<region_id:str>")
async def delete(request: Request, region_id: str):
    await delete_region(region_id)
    return deleted(region_id, "region")


@bp.post("/<region_id:str>/countries")
async def add_country_(request: Request, region_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, CountryRef)
    return json(_one(await add_country(region_id, body.country_code, q.relations), q))


@bp.delete("/<region_id:str>/countries/<country_code:str>")
async def remove_country_(request: Request, region_id: str, country_code: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await remove_country(region_id, country_code, q.relations), q))


@bp.post("/<region_id:str>/payment-providers")
async def add_payment_provider_(request: Request, region_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, ProviderRef)
    return json(_one(await add_payment_provider(region_id, body.provider_id, q.relations), q))


@bp.delete("/<region_id:str>/payment-providers/<provider_id:str>")
async def remove_payment_provider_(request: Request, region_id: str, provider_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await remove_payment_provider(region_id, provider_id, q.relations), q))


@bp.post("/<region_id:str>/fulfillment-providers")
async def add_fulfillment_provider_(request: Request, region_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, ProviderRef)
    return json(_one(await add_fulfillment_provider(region_id, body.provider_id, q.relations), q))


@bp.delete("/<region_id:str>/fulfillment-providers/<provider_id:str>")
async def remove_fulfillment_provider_(request: Request, region_id: str, provider_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await remove_fulfillment_provider(region_id, provider_id, q.relations), q))


@bp.get("/<region_id:str>/fulfillment-options")
async def fulfillment_options_(request: Request, region_id: str):
    return json({"fulfillment_options": await fulfillment_options(region_id)})

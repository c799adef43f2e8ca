"""Admin price lists: `/admin/price-lists`, their prices and the products they price (Medusa's test
`admin/price-list.js`).

One list answers `{price_list}` with its prices (each with its variant) and customer groups.
`includes_tax` (Medusa 1.20's tax-inclusive pricing, always on here) says the list's prices hold
their tax. Amounts are non-negative minor units within a BIGINT; a price names a region or a currency,
not both (Medusa's XOR messages).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field
from sanic import Blueprint, Request

from app.shapes.price_lists import dump_price_lists
from app.shapes.products import dump_products
from app.web.answer_cache import SharedRead, kept
from app.web.query import BoolStr, DateComparison, Filters, ParsedQuery, QuerySpec, StrList, parse_query, query_key
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS
from app.web.validation import Amount, Body, DateTime, max_items, max_length, NonEmptyStr, parse_body
from models import PriceList, Product
from models.price_list import PRICE_LIST_STATUSES, PRICE_LIST_TYPES
from services.catalog.price_lists import (
    KEEP, MAX_QUANTITY, LoadedPriceList, PriceInput, PriceListFilter, add_prices, create_price_list,
    delete_price_list, delete_prices, delete_product_prices, delete_variant_prices, get_price_list,
    list_price_list_products, list_price_lists, update_price_list,
)
from services.catalog.products import AdminProductFilter
from services.catalog.version_reads import product_version
from services.customers.version_reads import read_customer_list_versions
from services.core.errors import InvalidData

bp = Blueprint("admin_price_lists", url_prefix="/price-lists")
# The versions of what a list's page and its products show, each one read shared by the requests
# that arrive while another is on its way.
PRODUCT_VERSION = SharedRead(product_version)
CUSTOMER_VERSIONS = SharedRead(read_customer_list_versions)

RELATIONS = ("prices", "customer_groups")
ORDER = ("id", "name", "description", "type", "status", "starts_at", "ends_at", "created_at", "updated_at")
PRODUCT_RELATIONS = (
    "variants", "variants.prices", "variants.options", "profiles", "images", "options", "options.values",
    "tags", "type", "collection", "sales_channels",
)
MAX_NAME = 255  # the column's length
MAX_PRICES = 5_000  # one request: a list of 500 products with a few variants and currencies
MAX_IDS = 1_000

Quantity = Annotated[int, Field(ge=0, le=MAX_QUANTITY)]
Type = Literal[PRICE_LIST_TYPES]  # type: ignore[valid-type]
Status = Literal[PRICE_LIST_STATUSES]  # type: ignore[valid-type]


def _split(value):
    return [p for p in value.split(",") if p] if isinstance(value, str) else value


class ListFilters(Filters):
    id: str | None = None
    q: str | None = None
    name: str | None = None
    description: str | None = None
    status: Annotated[list[Status], BeforeValidator(_split)] = []
    type: Annotated[list[Type], BeforeValidator(_split)] = []
    customer_groups: StrList = []
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    deleted_at: DateComparison | None = None


class ProductFilters(Filters):
    q: str | None = None
    id: StrList = []
    status: StrList = []
    collection_id: StrList = []
    tags: StrList = []
    title: str | None = None
    description: str | None = None
    handle: str | None = None
    is_giftcard: BoolStr = None  # "false" means false here (Medusa reads it as true)
    type: StrList = []  # product type ids
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    deleted_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[PriceList], default_relations=(), allowed_relations=RELATIONS, allowed_order=ORDER,
    filters=ListFilters, default_limit=10,
)
ONE = QuerySpec(columns=COLUMNS[PriceList], default_relations=RELATIONS, allowed_relations=RELATIONS, is_list=False)
PRODUCTS = QuerySpec(
    columns=COLUMNS[Product], default_relations=PRODUCT_RELATIONS, allowed_relations=PRODUCT_RELATIONS,
    allowed_order=tuple(c for c in COLUMNS[Product] if c != "metadata"), filters=ProductFilters, default_limit=50,
)


class NewPrice(Body):
    variant_id: NonEmptyStr
    amount: Amount
    region_id: str | None = None
    currency_code: str | None = None
    min_quantity: Quantity | None = None
    max_quantity: Quantity | None = None


class PriceChange(NewPrice):
    id: str | None = None  # a price of the list to change; without it the price is added


class GroupRef(Body):
    id: NonEmptyStr


Name = Annotated[NonEmptyStr, max_length(MAX_NAME)]
Groups = Annotated[list[GroupRef], max_items(MAX_IDS)]


class CreatePriceList(Body):
    name: Name
    description: str
    type: Type
    prices: Annotated[list[NewPrice], max_items(MAX_PRICES)]
    status: Status = "draft"
    starts_at: DateTime | None = None
    ends_at: DateTime | None = None
    customer_groups: Groups = []
    includes_tax: bool = False


class UpdatePriceList(Body):
    name: Name = None  # type: ignore[assignment]  # absent: kept; null: refused
    description: str = None  # type: ignore[assignment]
    type: Type = None  # type: ignore[valid-type,assignment]
    status: Status = None  # type: ignore[valid-type,assignment]
    starts_at: DateTime | None = None  # null clears
    ends_at: DateTime | None = None
    prices: Annotated[list[PriceChange], max_items(MAX_PRICES)] = []
    customer_groups: Groups = None  # type: ignore[assignment]  # [] clears
    includes_tax: bool = None  # type: ignore[assignment]


class AddPrices(Body):
    prices: Annotated[list[PriceChange], max_items(MAX_PRICES)] = []
    override: bool = False


class PriceIds(Body):
    price_ids: Annotated[list[NonEmptyStr], max_items(MAX_IDS)]


class ProductIds(Body):
    product_ids: Annotated[list[NonEmptyStr], max_items(MAX_IDS)]


def _inputs(prices: list[NewPrice]) -> list[PriceInput]:
    return [
        PriceInput(
            variant_id=p.variant_id, amount=p.amount, region_id=p.region_id, currency_code=p.currency_code,
            min_quantity=p.min_quantity if "min_quantity" in p.model_fields_set else KEEP,
            max_quantity=p.max_quantity if "max_quantity" in p.model_fields_set else KEEP,
            id=getattr(p, "id", None),
        )
        for p in prices
    ]


def _not_empty(ids: list[str], name: str) -> list[str]:
    if not ids:
        raise InvalidData(f"{name} should not be empty")
    return ids


def _one(loaded: LoadedPriceList, relations: tuple[str, ...] = RELATIONS) -> dict:
    return {"price_list": dump_price_lists([loaded], relations)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    plain = q.filters.plain()
    f = PriceListFilter(**{**plain, "status": tuple(plain["status"]), "type": tuple(plain["type"]),
                           "customer_groups": tuple(plain["customer_groups"])}, **q.filters.comparisons())
    lists, count = await list_price_lists(f, q.find())
    return json({"price_lists": dump_price_lists(lists, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreatePriceList)
    changes = body.model_dump(exclude={"prices", "customer_groups"})
    loaded = await create_price_list(
        **changes, prices=_inputs(body.prices), customer_groups=[g.id for g in body.customer_groups]
    )
    return json(_one(loaded))


@bp.get("/<price_list_id:str>")
async def get(request: Request, price_list_id: str):
    """Kept by version (app/web/answer_cache.py), as the admin product reads are: the catalogue's and
    the stock's (the list, its prices and their variants), and the customers' when it shows its
    customer groups (the groups' own columns)."""
    q = parse_query(request.query_string, ONE)
    version = await PRODUCT_VERSION()
    if "customer_groups" in q.relations:
        version += "." + (await CUSTOMER_VERSIONS()).customers
    return await kept(request, version, query_key(request.query_string), lambda: _get(q, price_list_id), {})


async def _get(q: ParsedQuery, price_list_id: str):
    return json(_one(await get_price_list(price_list_id, q.relations), q.relations))


@bp.post("/<price_list_id:str>")
async def update(request: Request, price_list_id: str):
    body = parse_body(request, UpdatePriceList)
    changes = body.model_dump(exclude_unset=True, exclude={"prices", "customer_groups"})
    if any(changes.get(k, "") is None for k in ("name", "description", "type", "status")):
        raise InvalidData("name, description, type and status must not be null")
    groups = [g.id for g in body.customer_groups] if body.customer_groups is not None else None
    loaded = await update_price_list(price_list_id, prices=_inputs(body.prices), customer_groups=groups, **changes)
    return json(_one(loaded))


@bp.delete("/<price_list_id:str>")
async def delete(request: Request, price_list_id: str):
    await delete_price_list(price_list_id)
    return deleted(price_list_id, "price-list")


@bp.post("/<price_list_id:str>/prices/batch")
async def add_prices_(request: Request, price_list_id: str):
    body = parse_body(request, AddPrices)
    return json(_one(await add_prices(price_list_id, _inputs(body.prices), override=body.override)))


@bp.delete("/<price_list_id:str>/prices/batch")
async def delete_prices_(request: Request, price_list_id: str):
    ids = _not_empty(parse_body(request, PriceIds).price_ids, "price_ids")
    await delete_prices(price_list_id, ids)
    return json({"ids": ids, "object": "money-amount", "deleted": True})


@bp.get("/<price_list_id:str>/products")
async def products(request: Request, price_list_id: str):
    """Kept by the catalogue's version as the admin product list is (app/admin/products.py), and not
    kept for the same reason when searched with `q`."""
    if "q" in request.args:
        return await _products(request, price_list_id)
    key = query_key(request.query_string)
    return await kept(request, await PRODUCT_VERSION(), key, lambda: _products(request, price_list_id), {})


async def _products(request: Request, price_list_id: str):
    q = parse_query(request.query_string, PRODUCTS)
    plain = q.filters.plain()
    plain["type_id"] = plain.pop("type")
    f = AdminProductFilter(**plain, **q.filters.comparisons())
    priced = await list_price_list_products(price_list_id, f, q.find())
    return json({"products": dump_products(priced, q.relations, q.fields, single_profile=True),
                 "count": priced.count, "offset": q.offset, "limit": q.limit})


@bp.delete("/<price_list_id:str>/products/prices/batch")
async def delete_products_prices(request: Request, price_list_id: str):
    ids = _not_empty(parse_body(request, ProductIds).product_ids, "product_ids")
    return json({"ids": await delete_product_prices(price_list_id, ids), "object": "money-amount", "deleted": True})


@bp.delete("/<price_list_id:str>/products/<product_id:str>/prices")
async def delete_product_prices_(request: Request, price_list_id: str, product_id: str):
    ids = await delete_product_prices(price_list_id, [product_id])
    return json({"ids": ids, "object": "money-amount", "deleted": True})


@bp.delete("/<price_list_id:str>/variants/<variant_id:str>/prices")
async def delete_variant_prices_(request: Request, price_list_id: str, variant_id: str):
    ids = await delete_variant_prices(price_list_id, variant_id)
    return json({"ids": ids, "object": "money-amount", "deleted": True})

"""Store products: `GET /store/products`, `GET /store/products/{id}`, priced for the shopper's
region or currency, within the sales channels of the request's publishable
API key, if any (app/web/publishable_keys.py). `POST /store/products/search` answers `{hits}`
(Medusa v1's search route) from the database's own full-text index, ranked
(services/catalog/search.py). A search's answer is kept by the catalogue's version, as the product
reads' are (app/web/store_cache.py): the same words, page and publishable key are answered again
without searching until the catalogue changes; not with an outside search engine (a plugin's),
which indexes on its own time."""

from typing import Annotated

from pydantic import Field
from sanic import Blueprint, Request

from app.web.auth import customer_id
from app.web.publishable_keys import key_scope
from app.web.query import BoolStr, DateComparison, Filters, QuerySpec, StrList, parse_query
from app.web.responses import json
from app.web.answer_cache import kept
from app.web.publishable_keys import HEADER as KEY_HEADER
from app.web.store_cache import cached, shared_version
from app.shapes.products import dump_products
from app.web.serialize import COLUMNS
from app.web.validation import Body, max_length, parse_body
from models import Product
from services.catalog.products import StoreProductFilter, get_store_product, list_store_products
from services.catalog.version_reads import product_version
from services.catalog.search import search_store_products, search_terms
from services.catalog.search_engines import outside_engine
from services.core.listing import FindConfig

bp = Blueprint("store_products", url_prefix="/products")

DEFAULT_RELATIONS = (
    "variants", "variants.prices", "variants.options", "options", "options.values", "images", "tags",
    "collection", "type", "profiles",
)
# `categories`: only those a shopper may see (Medusa v1.20 with the product_categories flag on).
ALLOWED_RELATIONS = DEFAULT_RELATIONS + ("sales_channels", "categories")
ORDER = ("id", "title", "handle", "created_at", "updated_at")


class ListFilters(Filters):
    q: str | None = None
    id: StrList = []
    collection_id: StrList = []
    tags: StrList = []
    type_id: StrList = []
    sales_channel_id: StrList = []
    title: str | None = None
    description: str | None = None
    handle: str | None = None
    is_giftcard: BoolStr = None
    region_id: str | None = None
    currency_code: str | None = None
    cart_id: str | None = None
    category_id: StrList = []  # only categories a shopper may see match
    include_category_children: BoolStr = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None


class GetFilters(Filters):
    region_id: str | None = None
    currency_code: str | None = None
    cart_id: str | None = None
    sales_channel_id: str | None = None


LIST = QuerySpec(
    columns=COLUMNS[Product], default_relations=DEFAULT_RELATIONS, allowed_relations=ALLOWED_RELATIONS,
    allowed_order=ORDER, filters=ListFilters, default_limit=100,
)
GET = LIST.one(filters=GetFilters)
MAX_HITS = 100  # a page of hits, as every list clamps its limit


class Search(Body):
    q: Annotated[str, max_length(255)] | None = None
    offset: Annotated[int, Field(ge=0)] = 0
    limit: Annotated[int, Field(ge=1)] = 20


@bp.get("")
@cached(product_version, products=True)
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    filters = StoreProductFilter(**q.filters.plain(), **q.filters.comparisons())
    priced = await list_store_products(filters, q.find(), await key_scope(request), await customer_id(request))
    return json({"products": dump_products(priced, q.relations, q.fields), "count": priced.count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("/search")
async def search(request: Request):
    body = parse_body(request, Search)
    if outside_engine():
        return await _search(request, body)
    key = repr((body.q, body.offset, body.limit, request.headers.get(KEY_HEADER, "")))
    return await kept(request, await shared_version(product_version)(), key, lambda: _search(request, body), {})


async def _search(request: Request, body: Search):
    limit = min(body.limit, MAX_HITS)
    config = FindConfig(limit=limit, offset=body.offset, order=(("title", False), ("id", False)),
                        relations=DEFAULT_RELATIONS)
    if search_terms(body.q):
        priced = await search_store_products(body.q, config, await key_scope(request))
    else:  # nothing to search for: every product, by title
        priced = await list_store_products(StoreProductFilter(), config, await key_scope(request))
    return json({"hits": dump_products(priced, DEFAULT_RELATIONS), "count": priced.count, "offset": body.offset,
                 "limit": limit})


@bp.get("/<product_id:str>")
@cached(product_version, products=True)
async def get(request: Request, product_id: str):
    q = parse_query(request.query_string, GET)
    priced = await get_store_product(
        product_id, q.relations, q.filters.region_id, q.filters.currency_code, await key_scope(request),
        q.filters.sales_channel_id, await customer_id(request), q.filters.cart_id,
    )
    return json({"product": dump_products(priced, q.relations, q.fields)[0]})

"""Admin product reads: `GET /admin/products`, `GET /admin/products/{id}`.
Every status, soft-deleted products on request, variants with their base prices.

Both are kept by the catalogue's version (app/web/answer_cache.py; services/catalog/version_reads.py:
moved in the writer's transaction by every write to what they show, stock included), as the admin
customer list is: the answer is the same for every admin. Not kept: a list filtered by a
discount's condition (conditions move no catalogue version) or searched with `q` (a search engine
may index after the write)."""

from sanic import Blueprint, Request

from app.web.answer_cache import SharedRead, kept
from app.web.query import BoolStr, DateComparison, Filters, QuerySpec, StrList, parse_query, query_key
from app.web.responses import json
from app.shapes.products import dump_products
from app.web.serialize import COLUMNS
from models import Product
from services.catalog.products import AdminProductFilter, get_admin_product, list_admin_products
from services.catalog.version_reads import product_version

bp = Blueprint("admin_products", url_prefix="/products")

RELATIONS = (
    "variants", "variants.prices", "variants.options", "profiles", "images", "options", "options.values",
    "tags", "type", "collection", "sales_channels", "categories",
)
# Medusa v1 lets any column through to the ORM (an unknown one is a 500); these are its columns.
ORDER = tuple(c for c in COLUMNS[Product] if c != "metadata")


class ListFilters(Filters):
    q: str | None = None
    id: StrList = []
    status: StrList = []
    price_list_id: StrList = []
    collection_id: StrList = []
    tags: StrList = []
    title: str | None = None
    description: str | None = None
    handle: str | None = None
    is_giftcard: BoolStr = None
    type_id: StrList = []
    sales_channel_id: StrList = []
    discount_condition_id: str | None = None
    category_id: StrList = []
    include_category_children: BoolStr = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    deleted_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[Product], default_relations=RELATIONS, allowed_relations=RELATIONS, allowed_order=ORDER,
    filters=ListFilters, default_limit=50,
)
GET = LIST.one(filters=None)
# The catalogue's version, one read shared by the requests that arrive while another is on its way.
VERSION = SharedRead(product_version)
_NOT_KEPT = ("q", "discount_condition_id")


@bp.get("")
async def list_(request: Request):
    if any(name in request.args for name in _NOT_KEPT):
        return await _list(request)
    return await kept(request, await VERSION(), query_key(request.query_string), lambda: _list(request), {})


async def _list(request: Request):
    q = parse_query(request.query_string, LIST)
    filters = AdminProductFilter(**q.filters.plain(), **q.filters.comparisons())
    priced = await list_admin_products(filters, q.find())
    return json({"products": dump_products(priced, q.relations, q.fields, single_profile=True), "count": priced.count,
                 "offset": q.offset, "limit": q.limit})


@bp.get("/<product_id:str>")
async def get(request: Request, product_id: str):
    return await kept(request, await VERSION(), query_key(request.query_string), lambda: _get(request, product_id), {})


async def _get(request: Request, product_id: str):
    q = parse_query(request.query_string, GET)
    priced = await get_admin_product(product_id, q.relations)
    return json({"product": dump_products(priced, q.relations, q.fields, single_profile=True)[0]})

"""Admin variants across products: `GET /admin/variants`, `GET /admin/variants/{id}`. `GET
/admin/variants/{id}/inventory` exists in Medusa v1 only with its
inventory modules, which this server does not have: that path is a 404."""

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict
from pydantic_core import PydanticCustomError
from sanic import Blueprint, Request

from app.shapes.products import dump_variants
from app.web.query import BoolStr, Filters, QuerySpec, StrList, parse_query
from app.web.responses import json
from app.web.serialize import COLUMNS
from models import ProductVariant
from services.catalog.variants_read import VariantFilter, VariantPricing, get_variant, list_variants

bp = Blueprint("admin_variants", url_prefix="/variants")

# Medusa v1.20's default variant columns: every column but `variant_rank`, which `fields` may ask for.
DEFAULT_FIELDS = tuple(c for c in COLUMNS[ProductVariant] if c != "variant_rank")
RELATIONS = ("product", "prices", "options")
ORDER = tuple(c for c in COLUMNS[ProductVariant] if c != "metadata")


class NumberComparison(BaseModel):
    model_config = ConfigDict(extra="forbid")

    eq: int | None = None
    lt: int | None = None
    gt: int | None = None
    lte: int | None = None
    gte: int | None = None


def _number_or_comparison(value: Any) -> Any:
    """`inventory_quantity=5` means equal to 5; `inventory_quantity[lt]=5` compares."""
    if isinstance(value, str):
        try:
            return {"eq": int(value.strip())}
        except ValueError:
            raise PydanticCustomError("number", "must be a number conforming to the specified constraints") from None
    return value


class ListFilters(Filters):
    q: str | None = None
    id: StrList = []
    title: StrList = []
    inventory_quantity: Annotated[NumberComparison | None, BeforeValidator(_number_or_comparison)] = None
    manage_inventory: BoolStr = None
    allow_backorder: BoolStr = None
    # What the prices are chosen for (a cart's region wins).
    cart_id: str | None = None
    region_id: str | None = None
    currency_code: str | None = None
    customer_id: str | None = None


LIST = QuerySpec(
    columns=DEFAULT_FIELDS, extra_fields=("variant_rank",), default_relations=RELATIONS,
    allowed_relations=RELATIONS, allowed_order=ORDER, filters=ListFilters, default_limit=20,
)
GET = LIST.one(filters=None)


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    f = q.filters
    filters = VariantFilter(
        q=f.q, id=f.id, title=f.title, manage_inventory=f.manage_inventory, allow_backorder=f.allow_backorder,
        inventory_quantity=f.inventory_quantity.model_dump(exclude_none=True) if f.inventory_quantity else None,
    )
    pricing = VariantPricing(
        region_id=f.region_id, currency_code=f.currency_code, cart_id=f.cart_id, customer_id=f.customer_id,
    )
    priced = await list_variants(filters, q.find(), pricing)
    # Medusa v1.20 leaves `offset` and `limit` out (its handler reads keys it does not have): echoed here.
    return json({"variants": dump_variants(priced, q.relations, q.fields or frozenset(DEFAULT_FIELDS)),
                 "count": priced.count, "offset": q.offset, "limit": q.limit})


@bp.get("/<variant_id:str>")
async def get(request: Request, variant_id: str):
    q = parse_query(request.query_string, GET)
    priced = await get_variant(variant_id, q.relations)
    return json({"variant": dump_variants(priced, q.relations, q.fields or frozenset(DEFAULT_FIELDS))[0]})

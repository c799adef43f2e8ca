"""Store regions: `GET /store/regions`, `GET /store/regions/{id}`."""

from sanic import Blueprint, Request

from app.web.query import MAX_REFERENCE_LIMIT, DateComparison, Filters, QuerySpec, parse_query
from app.web.responses import json
from app.web.store_cache import cached
from app.web.serialize import COLUMNS, dump_many
from models import Region
from services.regions.regions import get_region, list_regions

bp = Blueprint("store_regions", url_prefix="/regions")

RELATIONS = ("countries", "payment_providers", "fulfillment_providers", "currency")


class RegionFilters(Filters):
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[Region], default_relations=RELATIONS, allowed_relations=RELATIONS,
    allowed_order=("name", "created_at", "updated_at", "id"), filters=RegionFilters, default_limit=100,
    max_limit=MAX_REFERENCE_LIMIT,
)
# Medusa v1 validates a retrieve with the list's class, so the list's keys are accepted there.
GET = LIST.one()


@bp.get("")
@cached()
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    regions, count = await list_regions(q.find(), **q.filters.comparisons())
    return json({"regions": dump_many(regions, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.get("/<region_id:str>")
@cached()
async def get(request: Request, region_id: str):
    q = parse_query(request.query_string, GET)
    region = await get_region(region_id, q.relations)
    return json({"region": dump_many([region], q.relations, q.fields)[0]})

"""Admin shipping profiles: `/admin/shipping-profiles`.

Unlike Medusa v1: the list answers every profile (Medusa stops at 10), with
`count`, `offset` and `limit`; the default and gift-card profiles stay one of each, keep their type
and cannot be deleted, and neither can a profile that still holds products or options.
A single profile shows its products (with their profiles) and its options, as in Medusa; `expand`
can leave them out.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError
from sanic import Blueprint, Request

from app.web.query import MAX_REFERENCE_LIMIT, ParsedQuery, QuerySpec, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, NonEmptyStr, max_length, parse_body, max_items
from models import ShippingProfile
from services.shipping.profiles import create_profile, delete_profile, get_profile, list_profiles, update_profile

bp = Blueprint("admin_shipping_profiles", url_prefix="/shipping-profiles")

RELATIONS = ("products", "products.profiles", "shipping_options")
MAX_TEXT = 255  # the name column's length
MAX_BATCH = 10_000  # one statement's parameters stay within what SQLite and PostgreSQL accept

ORDER = ("id", "name", "type", "created_at", "updated_at")
# A small reference list the dashboard loads whole (the shipping option form's profile picker).
LIST = QuerySpec(
    columns=COLUMNS[ShippingProfile], allowed_relations=RELATIONS, allowed_order=ORDER,
    default_limit=MAX_REFERENCE_LIMIT, max_limit=MAX_REFERENCE_LIMIT, default_order="created_at",
)
ONE = LIST.one(default_relations=RELATIONS)


def _ids(value: Any) -> Any:
    if isinstance(value, list) and not all(isinstance(v, str) for v in value):
        raise PydanticCustomError("invalid", "must be an array of strings")
    return value


Name = Annotated[NonEmptyStr, max_length(MAX_TEXT)]
Ids = Annotated[list[str], BeforeValidator(_ids), max_items(MAX_BATCH)]


class NewProfile(Body):
    name: Name
    type: str  # checked by the service, with Medusa's message
    metadata: dict[str, Any] | None = None


class ProfileChanges(Body):
    name: Name = None  # type: ignore[assignment]  # absent: kept; null: refused
    type: str = None  # type: ignore[assignment]
    metadata: dict[str, Any] | None = None
    products: Ids = None  # type: ignore[assignment]  # moved into this profile
    shipping_options: Ids = None  # type: ignore[assignment]  # moved into this profile


def _one(profile: ShippingProfile, q: ParsedQuery | None = None) -> dict:
    return {"shipping_profile": dump_many([profile], q.relations if q else (), q.fields if q else None)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    profiles, count = await list_profiles(q.find())
    return json({"shipping_profiles": dump_many(profiles, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, NewProfile)
    return json(_one(await create_profile(**body.model_dump())))


@bp.get("/<profile_id:str>")
async def get(request: Request, profile_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await get_profile(profile_id, q.relations), q))


@bp.post("/<profile_id:str>")
async def update(request: Request, profile_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, ProfileChanges)
    return json(_one(await update_profile(profile_id, q.relations, **body.model_dump(exclude_unset=True)), q))


@bp.delete("/<profile_id:str>")
async def delete(request: Request, profile_id: str):
    await delete_profile(profile_id)
    return deleted(profile_id, "shipping_profile")

"""Admin shipping options: `/admin/shipping-options`.

Unlike Medusa v1: `requirements` may be left out of an update (the set is then kept), a
requirement id names one of this option's own requirements, `admin_only` and `is_return` are
booleans (Medusa casts the string "false" to true), amounts are integers. `includes_tax`
(Medusa 1.20's tax-inclusive pricing, always on here) says the option's amount holds its tax.
The list prices each option with its taxes; a single option is not priced, as in Medusa.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sanic import Blueprint, Request

from app.shapes.shipping_options import dump_priced_options
from app.web.query import BoolStr, DateComparison, Filters, ParsedQuery, QuerySpec, StrList, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, NonEmptyStr, max_length, parse_body, max_items
from models import ShippingOption
from services.core.money import MAX_AMOUNT
from services.shipping.admin_options import (
    OptionFilter, RequirementInput, create_option, delete_option, get_option, list_options, update_option,
)

bp = Blueprint("admin_shipping_options", url_prefix="/shipping-options")

RELATIONS = ("region", "region.fulfillment_providers", "region.payment_providers", "profile", "requirements")
ORDER = ("id", "name", "region_id", "profile_id", "provider_id", "price_type", "amount", "is_return", "admin_only",
         "created_at", "updated_at")
MAX_TEXT = 255  # the name column's length
MAX_REQUIREMENTS = 10  # two types, one of each: a longer list is refused before any is read


class ListFilters(Filters):
    id: StrList = []
    name: str | None = None
    q: str | None = None
    region_id: str | None = None
    is_return: BoolStr = None
    admin_only: BoolStr = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    deleted_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[ShippingOption], default_relations=RELATIONS, allowed_relations=RELATIONS, allowed_order=ORDER,
    filters=ListFilters, default_limit=50,
)
ONE = LIST.one(filters=None)


Name = Annotated[NonEmptyStr, max_length(MAX_TEXT)]
Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]  # minor units, a BIGINT column


class NewRequirement(Body):
    type: str  # checked by the service, with Medusa's message
    amount: Amount


class RequirementChange(NewRequirement):
    id: NonEmptyStr | None = None  # absent: a new requirement


class NewOption(Body):
    name: Name
    region_id: NonEmptyStr
    provider_id: NonEmptyStr
    data: dict[str, Any]
    price_type: str  # checked by the service, with Medusa's message
    amount: Amount | None = None
    profile_id: NonEmptyStr | None = None  # absent: the default profile
    requirements: Annotated[list[NewRequirement], max_items(MAX_REQUIREMENTS)] = []
    is_return: bool = False
    admin_only: bool = False
    metadata: dict[str, Any] | None = None
    includes_tax: bool = False


class OptionChanges(Body):
    # An absent key keeps the value; null is refused where the column cannot be null.
    name: Name = None  # type: ignore[assignment]
    amount: Amount = None  # type: ignore[assignment]
    price_type: str = None  # type: ignore[assignment]
    admin_only: bool = None  # type: ignore[assignment]
    includes_tax: bool = None  # type: ignore[assignment]
    metadata: dict[str, Any] | None = None
    # Absent: the requirements are kept (Medusa v1 refuses that); a list replaces them.
    requirements: Annotated[
        list[RequirementChange], max_items(MAX_REQUIREMENTS)
    ] = None  # type: ignore[assignment]


def _requirements(items: list[NewRequirement] | None) -> list[RequirementInput] | None:
    if items is None:
        return None
    return [RequirementInput(type=r.type, amount=r.amount, id=getattr(r, "id", None)) for r in items]


def _one(option: ShippingOption, q: ParsedQuery) -> dict:
    return {"shipping_option": dump_many([option], q.relations, q.fields)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    f = OptionFilter(**q.filters.plain(), **q.filters.comparisons())
    options, count = await list_options(f, q.find())
    return json({"shipping_options": dump_priced_options(options, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, NewOption)
    fields = body.model_dump(exclude={"requirements"})
    option = await create_option(**fields, requirements=_requirements(body.requirements), relations=q.relations)
    return json(_one(option, q))


@bp.get("/<option_id:str>")
async def get(request: Request, option_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await get_option(option_id, q.relations), q))


@bp.post("/<option_id:str>")
async def update(request: Request, option_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, OptionChanges)
    changes = body.model_dump(exclude_unset=True, exclude={"requirements"})
    option = await update_option(option_id, q.relations, **changes, requirements=_requirements(body.requirements))
    return json(_one(option, q))


@bp.delete("/<option_id:str>")
async def delete(request: Request, option_id: str):
    await delete_option(option_id)
    return deleted(option_id, "shipping-option")

"""Admin discounts: `/admin/discounts`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator
from sanic import Blueprint, Request

from app.web.query import BoolStr, DateComparison, Filters, ParsedQuery, QuerySpec, parse_query
from app.web.serialize import COLUMNS, dump_many
from app.web.responses import json
from app.web.validation import Body, DateTime, NonEmptyStr, parse_body, max_items, MAX_FEW
from models import Discount, DiscountCondition
from models.discount import CONDITION_TYPES
from services.discounts import conditions
from services.discounts import discounts
from services.discounts.conditions import ConditionInput
from services.discounts.discounts import DiscountFilter, RuleInput
from services.core.errors import InvalidData

bp = Blueprint("admin_discounts", url_prefix="/discounts")

MAX_BATCH = 10_000  # one statement's parameters stay within what SQLite and PostgreSQL accept

_CONDITION_RELATIONS = ("products", "product_types", "product_tags", "product_collections", "customer_groups")
RELATIONS = (
    "parent_discount", "parent_discount.regions", "parent_discount.rule", "regions", "rule", "rule.conditions",
    *(f"rule.conditions.{r}" for r in _CONDITION_RELATIONS), "rule.conditions.products.profiles",
)
DEFAULT_RELATIONS = ("parent_discount", "regions", "rule", "rule.conditions")


class RuleFilter(Filters):
    type: Literal["fixed", "percentage", "free_shipping"] | None = None
    allocation: Literal["total", "item"] | None = None


class ListFilters(Filters):
    q: str | None = None
    rule: RuleFilter | None = None
    is_dynamic: BoolStr = None
    is_disabled: BoolStr = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[Discount], default_relations=DEFAULT_RELATIONS, allowed_relations=RELATIONS,
    allowed_order=("id", "code", "created_at", "updated_at", "starts_at", "ends_at", "usage_count"),
    filters=ListFilters, default_limit=20,
)
ONE = LIST.one(filters=None)
# Medusa's default columns of a condition (no metadata, no deleted_at) when `fields` is not sent.
CONDITION_FIELDS = frozenset(("id", "type", "operator", "discount_rule_id", "created_at", "updated_at"))
CONDITION = QuerySpec(
    columns=COLUMNS[DiscountCondition], default_relations=("discount_rule",),
    allowed_relations=("discount_rule", *_CONDITION_RELATIONS, "products.profiles"), is_list=False,
)


# ---------------------------------------------------------------- bodies

Ids = Annotated[list[str], max_items(MAX_BATCH)]


class _Resources(Body):
    products: Ids | None = None
    product_types: Ids | None = None
    product_collections: Ids | None = None
    product_tags: Ids | None = None
    customer_groups: Ids | None = None

    @model_validator(mode="after")
    def _one_kind(self):
        present = [n for n in ("products", "product_types", "product_collections", "product_tags",
                               "customer_groups") if getattr(self, n) is not None]
        if len(present) > 1:
            raise InvalidData(", ".join(f"Only one of {a}, {b} is allowed" for a in present for b in present if a != b))
        return self

    def to_input(self, **extra) -> ConditionInput:
        return ConditionInput(resources={k: getattr(self, k) for k in CONDITION_TYPES if getattr(self, k)}, **extra)


class NewCondition(_Resources):
    operator: NonEmptyStr

    def to_input(self) -> ConditionInput:
        return super().to_input(operator=self.operator)


class ConditionChange(_Resources):
    id: NonEmptyStr | None = None
    operator: NonEmptyStr | None = None

    def to_input(self) -> ConditionInput:
        return super().to_input(operator=self.operator, id=self.id)


class NewRule(Body):
    # Any value: the service refuses what is not one of its kinds with Medusa's own message.
    type: Any = None
    value: int
    allocation: Any = None
    description: str | None = None
    conditions: Annotated[list[NewCondition], max_items(MAX_FEW)] = []


class RuleChange(Body):
    id: NonEmptyStr
    value: int | None = None
    allocation: Any = None
    description: str | None = None
    conditions: Annotated[list[ConditionChange], max_items(MAX_FEW)] = []


def _region_ids(value: Any) -> Any:
    """Medusa's wording (IsString each, then IsArray), also for an absent `regions`."""
    problems = []
    if not all(isinstance(v, str) for v in (value if isinstance(value, list) else [value])):
        problems.append("each value in regions must be a string")
    if not isinstance(value, list):
        problems.append("regions must be an array")
    if problems:
        raise InvalidData(", ".join(problems))
    return value


RegionIds = Annotated[list[str], BeforeValidator(_region_ids), max_items(MAX_FEW)]


class NewDiscount(Body):
    code: NonEmptyStr
    rule: NewRule
    regions: RegionIds = Field(default=None, validate_default=True)  # absent: Medusa's two messages
    is_dynamic: bool = False
    is_disabled: bool = False
    starts_at: DateTime | None = None
    ends_at: DateTime | None = None
    valid_duration: str | None = None
    usage_limit: int | None = None
    metadata: dict[str, Any] | None = None


class DiscountChange(Body):
    # An absent key leaves the column alone; null clears ends_at, valid_duration and usage_limit.
    code: NonEmptyStr = None  # type: ignore[assignment]
    rule: RuleChange | None = None
    is_disabled: bool = None  # type: ignore[assignment]
    starts_at: DateTime = None  # type: ignore[assignment]
    ends_at: DateTime | None = None
    valid_duration: str | None = None
    usage_limit: int | None = None
    regions: RegionIds = None  # type: ignore[assignment]
    metadata: dict[str, Any] | None = None


class NewDynamicCode(Body):
    code: NonEmptyStr
    usage_limit: int | None = None
    metadata: dict[str, Any] | None = None


class ResourceRef(Body):
    id: NonEmptyStr


class ResourceBatch(Body):
    resources: Annotated[list[ResourceRef], max_items(MAX_BATCH)]

    def ids(self) -> list[str]:
        return [r.id for r in self.resources]


def _rule_input(rule: NewRule | RuleChange) -> RuleInput:
    return RuleInput(
        type=getattr(rule, "type", None), value=rule.value, allocation=rule.allocation,
        description=rule.description, id=getattr(rule, "id", None),
        conditions=[c.to_input() for c in rule.conditions],
    )


# ---------------------------------------------------------------- responses

def _dump(discount: Discount, q: ParsedQuery | None = None) -> dict:
    relations = q.relations if q else DEFAULT_RELATIONS
    return dump_many([discount], relations, q.fields if q else None)[0]


def _one(discount: Discount, q: ParsedQuery | None = None):
    return json({"discount": _dump(discount, q)})


# ---------------------------------------------------------------- discounts

@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    found, count = await discounts.list_discounts(
        DiscountFilter(**q.filters.plain(), **q.filters.comparisons()), q.find()
    )
    return json({"discounts": dump_many(found, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, NewDiscount)
    fields = body.model_dump(exclude={"rule"})
    return _one(await discounts.create_discount(**fields, rule=_rule_input(body.rule), relations=q.relations), q)


@bp.get("/code/<code:str>")
async def get_by_code(request: Request, code: str):
    q = parse_query(request.query_string, ONE)
    return _one(await discounts.get_discount_by_code(code, q.relations), q)


@bp.get("/<discount_id:str>")
async def get(request: Request, discount_id: str):
    q = parse_query(request.query_string, ONE)
    return _one(await discounts.get_discount(discount_id, q.relations), q)


@bp.post("/<discount_id:str>")
async def update(request: Request, discount_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, DiscountChange)
    changes = body.model_dump(exclude_unset=True, exclude={"rule"})
    rule = _rule_input(body.rule) if body.rule is not None else None
    return _one(await discounts.update_discount(discount_id, q.relations, rule=rule, **changes), q)


@bp.delete("/<discount_id:str>")
async def delete(request: Request, discount_id: str):
    await discounts.delete_discount(discount_id)
    return json({"id": discount_id, "object": "discount", "deleted": True})


# ---------------------------------------------------------------- conditions

@bp.post("/<discount_id:str>/conditions")
async def create_condition(request: Request, discount_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, NewCondition)
    discount = await discounts.get_discount(discount_id)
    await conditions.upsert_condition(discount.rule_id, body.to_input(), discount.id)
    return _one(await discounts.get_discount(discount_id, q.relations), q)


@bp.get("/<discount_id:str>/conditions/<condition_id:str>")
async def get_condition(request: Request, discount_id: str, condition_id: str):
    discount = await discounts.get_discount(discount_id)
    q = parse_query(request.query_string, CONDITION)
    condition = await conditions.get_owned_condition(discount, condition_id, q.relations)
    return json({"discount_condition": dump_many([condition], q.relations, q.fields or CONDITION_FIELDS)[0]})


@bp.post("/<discount_id:str>/conditions/<condition_id:str>")
async def update_condition(request: Request, discount_id: str, condition_id: str):
    discount = await discounts.get_discount(discount_id)
    await conditions.get_owned_condition(discount, condition_id)
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, _Resources)
    await conditions.upsert_condition(discount.rule_id, body.to_input(id=condition_id), discount.id)
    return _one(await discounts.get_discount(discount_id, q.relations), q)


@bp.delete("/<discount_id:str>/conditions/<condition_id:str>")
async def delete_condition(request: Request, discount_id: str, condition_id: str):
    q = parse_query(request.query_string, ONE)
    discount = await discounts.get_discount(discount_id)
    await conditions.delete_condition(discount, condition_id)
    discount = await discounts.get_discount(discount_id, q.relations)
    return json({"id": condition_id, "object": "discount-condition", "deleted": True,
                 "discount": _dump(discount, q)})


async def _change_resources(request: Request, discount_id: str, condition_id: str, change):
    """Batch add or remove: ownership first, then the query, then the body (Medusa's order)."""
    discount = await discounts.get_discount(discount_id)
    condition = await conditions.get_owned_condition(discount, condition_id)
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, ResourceBatch)
    await change(condition, body.ids())
    return _one(await discounts.get_discount(discount_id, q.relations), q)


@bp.post("/<discount_id:str>/conditions/<condition_id:str>/batch")
async def add_resources(request: Request, discount_id: str, condition_id: str):
    return await _change_resources(request, discount_id, condition_id, conditions.add_resources)


@bp.delete("/<discount_id:str>/conditions/<condition_id:str>/batch")
async def remove_resources(request: Request, discount_id: str, condition_id: str):
    return await _change_resources(request, discount_id, condition_id, conditions.remove_resources)


# ---------------------------------------------------------------- dynamic codes and regions

@bp.post("/<discount_id:str>/dynamic-codes")
async def create_dynamic_code(request: Request, discount_id: str):
    body = parse_body(request, NewDynamicCode)
    return _one(await discounts.create_dynamic_code(discount_id, **body.model_dump(), relations=DEFAULT_RELATIONS))


@bp.delete("/<discount_id:str>/dynamic-codes/<code:str>")
async def delete_dynamic_code(request: Request, discount_id: str, code: str):
    return _one(await discounts.delete_dynamic_code(discount_id, code, DEFAULT_RELATIONS))


@bp.post("/<discount_id:str>/regions/<region_id:str>")
async def add_region(request: Request, discount_id: str, region_id: str):
    return _one(await discounts.add_region(discount_id, region_id, DEFAULT_RELATIONS))


@bp.delete("/<discount_id:str>/regions/<region_id:str>")
async def remove_region(request: Request, discount_id: str, region_id: str):
    return _one(await discounts.remove_region(discount_id, region_id, DEFAULT_RELATIONS))

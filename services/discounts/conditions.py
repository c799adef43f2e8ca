"""Discount conditions: which products, types, collections, tags or customer groups a rule is
limited to (`in`) or kept away from (`not_in`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tortoise.models import Model

from models import (
    CustomerGroup, Discount, DiscountCondition, DiscountRule, Product, ProductCollection, ProductTag, ProductType,
)
from models.discount import CONDITION_TYPES, OPERATORS
from services.core.db import atomic
from services.core.errors import Duplicate, InvalidData, NotFound
from services.core.ids import fits

__all__ = [
    "ConditionInput", "upsert_condition", "get_owned_condition", "delete_condition", "add_resources",
    "remove_resources", "condition_not_owned", "MISSING_RESOURCES", "ALIASES",
]

ALIASES = {"profiles": "profile"}  # `products.profiles` is stored as `profile`
MISSING_RESOURCES = "Missing one of products, collections, tags, types or customer groups in data"

# The model each condition type points at, and how Medusa v1 names its table in a not-found message.
_TARGETS: dict[str, tuple[type[Model], str]] = {
    "products": (Product, "Product with product_id"),
    "product_collections": (ProductCollection, "Product_collection with product_collection_id"),
    "product_types": (ProductType, "Product_type with product_type_id"),
    "product_tags": (ProductTag, "Product_tag with product_tag_id"),
    "customer_groups": (CustomerGroup, "Customer_group with customer_group_id"),
}


@dataclass
class ConditionInput:
    """A condition as a request gives it: at most one resource list, named by its type."""

    operator: str | None = None
    id: str | None = None
    resources: dict[str, list[str]] = field(default_factory=dict)

    def kind(self) -> str:
        """The condition type: the first non-empty list in Medusa v1's order of types."""
        for name in CONDITION_TYPES:
            if self.resources.get(name):
                return name
        raise InvalidData(MISSING_RESOURCES)


def condition_not_owned(condition_id: str, discount_id: str) -> InvalidData:
    # One answer on every route, for a condition of another discount (Medusa gives 400 or 404).
    return InvalidData(f"Condition with id {condition_id} does not belong to Discount with id {discount_id}")


def _check_operator(operator: str) -> None:
    if operator not in OPERATORS:
        raise InvalidData("operator must be one of the following values: in, not_in")


async def _targets(kind: str, ids: list[str]) -> list[Model]:
    """The live rows for `ids`, all of them or a NotFound naming the first missing one."""
    model, label = _TARGETS[kind]
    wanted = list(dict.fromkeys(ids))
    rows = await model.filter(id__in=wanted, deleted_at=None) if wanted else []
    found = {r.id for r in rows}
    for resource_id in wanted:
        if resource_id not in found:
            raise NotFound(f"{label} {resource_id} does not exist.")
    return rows


def _relation(condition: DiscountCondition, kind: str):
    return getattr(condition, kind)


async def upsert_condition(rule_id: str, data: ConditionInput, discount_id: str) -> DiscountCondition:
    """Create a condition on the rule, or (with `data.id`) change the operator of one of its own
    conditions and replace its resources. Runs inside the caller's transaction."""
    kind = data.kind()
    targets = await _targets(kind, data.resources[kind])
    async with atomic():
        # One change to a rule's conditions at a time: the duplicate check below must hold under races.
        await DiscountRule.select_for_update().get(id=rule_id)
        if data.id:
            condition = await DiscountCondition.get_or_none(id=data.id)
            if condition is None:
                raise NotFound(f"DiscountCondition with id {data.id} was not found")
            if condition.discount_rule_id != rule_id:
                raise condition_not_owned(data.id, discount_id)
            if kind != condition.type:
                raise InvalidData(f"Condition with id {data.id} holds {condition.type}, not {kind}")
            if data.operator is not None and data.operator != condition.operator:
                _check_operator(data.operator)
                await _refuse_duplicate(rule_id, condition.type, data.operator, exclude=condition.id)
                condition.operator = data.operator
                await condition.save(update_fields=["operator", "updated_at"])
            relation = _relation(condition, kind)
            await relation.clear()
            await relation.add(*targets)
            return condition
        if data.operator is None:
            raise InvalidData("operator should not be empty")
        _check_operator(data.operator)
        await _refuse_duplicate(rule_id, kind, data.operator)
        condition = await DiscountCondition.create(type=kind, operator=data.operator, discount_rule_id=rule_id)
        await _relation(condition, kind).add(*targets)
        return condition


async def _refuse_duplicate(rule_id: str, kind: str, operator: str, exclude: str | None = None) -> None:
    qs = DiscountCondition.filter(discount_rule_id=rule_id, type=kind, operator=operator)
    if exclude:
        qs = qs.exclude(id=exclude)
    if await qs.exists():
        raise Duplicate(
            f"Discount Condition with operator '{operator}' and type '{kind}' already exist on a Discount Rule",
            code="invalid_request_error",
        )


async def get_owned_condition(
    discount: Discount, condition_id: str, relations: tuple[str, ...] = ()
) -> DiscountCondition:
    """The discount's condition, or NotFound when there is none with that id, or the ownership
    error when it belongs to another discount's rule."""
    from services.core.listing import find_one

    condition = None
    if fits(DiscountCondition, condition_id):
        condition = await find_one(DiscountCondition.filter(id=condition_id), relations, ALIASES)
    if condition is None:
        raise NotFound(f"DiscountCondition with id {condition_id} was not found")
    if condition.discount_rule_id != discount.rule_id:
        raise condition_not_owned(condition_id, discount.id)
    return condition


async def delete_condition(discount: Discount, condition_id: str) -> None:
    """A hard delete; a condition that is not there is not an error (idempotent)."""
    async with atomic():
        condition = None
        if fits(DiscountCondition, condition_id):
            condition = await DiscountCondition.get_or_none(id=condition_id)
        if condition is None:
            return
        if condition.discount_rule_id != discount.rule_id:
            raise condition_not_owned(condition_id, discount.id)
        await condition.delete()  # its resource links go with it (ON DELETE CASCADE)


async def add_resources(condition: DiscountCondition, ids: list[str]) -> None:
    """Adds links of the condition's own type; links already there stay (idempotent)."""
    if not ids:
        raise InvalidData(MISSING_RESOURCES)
    targets = await _targets(condition.type, ids)
    async with atomic():
        # Simultaneous adds take turns, so each sees the links the others made.
        await DiscountCondition.select_for_update().get(id=condition.id)
        relation = _relation(condition, condition.type)
        present = {r.id for r in await relation.all().only("id")}
        fresh = [t for t in targets if t.id not in present]
        if fresh:
            await relation.add(*fresh)


async def remove_resources(condition: DiscountCondition, ids: list[str]) -> None:
    """Removes those links only; ids that are not linked are ignored."""
    if not ids:
        raise InvalidData(MISSING_RESOURCES)
    model, _ = _TARGETS[condition.type]
    rows = await model.filter(id__in=list(dict.fromkeys(ids)))
    if rows:
        await _relation(condition, condition.type).remove(*rows)

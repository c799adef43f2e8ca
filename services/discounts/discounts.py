"""Discounts as a merchant manages them: codes, rules, regions and dynamic codes. What a discount
is worth to a cart is decided in `services.discounts.engine`."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from tortoise.exceptions import IntegrityError
from tortoise.queryset import QuerySet

from models import Discount, DiscountRule, Region
from models.discount import ALLOCATIONS, RULE_TYPES
from services.core.db import atomic
from services.discounts.conditions import ALIASES, ConditionInput, upsert_condition
from services.core.durations import add_duration, parse_duration
from services.core.errors import Duplicate, InvalidData, NotAllowed, NotFound
from services.core.ids import fits, fitting
from services.core.listing import FindConfig, date_filters, find_one, find_page
from services.core.metadata import merge_metadata
from services.core.money import MAX_AMOUNT
from services.core.updates import save_changes

__all__ = [
    "KEEP", "RuleInput", "DiscountFilter", "list_discounts", "get_discount", "get_discount_by_code",
    "create_discount", "update_discount", "delete_discount", "create_dynamic_code", "delete_dynamic_code",
    "add_region", "remove_region", "normalize_code", "ALIASES",
]

KEEP: Any = object()  # an update argument left as KEEP leaves its column as it is
MAX_VALUE = 2**31 - 1  # `usage_limit` is a 32-bit integer column


@dataclass
class RuleInput:
    type: str | None = None
    value: int | None = None
    allocation: str | None = None
    description: str | None = None
    id: str | None = None
    conditions: list[ConditionInput] = field(default_factory=list)


@dataclass
class DiscountFilter:
    q: str | None = None  # part of the code, any case
    rule: dict | None = None  # {"type": ..., "allocation": ...}
    is_dynamic: bool | None = None
    is_disabled: bool | None = None
    created_at: dict | None = None
    updated_at: dict | None = None


def normalize_code(code: str) -> str:
    return code.strip().upper()


def _live() -> QuerySet:
    return Discount.filter(deleted_at=None)


def _not_found(discount_id: str) -> NotFound:
    return NotFound(f"Discount with id {discount_id} was not found")


def _duplicate(code: str) -> Duplicate:
    return Duplicate(f"Discount with code {code} already exists.", code="invalid_request_error")


async def list_discounts(f: DiscountFilter, config: FindConfig) -> tuple[list[Discount], int]:
    qs = _live().filter(**date_filters(created_at=f.created_at, updated_at=f.updated_at))
    if f.q:
        qs = qs.filter(code__icontains=f.q.strip())
    for key, value in (f.rule or {}).items():
        if value is not None:
            qs = qs.filter(**{f"rule__{key}": value})
    if f.is_dynamic is not None:
        qs = qs.filter(is_dynamic=f.is_dynamic)
    if f.is_disabled is not None:
        qs = qs.filter(is_disabled=f.is_disabled)
    return await find_page(qs, config, ALIASES)


async def get_discount(discount_id: str, relations: tuple[str, ...] = ()) -> Discount:
    discount = None
    if fits(Discount, discount_id):
        discount = await find_one(_live().filter(id=discount_id), relations, ALIASES)
    if discount is None:
        raise _not_found(discount_id)
    return discount


async def get_discount_by_code(code: str, relations: tuple[str, ...] = ()) -> Discount:
    discount = None
    wanted = normalize_code(code)
    if wanted and fits(Discount, wanted, "code"):
        discount = await find_one(_live().filter(code=wanted), relations, ALIASES)
    if discount is None:
        raise NotFound(f"Discounts with code {code} was not found")
    return discount


# ---------------------------------------------------------------- checks shared by create and update

def _check_code(code: str) -> str:
    normalized = normalize_code(code)
    if not normalized:
        raise InvalidData("code should not be empty")
    if len(normalized) > 255:
        raise InvalidData("code must be shorter than or equal to 255 characters")
    return normalized


def _check_rule_value(kind: str, value: int) -> None:
    if value < 0:
        raise InvalidData("value must not be less than 0")
    if value > MAX_AMOUNT:  # a BIGINT column, minor units for a fixed discount
        raise InvalidData(f"value must not be greater than {MAX_AMOUNT}")
    if kind == "percentage" and value > 100:
        raise InvalidData("Discount value above 100 is not allowed when type is percentage")


def _check_allocation(allocation: str | None) -> None:
    if allocation is not None and allocation not in ALLOCATIONS:
        raise InvalidData('Invalid allocation type, must be one of "total" or "item"')


def _check_window(starts_at: datetime | None, ends_at: datetime | None) -> None:
    if starts_at is not None and ends_at is not None and ends_at <= starts_at:
        raise InvalidData('"ends_at" must be greater than "starts_at"')


def _check_usage_limit(usage_limit: int | None) -> None:
    if usage_limit is not None and not 0 < usage_limit <= MAX_VALUE:
        raise InvalidData("usage_limit must be a positive number")


def _check_duration(valid_duration: str | None) -> None:
    if valid_duration is not None:
        parse_duration(valid_duration)


async def _regions(region_ids: list[str], kind: str) -> list[Region]:
    """Medusa v1's order: a fixed discount has one region, each must exist, and at least one."""
    wanted = list(dict.fromkeys(region_ids))
    if kind == "fixed" and len(wanted) > 1:
        raise InvalidData("Fixed discounts can have one region")
    found = {r.id: r for r in await Region.filter(id__in=fitting(Region, wanted), deleted_at=None)}
    for region_id in wanted:
        if region_id not in found:
            raise NotFound(f"Region with {region_id} was not found")
    if not wanted:
        raise InvalidData("Discount must have at least 1 region")
    return [found[r] for r in wanted]


async def _insert(code: str, **columns: Any) -> Discount:
    """Insert with the live-code check, and the unique index as the last word under a race."""
    if await _live().filter(code=code).exists():
        raise _duplicate(code)
    try:
        async with atomic():
            return await Discount.create(code=code, **columns)
    except IntegrityError:
        raise _duplicate(code) from None


# ---------------------------------------------------------------- create, update, delete

async def create_discount(
    *, code: str, rule: RuleInput, regions: list[str], is_dynamic: bool = False, is_disabled: bool = False,
    starts_at: datetime | None = None, ends_at: datetime | None = None, valid_duration: str | None = None,
    usage_limit: int | None = None, metadata: dict | None = None, relations: tuple[str, ...] = (),
) -> Discount:
    code = _check_code(code)
    if rule.type not in RULE_TYPES:
        raise InvalidData('Invalid rule type, must be one of "fixed", "percentage" or "free_shipping"')
    if rule.value is None:
        raise InvalidData("value should not be empty")
    _check_allocation(rule.allocation)
    _check_window(starts_at, ends_at)
    _check_duration(valid_duration)
    _check_usage_limit(usage_limit)
    _check_rule_value(rule.type, rule.value)
    async with atomic():
        found_regions = await _regions(regions, rule.type)
        stored_rule = await DiscountRule.create(
            type=rule.type, value=rule.value, allocation=rule.allocation, description=rule.description,
        )
        discount = await _insert(
            code, rule_id=stored_rule.id, is_dynamic=is_dynamic, is_disabled=is_disabled,
            starts_at=starts_at or datetime.now(timezone.utc), ends_at=ends_at, valid_duration=valid_duration,
            usage_limit=usage_limit, metadata=metadata,
        )
        await discount.regions.add(*found_regions)
        for condition in rule.conditions:
            await upsert_condition(stored_rule.id, condition, discount.id)
    return await get_discount(discount.id, relations)


async def update_discount(
    discount_id: str, relations: tuple[str, ...] = (), *, code: str = KEEP, rule: RuleInput | None = None,
    is_disabled: bool = KEEP, starts_at: datetime = KEEP, ends_at: datetime | None = KEEP,
    valid_duration: str | None = KEEP, usage_limit: int | None = KEEP, regions: list[str] = KEEP,
    metadata: dict | None = None,
) -> Discount:
    """Change what was sent; `None` clears `ends_at`, `valid_duration` and `usage_limit`."""
    async with atomic():
        discount = None
        if fits(Discount, discount_id):
            discount = await _live().select_for_update().get_or_none(id=discount_id)
        if discount is None:
            raise _not_found(discount_id)
        stored_rule = await DiscountRule.get(id=discount.rule_id)
        changes: dict[str, Any] = {}
        if code is not KEEP:
            changes["code"] = _check_code(code)
            if changes["code"] != discount.code and await _live().filter(code=changes["code"]).exists():
                raise _duplicate(changes["code"])
        for name, value in (("is_disabled", is_disabled), ("starts_at", starts_at), ("ends_at", ends_at),
                            ("valid_duration", valid_duration), ("usage_limit", usage_limit)):
            if value is not KEEP:
                changes[name] = value
        # A sent bound is checked against what the discount will hold (Medusa compares the stored
        # start); an update that sends neither leaves a window alone, as create accepted it.
        if "starts_at" in changes or "ends_at" in changes:
            _check_window(changes.get("starts_at", discount.starts_at), changes.get("ends_at", discount.ends_at))
        _check_duration(changes.get("valid_duration"))
        _check_usage_limit(changes.get("usage_limit"))
        if metadata is not None:
            changes["metadata"] = merge_metadata(discount.metadata, metadata)
        if rule is not None:
            await _update_rule(discount, stored_rule, rule)
        if regions is not KEEP:
            # An empty list clears the regions (as Medusa v1 and removing the last region do).
            found = await _regions(regions, stored_rule.type) if regions else []
            await discount.regions.clear()
            await discount.regions.add(*found)
        if changes:
            discount.update_from_dict(changes)
            async with atomic():
                await save_changes(discount, list(changes), duplicate=_duplicate(changes.get("code")))
    return await get_discount(discount_id, relations)


async def _update_rule(discount: Discount, stored: DiscountRule, rule: RuleInput) -> None:
    if rule.id != stored.id:
        raise InvalidData(f"Rule with id {rule.id} does not belong to Discount with id {discount.id}")
    changed = []
    if rule.value is not None:
        _check_rule_value(stored.type, rule.value)
        stored.value = rule.value
        changed.append("value")
    if rule.allocation is not None:
        _check_allocation(rule.allocation)
        stored.allocation = rule.allocation
        changed.append("allocation")
    if rule.description is not None:
        stored.description = rule.description
        changed.append("description")
    await save_changes(stored, changed)
    for condition in rule.conditions:
        await upsert_condition(stored.id, condition, discount.id)


async def delete_discount(discount_id: str) -> None:
    """A soft delete, idempotent. The discount's dynamic codes go with it: a code whose parent is
    gone must not keep working (Medusa v1 leaves them redeemable)."""
    now = datetime.now(timezone.utc)
    async with atomic():
        await _live().filter(parent_discount_id=discount_id).update(deleted_at=now)
        await _live().filter(id=discount_id).update(deleted_at=now)


# ---------------------------------------------------------------- dynamic codes and regions

async def create_dynamic_code(
    parent_id: str, *, code: str, usage_limit: int | None = None, metadata: dict | None = None,
    relations: tuple[str, ...] = (),
) -> Discount:
    """A child code on the parent's rule. Its limit is the one sent, else the parent's, else 1
    (Medusa v1 overwrites a sent limit with the parent's). It ends `valid_duration` after now."""
    code = _check_code(code)
    _check_usage_limit(usage_limit)
    async with atomic():
        parent = await get_discount(parent_id)
        if not parent.is_dynamic:
            raise NotAllowed("Discount must be set to dynamic")
        now = datetime.now(timezone.utc)
        child = await _insert(
            code, rule_id=parent.rule_id, is_dynamic=True, is_disabled=False, parent_discount_id=parent.id,
            starts_at=now,
            ends_at=add_duration(now, parent.valid_duration) if parent.valid_duration else None,
            usage_limit=usage_limit if usage_limit is not None else (parent.usage_limit or 1),
            metadata=metadata,
        )
    return await get_discount(child.id, relations)


async def delete_dynamic_code(parent_id: str, code: str, relations: tuple[str, ...] = ()) -> Discount:
    """Soft-deletes the parent's child with this code (as stored: upper case); a code that is not
    there is not an error, a code of another discount is refused."""
    async with atomic():
        parent = await get_discount(parent_id)
        child = await _live().filter(code=code).first() if len(code) <= 255 else None
        if child is not None:
            if child.parent_discount_id != parent.id:
                raise InvalidData(f"Discount with code {code} does not belong to Discount with id {parent_id}")
            await _live().filter(id=child.id).update(deleted_at=datetime.now(timezone.utc))
    return await get_discount(parent_id, relations)


async def add_region(discount_id: str, region_id: str, relations: tuple[str, ...] = ()) -> Discount:
    async with atomic():
        # Simultaneous adds take turns: a fixed discount must end with one region, and a region once.
        if fits(Discount, discount_id):
            await _live().select_for_update().get_or_none(id=discount_id)
        discount = await get_discount(discount_id, ("rule", "regions"))
        attached = [r.id for r in discount.regions]
        if region_id not in attached:
            if discount.rule.type == "fixed" and attached:
                raise InvalidData("Fixed discounts can have one region")
            (region,) = await _regions([region_id], discount.rule.type)
            await discount.regions.add(region)
    return await get_discount(discount_id, relations)


async def remove_region(discount_id: str, region_id: str, relations: tuple[str, ...] = ()) -> Discount:
    async with atomic():
        discount = await get_discount(discount_id)
        region = await Region.get_or_none(id=region_id) if fits(Region, region_id) else None
        if region is not None:
            await discount.regions.remove(region)
    return await get_discount(discount_id, relations)

"""Customer groups: named sets of customers (price lists and discount conditions point at them)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from tortoise.exceptions import IntegrityError
from tortoise.queryset import QuerySet

from models import Customer, CustomerGroup
from services.customers.customers import CustomerFilter, list_customers
from services.core.db import atomic
from services.core.errors import Duplicate, NotFound
from services.core.listing import FindConfig, date_filters, find_one, find_page
from services.core.updates import apply_changes, save_changes

__all__ = [
    "GroupFilter", "list_groups", "get_group", "create_group", "update_group", "delete_group",
    "list_group_customers", "add_customers", "remove_customers",
]


@dataclass
class GroupFilter:
    q: str | None = None  # case-insensitive, over the name
    id: list[str] = field(default_factory=list)
    name: list[str] = field(default_factory=list)  # exact names
    discount_condition_id: str | None = None  # only those a discount condition names
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None


def _not_found(group_id: str) -> NotFound:
    return NotFound(f"CustomerGroup with id {group_id} was not found")


def _duplicate(name: str) -> Duplicate:
    # Medusa v1 answers a create with the raw PostgreSQL detail and an update with this; we use this for both.
    return Duplicate(f"Customer_group with name {name} already exists.")


def _live() -> QuerySet:
    return CustomerGroup.filter(deleted_at=None)


async def list_groups(f: GroupFilter, config: FindConfig) -> tuple[list[CustomerGroup], int]:
    qs = _live().filter(**date_filters(created_at=f.created_at, updated_at=f.updated_at))
    if f.q:
        qs = qs.filter(name__icontains=f.q)
    if f.id:
        qs = qs.filter(id__in=f.id)
    if f.name:
        qs = qs.filter(name__in=f.name)
    if f.discount_condition_id is not None:
        qs = qs.filter(discount_conditions__id=f.discount_condition_id)
    return await find_page(qs, config)


async def get_group(group_id: str, relations: tuple[str, ...] = ()) -> CustomerGroup:
    group = await find_one(_live().filter(id=group_id), relations)
    if group is None:
        raise _not_found(group_id)
    return group


async def create_group(*, name: str, metadata: dict | None = None) -> CustomerGroup:
    try:
        async with atomic():
            if await _live().filter(name=name).exists():
                raise _duplicate(name)
            return await CustomerGroup.create(name=name, metadata=metadata)
    except IntegrityError:  # a concurrent create took the name between the check and the insert
        raise _duplicate(name) from None


async def update_group(
    group_id: str, relations: tuple[str, ...] = (), *, name: str | None = None, metadata: dict | None = None
) -> CustomerGroup:
    """Rename or re-tag a group (metadata merged) and return it with `relations`."""
    async with atomic():
        group = await _live().select_for_update().get_or_none(id=group_id)
        if group is None:
            raise _not_found(group_id)
        if name is not None and name != group.name and await _live().filter(name=name).exclude(id=group_id).exists():
            raise _duplicate(name)
        changed = apply_changes(group, {"name": name}, metadata=metadata)
        await save_changes(group, changed, duplicate=_duplicate(name))
    return await get_group(group_id, relations)


async def delete_group(group_id: str) -> None:
    """A hard delete with its memberships; deleting a group that is not there is not an error."""
    async with atomic():
        group = await CustomerGroup.get_or_none(id=group_id)
        if group is not None:
            await group.customers.clear()
            await group.delete()


async def list_group_customers(
    group_id: str, f: CustomerFilter, config: FindConfig
) -> tuple[list[Customer], int]:
    """The group's live customers; an unknown group is a NotFound (Medusa v1 answers an empty list)."""
    if not await _live().filter(id=group_id).exists():
        raise _not_found(group_id)
    return await list_customers(replace(f, groups=[group_id]), config)


async def add_customers(group_id: str, customer_ids: list[str]) -> CustomerGroup:
    """All or nothing: any unknown customer id adds none. Members already in stay (idempotent)."""
    wanted = list(dict.fromkeys(customer_ids))
    async with atomic():
        # The row lock makes concurrent batches on one group take turns (PostgreSQL).
        group = await _live().select_for_update().get_or_none(id=group_id)
        if group is None:
            raise _not_found(group_id)
        customers = await Customer.filter(id__in=wanted, deleted_at=None) if wanted else []
        found = {c.id for c in customers}
        missing = [c for c in wanted if c not in found]
        if missing:
            raise NotFound(f'The following customer ids do not exist: "{", ".join(missing)}"')
        await group.customers.add(*customers)
    return group


async def remove_customers(group_id: str, customer_ids: list[str]) -> CustomerGroup:
    """Ends these memberships of this group only; ids that are not members are ignored."""
    wanted = list(dict.fromkeys(customer_ids))
    async with atomic():
        group = await _live().select_for_update().get_or_none(id=group_id)
        if group is None:
            raise _not_found(group_id)
        members = await Customer.filter(id__in=wanted) if wanted else []
        if members:
            await group.customers.remove(*members)
    return group

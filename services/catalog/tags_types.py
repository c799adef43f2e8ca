"""Product tags and product types: the values products are labelled with, listed for the admin's
filters and the storefront's."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from tortoise.expressions import Subquery
from tortoise.queryset import QuerySet

from models import DiscountCondition, ProductTag, ProductType
from services.core.listing import FindConfig, date_filters, find_page

__all__ = ["ValueFilter", "list_tags", "list_types"]


@dataclass
class ValueFilter:
    q: str | None = None  # case-insensitive, within the value
    id: list[str] = field(default_factory=list)
    value: list[str] = field(default_factory=list)  # exactly one of these
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None
    discount_condition_id: str | None = None  # only those the discount condition names


def _filtered(model: type[ProductTag] | type[ProductType], relation: str, f: ValueFilter) -> QuerySet:
    qs = model.filter(deleted_at=None, **date_filters(created_at=f.created_at, updated_at=f.updated_at))
    if f.q:
        qs = qs.filter(value__icontains=f.q)
    if f.id:
        qs = qs.filter(id__in=f.id)
    if f.value:
        qs = qs.filter(value__in=f.value)
    if f.discount_condition_id is not None:
        named = DiscountCondition.filter(id=f.discount_condition_id).values_list(f"{relation}__id", flat=True)
        qs = qs.filter(id__in=Subquery(named))
    return qs


async def list_tags(f: ValueFilter, config: FindConfig) -> tuple[list[ProductTag], int]:
    return await find_page(_filtered(ProductTag, "product_tags", f), config)


async def list_types(f: ValueFilter, config: FindConfig) -> tuple[list[ProductType], int]:
    return await find_page(_filtered(ProductType, "product_types", f), config)

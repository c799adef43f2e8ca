"""What the order routes accept in their query strings: the allow-lists of
`fields`/`expand`/`order`, the list filters with Medusa v1's
messages, and the `returnable_items` word of the admin's `expand`."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from pydantic import AfterValidator, Field, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.shapes.orders import (
    ADMIN_ALLOWED_RELATIONS, ADMIN_RELATIONS, FIELD_EXTRAS, ORDER_COLUMNS, STORE_ALLOWED_RELATIONS, STORE_COLUMNS,
    STORE_RELATIONS,
)
from app.web.query import DateComparison, Filters, ParsedQuery, QuerySpec, StrList, parse_qs, parse_query
from app.web.validation import Email
from models.order import FULFILLMENT_STATUSES, ORDER_STATUSES, PAYMENT_STATUSES
from services.core.errors import InvalidData
from services.orders.listing import OrderFilter

__all__ = [
    "OrderFilters", "AdminOrderFilters", "LookupFilters", "STORE_ONE", "STORE_LOOKUP", "CUSTOMER_LIST",
    "ADMIN_LIST", "ADMIN_ONE", "only_keys", "order_filter", "admin_list_query", "admin_one_query",
]

RETURNABLE_ITEMS = "returnable_items"
ORDER = (
    "id", "display_id", "status", "fulfillment_status", "payment_status", "email", "cart_id", "customer_id",
    "region_id", "currency_code", "tax_rate", "canceled_at", "created_at", "updated_at",
)


def _each_in(name: str, allowed: tuple[str, ...]) -> AfterValidator:
    message = f"must be one of the following values: {', '.join(allowed)}"

    def check(values: list[str]) -> list[str]:
        if any(v not in allowed for v in values):
            # Reported under the name "each value in <name>" so the message reads as Medusa's
            # (test-pinned): "each value in status must be one of the following values: ...".
            raise ValidationError.from_exception_data(name, [InitErrorDetails(
                type=PydanticCustomError("invalid", message), loc=(f"each value in {name}",), input=values,
            )])
        return values
    return AfterValidator(check)


DisplayId = Annotated[int, Field(ge=0, le=2**31 - 1)]  # the column is a 32-bit integer
TaxRate = Annotated[float, Field(allow_inf_nan=False)]


class OrderFilters(Filters):
    """The filters a customer may use on their own orders (store seed "List Orders")."""

    q: str | None = None
    id: StrList = []
    status: Annotated[StrList, _each_in("status", ORDER_STATUSES)] = []
    fulfillment_status: Annotated[StrList, _each_in("fulfillment_status", FULFILLMENT_STATUSES)] = []
    payment_status: Annotated[StrList, _each_in("payment_status", PAYMENT_STATUSES)] = []
    display_id: DisplayId | None = None
    cart_id: str | None = None
    email: str | None = None
    region_id: StrList = []
    currency_code: str | None = None
    tax_rate: TaxRate | None = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    canceled_at: DateComparison | None = None


class AdminOrderFilters(OrderFilters):
    customer_id: str | None = None
    sales_channel_id: StrList = []


class PostalCode(Filters):
    postal_code: str | None = None


class LookupFilters(Filters):
    display_id: DisplayId
    email: Email
    shipping_address: PostalCode | None = None


STORE_ONE = QuerySpec(
    columns=STORE_COLUMNS, default_relations=STORE_RELATIONS, allowed_relations=STORE_ALLOWED_RELATIONS,
    extra_fields=FIELD_EXTRAS, is_list=False,
)
# The look-up is a list query in Medusa v1: `fields` always keeps `created_at` too.
STORE_LOOKUP = replace(STORE_ONE, is_list=True, filters=LookupFilters)
CUSTOMER_LIST = QuerySpec(
    columns=STORE_COLUMNS, default_relations=STORE_RELATIONS, allowed_relations=STORE_ALLOWED_RELATIONS,
    allowed_order=ORDER, extra_fields=FIELD_EXTRAS, filters=OrderFilters, default_limit=10,
)
ADMIN_LIST = QuerySpec(
    columns=ORDER_COLUMNS, default_relations=ADMIN_RELATIONS,
    allowed_relations=ADMIN_ALLOWED_RELATIONS + (RETURNABLE_ITEMS,), allowed_order=ORDER,
    extra_fields=FIELD_EXTRAS, filters=AdminOrderFilters, default_limit=50,
)
ADMIN_ONE = ADMIN_LIST.one(filters=None)


def only_keys(query_string: str, spec: QuerySpec, allowed: tuple[str, ...] = ("expand", "fields")) -> ParsedQuery:
    """`parse_query` for a route that takes no paging or ordering: other keys are refused."""
    others = [k for k in parse_qs(query_string) if k not in allowed]
    if others:
        raise InvalidData(", ".join(f"property {k} should not exist" for k in others))
    return parse_query(query_string, spec)


def order_filter(filters: Filters, **forced: Any) -> OrderFilter:
    """The service's filter from the parsed query; `forced` wins (a customer's own id)."""
    return OrderFilter(**{**filters.plain(), **filters.comparisons(), **forced})


def admin_list_query(query_string: str) -> ParsedQuery:
    q = parse_query(query_string, ADMIN_LIST)
    if RETURNABLE_ITEMS in q.relations:
        raise InvalidData(f'The field "{RETURNABLE_ITEMS}" is not supported by this end point. ')
    return q


def admin_one_query(query_string: str) -> tuple[ParsedQuery, bool]:
    """The query of one admin order, and whether `returnable_items` was asked for. That word is
    not a relation: asked for alone, the order keeps its default relations (Medusa v1 then shows
    its lines reduced to `refundable`, which no client can use)."""
    q = only_keys(query_string, ADMIN_ONE)
    if RETURNABLE_ITEMS not in q.relations:
        return q, False
    relations = tuple(r for r in q.relations if r != RETURNABLE_ITEMS) or ADMIN_RELATIONS
    return replace(q, relations=relations), True

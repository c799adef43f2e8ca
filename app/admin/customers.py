"""Admin customers: `/admin/customers`."""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request

from app.shapes.orders import ORDER_COLUMNS
from app.web.answer_cache import SharedRead, kept
from app.web.query import BoolStr, DateComparison, Filters, ParsedQuery, QuerySpec, StrList, parse_query, query_key
from app.web.responses import json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, Email, NonEmptyStr, parse_body, max_items, MAX_FEW
from models import Customer
from services.customers.customers import CustomerFilter, create_customer, get_customer, list_customers, update_customer
from services.customers.version_reads import read_customer_list_versions

__all__ = ["bp", "CustomerFilters", "RELATIONS", "ORDER", "customers_page"]

bp = Blueprint("admin_customers", url_prefix="/customers")

# `orders` are the customer's orders as rows (Medusa v1's relation): columns, no lines and no totals.
RELATIONS = ("orders", "shipping_addresses", "billing_address", "groups")
ORDER = ("id", "email", "first_name", "last_name", "phone", "has_account", "created_at", "updated_at")


class CustomerFilters(Filters):
    q: str | None = None
    has_account: BoolStr = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None


class ListFilters(CustomerFilters):
    groups: StrList = []


# Medusa v1 ignores `fields` here and has no default order; we honour `fields` and sort newest first.
LIST = QuerySpec(
    columns=COLUMNS[Customer], allowed_relations=RELATIONS, allowed_order=ORDER, filters=ListFilters,
    default_limit=50,
)
# The list's version, one read shared by the requests that arrive while another is on its way.
VERSIONS = SharedRead(read_customer_list_versions)
ONE = QuerySpec(
    columns=COLUMNS[Customer], default_relations=("orders", "shipping_addresses"), allowed_relations=RELATIONS,
    is_list=False,
)


class CreateCustomer(Body):
    email: Email
    first_name: str
    last_name: str
    password: NonEmptyStr
    phone: str | None = None
    metadata: dict[str, Any] | None = None


class GroupRef(Body):
    id: NonEmptyStr


class UpdateCustomer(Body):
    email: Email = None  # type: ignore[assignment]  # absent: kept; null: refused
    first_name: str | None = None
    last_name: str | None = None
    phone: str | None = None
    password: NonEmptyStr = None  # type: ignore[assignment]
    metadata: dict[str, Any] | None = None
    groups: Annotated[list[GroupRef], max_items(MAX_FEW)] | None = None

    def changes(self) -> dict[str, Any]:
        """The keys sent, as `update_customer` arguments (`null` clears a name or the phone)."""
        out = {k: getattr(self, k) for k in self.model_fields_set if k != "groups"}
        if self.groups is not None:
            out["group_ids"] = [g.id for g in self.groups]
        return out


def _order(values: dict) -> dict:
    return {**{c: values.get(c) for c in ORDER_COLUMNS}, "object": "order"}


def _dump(customers: list[Customer], relations: tuple[str, ...], fields: frozenset[str] | None) -> list[dict]:
    out = dump_many(customers, tuple(r for r in relations if r.split(".")[0] != "orders"), fields)
    if "orders" in relations:
        for customer, data in zip(customers, out):
            data["orders"] = [_order(o) for o in customer.order_rows]
    return out


def customers_page(customers: list[Customer], count: int, q: ParsedQuery) -> dict:
    return {"customers": _dump(customers, q.relations, q.fields), "count": count,
            "offset": q.offset, "limit": q.limit}


def _one(customer: Customer, q: ParsedQuery | None = None) -> dict:
    return {"customer": _dump([customer], q.relations if q else (), q.fields if q else None)[0]}


@bp.get("")
async def list_(request: Request):
    """Kept by the list's version (app/web/answer_cache.py): the gate has already checked the
    caller, as for every admin route; the answer is the same for every admin, and carries no
    Cache-Control, as before. Addresses and orders count only when the query names them (`expand`
    and `fields` are the only ways to show them)."""
    key = query_key(request.query_string)
    version = (await VERSIONS()).of(addresses="address" in key, orders="orders" in key)
    return await kept(request, version, key, lambda: _list(request), {})


async def _list(request: Request):
    q = parse_query(request.query_string, LIST)
    customers, count = await list_customers(CustomerFilter(**q.filters.plain(), **q.filters.comparisons()), q.find())
    return json(customers_page(customers, count, q))


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateCustomer)
    return json(_one(await create_customer(**body.model_dump())), status=201)


@bp.get("/<customer_id:str>")
async def get(request: Request, customer_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await get_customer(customer_id, q.relations), q))


@bp.post("/<customer_id:str>")
async def update(request: Request, customer_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, UpdateCustomer)
    return json(_one(await update_customer(customer_id, q.relations, **body.changes()), q))

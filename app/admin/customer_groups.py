"""Admin customer groups: `/admin/customer-groups`."""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request

from app.admin.customers import ORDER as CUSTOMER_ORDER
from app.admin.customers import RELATIONS as CUSTOMER_RELATIONS
from app.admin.customers import CustomerFilters, customers_page
from app.web.query import DateComparison, Filters, ParsedQuery, QuerySpec, StrList, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, NonEmptyStr, parse_body, max_items
from models import Customer, CustomerGroup
from services.customers.groups import (
    GroupFilter, add_customers, create_group, delete_group, get_group, list_group_customers, list_groups,
    remove_customers, update_group,
)
from services.customers.customers import CustomerFilter

bp = Blueprint("admin_customer_groups", url_prefix="/customer-groups")

MAX_BATCH = 10_000  # one statement's parameters stay within what SQLite and PostgreSQL accept


class ListFilters(Filters):
    q: str | None = None
    discount_condition_id: str | None = None  # the groups a discount condition names
    id: StrList = []
    name: StrList = []
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[CustomerGroup], allowed_relations=("customers",),
    allowed_order=("id", "name", "created_at", "updated_at"), filters=ListFilters, default_limit=10,
)
ONE = QuerySpec(columns=COLUMNS[CustomerGroup], allowed_relations=("customers",), is_list=False)
# A group's customers show their groups by default, as Medusa v1's do (all of them, not only this one).
CUSTOMERS = QuerySpec(
    columns=COLUMNS[Customer], default_relations=("groups",), allowed_relations=CUSTOMER_RELATIONS,
    allowed_order=CUSTOMER_ORDER, filters=CustomerFilters, default_limit=50,
)


class CreateGroup(Body):
    name: NonEmptyStr
    metadata: dict[str, Any] | None = None


class UpdateGroup(Body):
    name: NonEmptyStr = None  # type: ignore[assignment]  # absent: kept; null: refused
    metadata: dict[str, Any] | None = None


class CustomerRef(Body):
    id: NonEmptyStr


class CustomerBatch(Body):
    customer_ids: Annotated[list[CustomerRef], max_items(MAX_BATCH)]

    def ids(self) -> list[str]:
        return [c.id for c in self.customer_ids]


def _one(group: CustomerGroup, q: ParsedQuery | None = None) -> dict:
    return {"customer_group": dump_many([group], q.relations if q else (), q.fields if q else None)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    groups, count = await list_groups(GroupFilter(**q.filters.plain(), **q.filters.comparisons()), q.find())
    return json({"customer_groups": dump_many(groups, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateGroup)
    return json(_one(await create_group(**body.model_dump())))


@bp.get("/<group_id:str>")
async def get(request: Request, group_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await get_group(group_id, q.relations), q))


@bp.post("/<group_id:str>")
async def update(request: Request, group_id: str):
    q = parse_query(request.query_string, ONE)
    body = parse_body(request, UpdateGroup)
    return json(_one(await update_group(group_id, q.relations, **body.model_dump(exclude_unset=True)), q))


@bp.delete("/<group_id:str>")
async def delete(request: Request, group_id: str):
    await delete_group(group_id)
    return deleted(group_id, "customer_group")


@bp.get("/<group_id:str>/customers")
async def customers(request: Request, group_id: str):
    q = parse_query(request.query_string, CUSTOMERS)
    filters = CustomerFilter(**q.filters.plain(), **q.filters.comparisons())
    found, count = await list_group_customers(group_id, filters, q.find())
    return json(customers_page(found, count, q))


@bp.post("/<group_id:str>/customers/batch")
async def add(request: Request, group_id: str):
    body = parse_body(request, CustomerBatch)
    return json(_one(await add_customers(group_id, body.ids())))


@bp.delete("/<group_id:str>/customers/batch")
async def remove(request: Request, group_id: str):
    body = parse_body(request, CustomerBatch)
    return json(_one(await remove_customers(group_id, body.ids())))

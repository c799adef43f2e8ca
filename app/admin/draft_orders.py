"""Admin draft orders: `/admin/draft-orders`. Orders staff build by hand
and mark paid; the rules are in services/draft_orders/drafts.py and services/draft_orders/payment.py.

Only the list reads its query string (Medusa v1 validates no other route's); there `fields`
names draft columns (Medusa refuses every `fields` value, having declared it a number)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BeforeValidator, Discriminator, Field, Tag
from pydantic_core import PydanticCustomError
from sanic import Blueprint, Request

from app.shapes.draft_orders import DRAFT_COLUMNS, draft_order_json, draft_orders_json
from app.shapes.orders import ADMIN_RELATIONS, order_json, with_claims_and_swaps
from app.web.query import DateComparison, Filters, QuerySpec, StrList, parse_query
from app.web.responses import deleted, json
from app.web.validation import (
    MAX_FEW, AddressFields, Amount, Body, Email, NonEmptyStr, max_items, max_lines, parse_body,
)
from models.draft_order import DRAFT_ORDER_STATUSES
from services.carts.items import MAX_QUANTITY
from services.draft_orders.lines import DraftLine, LineChanges, NewMethod
from services.draft_orders.payment import pay_draft_order
from services.draft_orders.drafts import (
    DRAFT_RELATIONS, DraftOrderChanges, DraftOrderFilter, NewDraftOrder, add_draft_line, create_draft_order,
    delete_draft_line, delete_draft_order, get_draft_order, list_draft_orders, update_draft_line,
    update_draft_order,
)

__all__ = ["bp"]

bp = Blueprint("admin_draft_orders", url_prefix="/draft-orders")

Quantity = Annotated[int, Field(ge=1, le=MAX_QUANTITY)]
Metadata = dict[str, Any]


def _statuses(values: list[str]) -> list[str]:
    if any(v not in DRAFT_ORDER_STATUSES for v in values):
        raise PydanticCustomError("invalid", f"must be one of the following values: {', '.join(DRAFT_ORDER_STATUSES)}")
    return values


class ListFilters(Filters):
    q: str | None = None
    status: Annotated[StrList, AfterValidator(_statuses)] = []
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None


LIST = QuerySpec(
    columns=DRAFT_COLUMNS, default_relations=DRAFT_RELATIONS, allowed_relations=DRAFT_RELATIONS,
    allowed_order=("created_at", "updated_at", "id", "display_id", "status"), filters=ListFilters, default_limit=50,
)


def _address_kind(value: Any) -> str:
    return "address" if isinstance(value, (dict, AddressFields)) else "address id"


def _object_or_id(value: Any) -> Any:
    if value is not None and not isinstance(value, (dict, str)):
        raise PydanticCustomError("invalid", "must be an address object or an address id")
    return value


# Fields, or the id of one of the customer's saved addresses; the value's type picks which, so
# an error names only what was meant.
Address = Annotated[
    Annotated[
        Union[Annotated[AddressFields, Tag("address")], Annotated[NonEmptyStr, Tag("address id")]],
        Discriminator(_address_kind),
    ] | None,
    BeforeValidator(_object_or_id),
]


class Code(Body):
    code: NonEmptyStr


class ShippingMethodBody(Body):
    option_id: NonEmptyStr
    data: Metadata = {}
    price: Amount | None = None  # a price of this method's own, instead of the option's


class ItemBody(Body):
    quantity: Quantity
    variant_id: NonEmptyStr | None = None
    unit_price: Amount | None = None  # a price staff typed; without it the variant's list price
    title: str | None = None
    metadata: Metadata | None = None

    def line(self) -> DraftLine:
        return DraftLine(quantity=self.quantity, variant_id=self.variant_id, unit_price=self.unit_price,
                         title=self.title or None, metadata=self.metadata)


class NewDraftOrderBody(Body):
    email: Email
    region_id: NonEmptyStr
    shipping_methods: Annotated[list[ShippingMethodBody], max_items(MAX_FEW)]
    status: Literal["open", "completed"] | None = None  # accepted and ignored, as in Medusa v1
    billing_address: Address = None
    shipping_address: Address = None
    items: Annotated[list[ItemBody], max_lines("draft order")] = []
    discounts: Annotated[list[Code], max_items(MAX_FEW)] = []
    customer_id: NonEmptyStr | None = None
    no_notification_order: bool | None = None
    metadata: Metadata | None = None

    def new(self) -> NewDraftOrder:
        return NewDraftOrder(
            email=self.email, region_id=self.region_id,
            shipping_methods=_methods(self.shipping_methods),
            items=[i.line() for i in self.items], billing_address=_address(self.billing_address),
            shipping_address=_address(self.shipping_address), discounts=[d.code for d in self.discounts],
            customer_id=self.customer_id, no_notification_order=self.no_notification_order, metadata=self.metadata,
        )


class DraftOrderChangesBody(Body):
    # An absent key leaves that part alone; `shipping_address: null` clears the address.
    region_id: NonEmptyStr = None  # type: ignore[assignment]
    country_code: NonEmptyStr = None  # type: ignore[assignment]
    email: Email = None  # type: ignore[assignment]
    billing_address: Address = None
    shipping_address: Address = None
    discounts: Annotated[list[Code], max_items(MAX_FEW)] = None  # type: ignore[assignment]
    customer_id: NonEmptyStr = None  # type: ignore[assignment]
    no_notification_order: bool | None = None
    # Replaces them (ours).
    shipping_methods: Annotated[list[ShippingMethodBody], max_items(MAX_FEW)] = None  # type: ignore[assignment]

    def changes(self) -> DraftOrderChanges:
        given = {k: getattr(self, k) for k in self.model_fields_set}
        if "discounts" in given:
            given["discounts"] = [c.code for c in given["discounts"]]
        if "shipping_methods" in given:
            given["shipping_methods"] = _methods(given["shipping_methods"])
        for key in ("billing_address", "shipping_address"):
            if key in given:
                given[key] = _address(given[key])
        return DraftOrderChanges(**given)


class LineItemChangesBody(Body):
    quantity: Annotated[int, Field(ge=0, le=MAX_QUANTITY)] | None = None  # 0 removes the line
    unit_price: Amount | None = None
    title: NonEmptyStr | None = None
    metadata: Metadata | None = None

    def changes(self) -> LineChanges:
        return LineChanges(quantity=self.quantity, unit_price=self.unit_price, title=self.title,
                           metadata=self.metadata)


def _methods(methods: list[ShippingMethodBody]) -> list[NewMethod]:
    return [NewMethod(m.option_id, m.data, m.price) for m in methods]


def _address(value: AddressFields | str | None) -> dict | str | None:
    # Only the fields sent, so an address being edited keeps the others.
    return value.model_dump(exclude_unset=True) if isinstance(value, AddressFields) else value


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    f = q.filters
    drafts, orders, count = await list_draft_orders(
        DraftOrderFilter(q=f.q, status=f.status, **f.comparisons()), q.find(),
    )
    return json({
        "draft_orders": draft_orders_json(drafts, orders, q.relations, q.fields),
        "count": count, "offset": q.offset, "limit": q.limit,
    })


@bp.post("")
async def create(request: Request):
    body = parse_body(request, NewDraftOrderBody)
    return json({"draft_order": draft_order_json(await create_draft_order(body.new()))})


@bp.get("/<draft_id:str>")
async def get(request: Request, draft_id: str):
    return json({"draft_order": draft_order_json(await get_draft_order(draft_id))})


@bp.post("/<draft_id:str>")
async def update(request: Request, draft_id: str):
    body = parse_body(request, DraftOrderChangesBody)
    return json({"draft_order": draft_order_json(await update_draft_order(draft_id, body.changes()))})


@bp.delete("/<draft_id:str>")
async def delete(request: Request, draft_id: str):
    await delete_draft_order(draft_id)
    return deleted(draft_id, "draft-order")


@bp.post("/<draft_id:str>/line-items")
async def add_line(request: Request, draft_id: str):
    body = parse_body(request, ItemBody)
    return json({"draft_order": draft_order_json(await add_draft_line(draft_id, body.line()))})


@bp.post("/<draft_id:str>/line-items/<line_id:str>")
async def update_line(request: Request, draft_id: str, line_id: str):
    body = parse_body(request, LineItemChangesBody)
    return json({"draft_order": draft_order_json(await update_draft_line(draft_id, line_id, body.changes()))})


@bp.delete("/<draft_id:str>/line-items/<line_id:str>")
async def delete_line(request: Request, draft_id: str, line_id: str):
    return json({"draft_order": draft_order_json(await delete_draft_line(draft_id, line_id))})


@bp.post("/<draft_id:str>/pay")
async def pay(request: Request, draft_id: str):
    # No body: whatever is sent is ignored, as in Medusa v1.
    [view] = await with_claims_and_swaps([await pay_draft_order(draft_id)])
    return json({"order": order_json(view, ADMIN_RELATIONS)})

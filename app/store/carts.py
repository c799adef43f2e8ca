"""Store carts: `/store/carts` create, get, update, line items, discounts, shipping methods and
calculate taxes. Every route answers `{cart}` (app/shapes/carts.py); only the
get honours `expand` and `fields`, but every route refuses other query keys, as Medusa v1 does.

Calculate taxes answers the default relations, as the other routes do (Medusa v1 answers only
those its totals need), or 202 while its tax job has not finished (services/carts/taxes.py).
Create and update keep the cart within the sales channels of the request's publishable API key
(app/web/publishable_keys.py)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sanic import Blueprint, Request

from app.web.auth import customer_id
from app.web.client_address import client_address
from app.web.csrf import read_may_write
from app.web.publishable_keys import key_scope
from app.shapes.carts import ALLOWED_RELATIONS, DEFAULT_RELATIONS, TOTAL_KEYS, cart_json
from app.web.query import ParsedQuery, QuerySpec, parse_qs, parse_query
from app.web.responses import json
from app.web.serialize import COLUMNS
from app.web.validation import AddressFields, Body, Email, NonEmptyStr, parse_body, max_items, max_lines, MAX_FEW
from models import Cart, Job
from services.carts.discounts import remove_discount_code
from services.carts.items import MAX_QUANTITY, NewLine, add_line_item, delete_line_item, update_line_item
from services.carts.shipping import add_shipping_method
from services.carts.taxes import calculate_cart_taxes
from services.carts.carts import CartChanges, NewCart, create_cart, get_cart, update_cart
from services.core.errors import InvalidData

bp = Blueprint("store_carts", url_prefix="/carts")

QUERY = QuerySpec(
    columns=COLUMNS[Cart], default_relations=DEFAULT_RELATIONS, allowed_relations=ALLOWED_RELATIONS,
    extra_fields=("object", "payment_session") + TOTAL_KEYS, is_list=False,
)

_NO_QUERY = parse_query("", QUERY)  # frozen; carts read only its relations and fields
RETRY_AFTER_SECONDS = 1  # how soon a client is told to repeat a tax calculation still running
Metadata = dict[str, Any]
Quantity = Annotated[int, Field(le=MAX_QUANTITY)]


def cart_query(request: Request) -> ParsedQuery:
    """`expand` and `fields`, and nothing else (Medusa's FindParams: no paging on one cart)."""
    if not request.query_string:  # every checkout step: parsed once per process
        return _NO_QUERY
    others = [k for k in parse_qs(request.query_string) if k not in ("expand", "fields")]
    if others:
        raise InvalidData(", ".join(f"property {k} should not exist" for k in others))
    return parse_query(request.query_string, QUERY)


class NewItem(Body):
    variant_id: NonEmptyStr
    quantity: Quantity


class NewCartBody(Body):
    region_id: str | None = None
    country_code: str | None = None
    items: Annotated[list[NewItem], max_lines("cart")] | None = None
    context: dict[str, Any] | None = None
    sales_channel_id: str | None = None


class Code(Body):
    code: str


class CartChangesBody(Body):
    # An absent key leaves that part alone; `shipping_address: null` clears the address.
    region_id: str = None  # type: ignore[assignment]
    country_code: str = None  # type: ignore[assignment]
    email: Email = None  # type: ignore[assignment]
    billing_address: AddressFields | NonEmptyStr | None = None
    shipping_address: AddressFields | NonEmptyStr | None = None
    gift_cards: Annotated[list[Code], max_items(MAX_FEW)] = None  # type: ignore[assignment]
    discounts: Annotated[list[Code], max_items(MAX_FEW)] = None  # type: ignore[assignment]
    customer_id: NonEmptyStr = None  # type: ignore[assignment]
    context: dict[str, Any] = None  # type: ignore[assignment]
    sales_channel_id: NonEmptyStr = None  # type: ignore[assignment]

    def changes(self) -> CartChanges:
        given = self.model_dump(exclude_unset=True)
        for key in ("gift_cards", "discounts"):
            if key in given:
                given[key] = [c["code"] for c in given[key] or []]
        for key in ("billing_address", "shipping_address"):
            if isinstance(given.get(key), dict):  # only the fields sent, so the rest is kept
                given[key] = getattr(self, key).model_dump(exclude_unset=True)
        return CartChanges(**given)


class NewLineItem(Body):
    variant_id: NonEmptyStr
    quantity: Quantity
    metadata: Metadata | None = None


class LineItemChanges(Body):
    quantity: Quantity
    metadata: Metadata | None = None


class NewShippingMethod(Body):
    option_id: NonEmptyStr
    data: Metadata = {}


def _request_context(request: Request) -> dict:
    return {"ip": client_address(request), "user_agent": request.headers.get("user-agent")}


def cart_answer(view, q=None):
    if q is None:
        return json({"cart": cart_json(view)})
    return json({"cart": cart_json(view, q.relations, q.fields)})


@bp.post("")
async def create(request: Request):
    cart_query(request)
    body = parse_body(request, NewCartBody)
    new = NewCart(
        region_id=body.region_id, country_code=body.country_code, context=body.context,
        sales_channel_id=body.sales_channel_id,
        items=[NewLine(i.variant_id, i.quantity) for i in body.items or []],
    )
    view = await create_cart(
        new, customer_id=await customer_id(request), request_context=_request_context(request),
        scope=await key_scope(request),
    )
    return cart_answer(view)


@bp.get("/<cart_id:str>")
async def get(request: Request, cart_id: str):
    q = cart_query(request)
    view = await get_cart(cart_id, customer_id=await customer_id(request), adopt=read_may_write(request))
    return cart_answer(view, q)


@bp.post("/<cart_id:str>")
async def update(request: Request, cart_id: str):
    cart_query(request)
    body = parse_body(request, CartChangesBody)
    return cart_answer(await update_cart(
        cart_id, body.changes(), customer_id=await customer_id(request), scope=await key_scope(request)
    ))


@bp.post("/<cart_id:str>/line-items")
async def add_item(request: Request, cart_id: str):
    cart_query(request)
    body = parse_body(request, NewLineItem)
    return cart_answer(await add_line_item(cart_id, NewLine(body.variant_id, body.quantity, body.metadata)))


@bp.post("/<cart_id:str>/line-items/<line_id:str>")
async def update_item(request: Request, cart_id: str, line_id: str):
    cart_query(request)
    body = parse_body(request, LineItemChanges)
    return cart_answer(await update_line_item(cart_id, line_id, body.quantity, body.metadata))


@bp.delete("/<cart_id:str>/line-items/<line_id:str>")
async def delete_item(request: Request, cart_id: str, line_id: str):
    cart_query(request)
    return cart_answer(await delete_line_item(cart_id, line_id))


@bp.delete("/<cart_id:str>/discounts/<code:str>")
async def delete_discount(request: Request, cart_id: str, code: str):
    cart_query(request)
    return cart_answer(await remove_discount_code(cart_id, code))


@bp.post("/<cart_id:str>/shipping-methods")
async def add_method(request: Request, cart_id: str):
    cart_query(request)
    body = parse_body(request, NewShippingMethod)
    return cart_answer(await add_shipping_method(cart_id, body.option_id, body.data))


@bp.post("/<cart_id:str>/taxes")
async def calculate_taxes(request: Request, cart_id: str):
    cart_query(request)
    wait = request.app.ctx.settings.tax_job_wait_seconds
    done = await calculate_cart_taxes(cart_id, wait_seconds=wait)
    if done.view is None:
        return json(_pending(done.job), 202, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    return cart_answer(done.view)


def _pending(job: Job) -> dict:
    return {
        "message": "The cart's taxes are being calculated: repeat the request to get the cart",
        "job": {"id": job.id, "status": job.status, "attempts": job.attempts, "created_at": job.created_at},
    }

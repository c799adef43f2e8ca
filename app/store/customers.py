"""The shopper's account: `/store/customers` sign-up, `/me` and its addresses, saved payment
methods, and password reset. Every `/me` route acts on the
signed-in customer only; ids in the path are looked up within that customer's own rows."""

from __future__ import annotations

from typing import Any

from sanic import Blueprint, Request
from sanic.response import empty

from app.web.auth import renew_customer_session, require_customer, sign_in_customer
from app.web.query import QuerySpec, parse_query
from app.web.rate_limits import message_request_guard, sign_up_guard
from app.web.responses import json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import AddressFields, Body, Email, NonEmptyStr, parse_body
from models import Customer
from services.customers.accounts import (
    ACCOUNT_RELATIONS, KEEP, AccountChanges, get_account, saved_payment_methods, update_account,
)
from services.customers.addresses import add_address, delete_address, update_address
from services.customers.password_reset import request_password_reset, reset_password
from services.orders.sign_up import register_customer

__all__ = ["bp"]

bp = Blueprint("store_customers", url_prefix="/customers")

ME = QuerySpec(
    columns=COLUMNS[Customer], default_relations=ACCOUNT_RELATIONS, allowed_relations=ACCOUNT_RELATIONS,
    is_list=False,
)


class NewCustomer(Body):
    email: Email
    password: NonEmptyStr  # Medusa v1 lets "" through and makes a guest of it
    first_name: str | None = None
    last_name: str | None = None
    phone: str | None = None


class AccountChangesBody(Body):
    first_name: str | None = None
    last_name: str | None = None
    phone: str | None = None
    email: Email = None  # type: ignore[assignment]  # absent: kept; null: refused
    password: NonEmptyStr = None  # type: ignore[assignment]
    metadata: dict[str, Any] | None = None
    billing_address: AddressFields | NonEmptyStr | None = None  # null: unset

    def changes(self) -> AccountChanges:
        sent = self.model_fields_set
        billing = self.billing_address
        return AccountChanges(
            **{k: getattr(self, k) if k in sent else KEEP for k in ("first_name", "last_name", "phone")},
            email=self.email, password=self.password, metadata=self.metadata,
            billing_address=KEEP if "billing_address" not in sent else (
                billing.model_dump(exclude_unset=True) if isinstance(billing, AddressFields) else billing
            ),
        )


class NewAddressFields(Body):
    first_name: str
    last_name: str
    address_1: str
    city: str
    country_code: str
    postal_code: str
    phone: str | None = None
    company: str | None = None
    address_2: str | None = None
    province: str | None = None
    metadata: dict[str, Any] | None = None


class NewAddress(Body):
    address: NewAddressFields


class PasswordToken(Body):
    email: Email


class PasswordReset(Body):
    email: Email
    token: NonEmptyStr
    password: NonEmptyStr


def _customer(customer: Customer, relations=ACCOUNT_RELATIONS, fields=None) -> dict:
    return {"customer": dump_many([customer], relations, fields)[0]}


@bp.post("")
async def sign_up(request: Request):
    body = parse_body(request, NewCustomer)
    async with sign_up_guard(request):
        customer = await register_customer(**body.model_dump())
    response = json(_customer(customer))
    await sign_in_customer(request, response, customer)
    return response


@bp.get("/me")
async def me(request: Request):
    q = parse_query(request.query_string, ME)
    return json(_customer(await get_account(await require_customer(request)), q.relations, q.fields))


@bp.post("/me")
async def change_me(request: Request):
    customer_id = await require_customer(request)
    body = parse_body(request, AccountChangesBody)
    customer = await update_account(customer_id, body.changes())
    response = json(_customer(customer))
    if body.password:
        await renew_customer_session(request, response, customer)
    return response


@bp.post("/me/addresses")
async def add_my_address(request: Request):
    customer_id = await require_customer(request)
    body = parse_body(request, NewAddress)
    await add_address(customer_id, body.address.model_dump(exclude_unset=True))
    return json(_customer(await get_account(customer_id)))


@bp.post("/me/addresses/<address_id:str>")
async def change_my_address(request: Request, address_id: str):
    customer_id = await require_customer(request)
    body = parse_body(request, AddressFields)
    await update_address(customer_id, address_id, body.model_dump(exclude_unset=True))
    return json(_customer(await get_account(customer_id)))


@bp.delete("/me/addresses/<address_id:str>")
async def delete_my_address(request: Request, address_id: str):
    customer_id = await require_customer(request)
    await delete_address(customer_id, address_id)
    return json(_customer(await get_account(customer_id)))


@bp.get("/me/payment-methods")
async def my_payment_methods(request: Request):
    return json({"payment_methods": await saved_payment_methods(await require_customer(request))})


@bp.post("/password-token")
async def ask_for_password_reset(request: Request):
    body = parse_body(request, PasswordToken)
    async with message_request_guard(request, body.email):
        await request_password_reset(body.email)
    return empty()  # 204 whether or not the email has an account


# `/reset-password` is the name the store specification gives the step; Medusa v1's is `/password-reset`.
@bp.post("/password-reset")
@bp.post("/reset-password", name="reset_password_alias")
async def reset_my_password(request: Request):
    body = parse_body(request, PasswordReset)
    return json(_customer(await reset_password(body.email, body.token, body.password), relations=()))

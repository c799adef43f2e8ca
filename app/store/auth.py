"""Customer sign-in: session cookie (`/store/auth`), JWT (`/store/auth/token`), email check."""

from sanic import Blueprint, Request

from app.web.auth import Credentials, require_customer, sign_in_customer, sign_out_customer
from app.web.rate_limits import email_lookup_guard, sign_in_guard
from app.web.responses import json
from app.web.serialize import dump_many
from app.web.validation import parse_body
from services.customers.customers import (
    account_exists, authenticate_customer, get_customer, issue_store_jwt, CUSTOMER_RELATIONS,
)

bp = Blueprint("store_auth", url_prefix="/auth")


def _customer(customer) -> dict:
    return {"customer": dump_many([customer], CUSTOMER_RELATIONS)[0]}


@bp.post("")
async def sign_in(request: Request):
    body = parse_body(request, Credentials)
    async with sign_in_guard(request, "store", body.email):
        customer = await authenticate_customer(body.email, body.password)
    response = json(_customer(await get_customer(customer.id, CUSTOMER_RELATIONS)))
    await sign_in_customer(request, response, customer)
    return response


@bp.get("")
async def current_customer(request: Request):
    return json(_customer(await get_customer(await require_customer(request), CUSTOMER_RELATIONS)))


@bp.delete("")
async def sign_out(request: Request):
    response = json({})
    await sign_out_customer(request, response)
    return response


@bp.get("/<email:str>")
async def email_exists(request: Request, email: str):
    async with email_lookup_guard(request):
        exists = await account_exists(email)
    return json({"exists": exists})


@bp.post("/token")
async def token(request: Request):
    body = parse_body(request, Credentials)
    async with sign_in_guard(request, "store", body.email):
        customer = await authenticate_customer(body.email, body.password)
    return json({"access_token": issue_store_jwt(request.app.ctx.settings.jwt_secret, customer)})

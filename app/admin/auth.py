"""Admin sign-in: session cookie (`POST/GET/DELETE /admin/auth`) and JWT (`POST /admin/auth/token`)."""

from sanic import Blueprint, Request

from app.web.auth import Credentials, require_admin, sign_in_user, sign_out_user
from app.web.rate_limits import sign_in_guard
from app.web.responses import json
from app.web.serialize import dump
from app.web.validation import parse_body
from services.users.users import authenticate_user, issue_admin_jwt

bp = Blueprint("admin_auth", url_prefix="/auth")


@bp.post("")
async def sign_in(request: Request):
    body = parse_body(request, Credentials)
    async with sign_in_guard(request, "admin", body.email):
        user = await authenticate_user(body.email, body.password)
    response = json({"user": dump(user)})
    await sign_in_user(request, response, user)
    return response


@bp.get("")
async def current_user(request: Request):
    return json({"user": dump(await require_admin(request))})


@bp.delete("")
async def sign_out(request: Request):
    await require_admin(request)
    response = json({})
    await sign_out_user(request, response)
    return response


@bp.post("/token")
async def token(request: Request):
    body = parse_body(request, Credentials)
    async with sign_in_guard(request, "admin", body.email):
        user = await authenticate_user(body.email, body.password)
    return json({"access_token": issue_admin_jwt(request.app.ctx.settings.jwt_secret, user)})

"""Admin users, the team: `/admin/users`, with the password reset that
needs no sign-in (`password-token`, `reset-password`). Invites are in app/admin/invites.py. No
answer shows a password hash or an API token (`api_token` is always null)."""

from __future__ import annotations

from typing import Any, Literal

from sanic import Blueprint, Request
from sanic.response import empty

from app.web.auth import require_admin
from app.web.rate_limits import message_request_guard
from app.web.query import DateComparison, Filters, QuerySpec, StrList, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump, dump_many
from app.web.validation import Body, Email, NonEmptyStr, parse_body
from models import User
from services.users.password_reset import request_password_reset, reset_password
from services.users.team import UserFilter, add_user, delete_user, list_users, update_user
from services.users.users import get_user

bp = Blueprint("admin_users", url_prefix="/users")

Role = Literal["admin", "member", "developer"]


class ListFilters(Filters):
    q: str | None = None
    id: StrList = []
    email: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    role: Role | None = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    deleted_at: DateComparison | None = None


LIST = QuerySpec(
    columns=COLUMNS[User], allowed_order=("id", "email", "first_name", "last_name", "role", "created_at", "updated_at"),
    filters=ListFilters, default_limit=50,
)


class CreateUser(Body):
    email: Email
    password: NonEmptyStr
    first_name: str | None = None
    last_name: str | None = None
    role: Role = "member"


class UpdateUser(Body):
    first_name: str | None = None
    last_name: str | None = None
    role: Role = None  # type: ignore[assignment]  # absent: kept; null: refused
    api_token: str | None = None
    metadata: dict[str, Any] | None = None


class PasswordToken(Body):
    email: Email


class PasswordReset(Body):
    token: NonEmptyStr
    password: NonEmptyStr
    email: Email | None = None


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    users, count = await list_users(UserFilter(**q.filters.plain(), **q.filters.comparisons()), q.find())
    return json({"users": dump_many(users, q.relations, q.fields), "count": count, "offset": q.offset,
                 "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateUser)
    return json({"user": dump(await add_user(await require_admin(request), **body.model_dump()))})


@bp.get("/<user_id:str>")
async def get(request: Request, user_id: str):
    return json({"user": dump(await get_user(user_id))})


@bp.post("/<user_id:str>")
async def update(request: Request, user_id: str):
    body = parse_body(request, UpdateUser)
    user = await update_user(await require_admin(request), user_id, **body.model_dump(exclude_unset=True))
    return json({"user": dump(user)})


@bp.delete("/<user_id:str>")
async def delete(request: Request, user_id: str):
    await delete_user(await require_admin(request), user_id)
    return deleted(user_id, "user")


@bp.post("/password-token")
async def ask_for_password_reset(request: Request):
    body = parse_body(request, PasswordToken)
    # Counted with the store's requests for the same mailbox: one flood limit per inbox.
    async with message_request_guard(request, body.email):
        await request_password_reset(body.email)
    return empty()  # 204 whether or not a user has the email


@bp.post("/reset-password")
async def reset_my_password(request: Request):
    body = parse_body(request, PasswordReset)
    user = await reset_password(request.app.ctx.settings.jwt_secret, body.token, body.password, body.email)
    return json({"user": dump(user)})

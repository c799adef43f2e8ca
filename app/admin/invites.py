"""Admin invites: `/admin/invites`. Creating, resending and accepting
answer Medusa's plain-text `OK`; accepting is public (the invitee has no user yet) and does not
sign in: the dashboard then calls `POST /admin/auth`."""

from __future__ import annotations

from typing import Annotated, Literal

from sanic import Blueprint, Request

from app.web.auth import require_admin
from app.web.responses import deleted, json, text
from app.web.serialize import dump
from app.web.validation import Body, Email, NonEmptyStr, max_length, parse_body
from services.users.invites import accept_invite, delete_invite, invite_user, list_invites, resend_invite

bp = Blueprint("admin_invites", url_prefix="/invites")

Name = Annotated[str, max_length(255)]


class CreateInvite(Body):
    user: Email
    role: Literal["admin", "member", "developer"]


class NewUser(Body):
    first_name: Name | None = None
    last_name: Name | None = None
    password: NonEmptyStr


class AcceptInvite(Body):
    token: NonEmptyStr
    user: NewUser


@bp.get("")
async def list_(request: Request):
    found = await list_invites(await require_admin(request), request.app.ctx.settings.jwt_secret)
    return json({"invites": [{**dump(invite), "token": token} for invite, token in found]})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateInvite)
    await invite_user(await require_admin(request), body.user, body.role)
    return text("OK")


@bp.post("/accept")
async def accept(request: Request):
    body = parse_body(request, AcceptInvite)
    await accept_invite(request.app.ctx.settings.jwt_secret, body.token, **body.user.model_dump())
    return text("OK")


@bp.post("/<invite_id:str>/resend")
async def resend(request: Request, invite_id: str):
    await resend_invite(await require_admin(request), invite_id)
    return text("OK")


@bp.delete("/<invite_id:str>")
async def delete(request: Request, invite_id: str):
    await delete_invite(await require_admin(request), invite_id)
    return deleted(invite_id, "invite")

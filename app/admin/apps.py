"""Admin applications (OAuth apps): `GET /admin/apps`, `POST /admin/apps/authorizations`."""

from sanic import Blueprint, Request

from app.web.responses import json
from app.web.serialize import dump
from app.web.validation import Body, NonEmptyStr, parse_body
from services.users.apps import authorize_app, list_apps

bp = Blueprint("admin_apps", url_prefix="/apps")


class Authorization(Body):
    application_name: NonEmptyStr
    state: NonEmptyStr
    code: NonEmptyStr


@bp.get("")
async def list_(request: Request):
    # Medusa ignores this route's query string; so do we. All rows, no paging.
    return json({"apps": [dump(app) for app in await list_apps()]})


@bp.post("/authorizations")
async def authorize(request: Request):
    body = parse_body(request, Authorization)
    app = await authorize_app(body.application_name, body.state, body.code)
    return json({"apps": dump(app)})  # one object under the plural key, as Medusa answers

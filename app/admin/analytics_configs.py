"""Admin analytics configs: `/admin/analytics-configs`.

Each route acts on the signed-in user's own answer to the dashboard's usage-data question. With
`GET /admin/store` reporting the `analytics` flag on, the dashboard asks a user once (a 404 from
`GET` means "not asked yet") and never again after an answer. This server only stores the answer;
it collects and sends nothing.

Every config answered says `opt_out: true`, whatever the user chose (the choice itself is stored
as given): Medusa's dashboard (@medusajs/admin-ui 2.1.18) loads Medusa's Segment script in the
browser for a user whose config says `opt_out: false` and sends it their id, the store's name, page
views, counts of products, orders, users, regions and currencies (its AnalyticsProvider, while the
flag is on) and every error it shows (its ErrorBoundary, flag or not). `opt_out: true` is its only
switch that turns both off; the flag off would also stop the question being asked at all."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.web.auth import require_admin
from app.web.responses import json
from app.web.serialize import dump
from app.web.validation import Body, parse_body
from models import AnalyticsConfig
from services.users.analytics_configs import create_config, delete_config, get_config, update_config

bp = Blueprint("admin_analytics_configs", url_prefix="/analytics-configs")


class CreateConfig(Body):
    opt_out: bool
    anonymize: bool = False


class UpdateConfig(Body):
    opt_out: bool = None  # type: ignore[assignment]
    anonymize: bool = None  # type: ignore[assignment]


def _one(config: AnalyticsConfig):
    return json({"analytics_config": {**dump(config), "opt_out": True}})  # nothing sent: see above


@bp.get("")
async def get(request: Request):
    return _one(await get_config((await require_admin(request)).id))


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateConfig)
    return _one(await create_config((await require_admin(request)).id, **body.model_dump()))


@bp.post("/update")
async def update(request: Request):
    body = parse_body(request, UpdateConfig)
    return _one(await update_config((await require_admin(request)).id, **body.model_dump()))


@bp.delete("")
async def delete(request: Request):
    user = await require_admin(request)
    await delete_config(user.id)
    return json({"user_id": user.id, "object": "analytics_config", "deleted": True})

"""Admin analytics configs: `/admin/analytics-configs` (reference catalogue §16).

This server collects no usage analytics, so it answers as Medusa v1 does with its `analytics`
flag off (and `GET /admin/store` reports that flag off): there is no config to read or write, a
404. Medusa's dashboard then never asks for consent nor loads Segment; its error page, which
asks whether to report an error, takes the 404 as "not opted in"."""

from __future__ import annotations

from sanic import Blueprint, Request

from services.core.errors import NotFound

bp = Blueprint("admin_analytics_configs", url_prefix="/analytics-configs")

NOT_COLLECTED = "This server collects no usage analytics: there is no analytics config"


@bp.route("", methods=["GET", "POST", "DELETE"])
async def config(request: Request):
    raise NotFound(NOT_COLLECTED)


@bp.post("/update")
async def update(request: Request):
    raise NotFound(NOT_COLLECTED)

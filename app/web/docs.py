"""The API's description: `GET /openapi.json` (app/openapi.py, built once per process) and a
readable page at `/docs` (Swagger UI, its files served from the swagger-ui-bundle package)."""

from __future__ import annotations

from sanic import Blueprint, Request
from sanic.response import html
from swagger_ui_bundle import swagger_ui_path

from app.openapi import build_document
from app.web.responses import json

__all__ = ["bp"]

bp = Blueprint("docs")
bp.static("/docs/assets", swagger_ui_path, name="docs_assets")

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>commerce API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({url: "/openapi.json", dom_id: "#ui", deepLinking: true});</script>
</body></html>"""


@bp.get("/openapi.json")
async def openapi(request: Request):
    """This server's OpenAPI 3.1 document."""
    document = getattr(request.app.ctx, "openapi", None)
    if document is None:
        document = request.app.ctx.openapi = build_document(request.app)
    return json(document)


@bp.get("/docs")
async def docs(request: Request):
    """The OpenAPI document, readable."""
    return html(_PAGE)

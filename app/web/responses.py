"""JSON responses serialized with orjson."""

from __future__ import annotations

from typing import Any

import orjson
from sanic.response import HTTPResponse

__all__ = ["json", "text", "deleted"]

_OPTS = orjson.OPT_NON_STR_KEYS


def json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> HTTPResponse:
    return HTTPResponse(
        orjson.dumps(body, option=_OPTS), status=status, headers=headers, content_type="application/json"
    )


def text(body: str, status: int = 200) -> HTTPResponse:
    return HTTPResponse(body, status=status, content_type="text/plain; charset=utf-8")


def deleted(id: str, object_name: str, **extra: Any) -> HTTPResponse:
    """Medusa's delete answer: `{"id", "object", "deleted": true}` (plus route-specific keys)."""
    return json({"id": id, "object": object_name, "deleted": True, **extra})

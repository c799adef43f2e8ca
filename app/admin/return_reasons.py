"""Admin return reasons: `/admin/return-reasons`.

Unlike Medusa v1, metadata is shown and merged on update, and deleting a reason that is already
gone answers 200 like every other idempotent delete. The list, like Medusa's,
takes no query: it is the whole tree of live reasons, top-level ones with their children.
"""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request

from app.shapes.return_reasons import dump_reasons
from app.web.responses import deleted, json
from app.web.validation import Body, NonEmptyStr, max_length, parse_body
from models import ReturnReason
from services.orders.return_reasons import (
    create_return_reason, delete_return_reason, get_return_reason, list_return_reasons,
    update_return_reason,
)

bp = Blueprint("admin_return_reasons", url_prefix="/return-reasons")

MAX_TEXT = 255  # the value and label columns' length


Text = Annotated[NonEmptyStr, max_length(MAX_TEXT)]


class CreateReason(Body):
    value: Text
    label: Text
    description: str | None = None
    parent_return_reason_id: str | None = None
    metadata: dict[str, Any] | None = None


class UpdateReason(Body):
    value: Text = None  # type: ignore[assignment]  # absent: kept; null: refused
    label: Text = None  # type: ignore[assignment]
    description: str | None = None  # absent: kept; null: cleared
    metadata: dict[str, Any] | None = None


def _one(reason: ReturnReason) -> dict:
    return {"return_reason": dump_reasons([reason])[0]}


@bp.get("")
async def list_(request: Request):
    return json({"return_reasons": dump_reasons(await list_return_reasons())})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateReason)
    return json(_one(await create_return_reason(**body.model_dump())))


@bp.get("/<reason_id:str>")
async def get(request: Request, reason_id: str):
    return json(_one(await get_return_reason(reason_id)))


@bp.post("/<reason_id:str>")
async def update(request: Request, reason_id: str):
    body = parse_body(request, UpdateReason)
    return json(_one(await update_return_reason(reason_id, **body.model_dump(exclude_unset=True))))


@bp.delete("/<reason_id:str>")
async def delete(request: Request, reason_id: str):
    await delete_return_reason(reason_id)
    return deleted(reason_id, "return_reason")

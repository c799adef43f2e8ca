"""Admin notes: `/admin/notes`.

Every answer shows the note's author (the user, without secrets). Unlike Medusa v1, the list is
ordered (oldest first, as a timeline reads) and an update refuses an empty value, as a create does.
"""

from __future__ import annotations

from typing import Annotated

from sanic import Blueprint, Request

from app.web.auth import require_admin
from app.web.query import Filters, QuerySpec, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, NonEmptyStr, max_length, parse_body
from models import Note
from services.orders.notes import RELATIONS, create_note, delete_note, get_note, list_notes, update_note

bp = Blueprint("admin_notes", url_prefix="/notes")

MAX_KEY = 255  # resource_type and resource_id columns' length


Key = Annotated[NonEmptyStr, max_length(MAX_KEY)]


class ListFilters(Filters):
    resource_id: str | None = None


LIST = QuerySpec(
    columns=COLUMNS[Note], default_relations=RELATIONS, allowed_order=("created_at", "updated_at", "id"),
    filters=ListFilters, default_limit=50, default_order="created_at", selectable=False,
)


class CreateNote(Body):
    resource_id: Key
    resource_type: Key
    value: NonEmptyStr


class UpdateNote(Body):
    value: NonEmptyStr


def _one(note: Note) -> dict:
    return {"note": dump_many([note], RELATIONS)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    notes, count = await list_notes(q.filters.resource_id, q.find())
    return json({"notes": dump_many(notes, q.relations), "count": count, "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateNote)
    user = await require_admin(request)
    return json(_one(await create_note(author_id=user.id, **body.model_dump())))


@bp.get("/<note_id:str>")
async def get(request: Request, note_id: str):
    return json(_one(await get_note(note_id)))


@bp.post("/<note_id:str>")
async def update(request: Request, note_id: str):
    body = parse_body(request, UpdateNote)
    return json(_one(await update_note(note_id, value=body.value)))


@bp.delete("/<note_id:str>")
async def delete(request: Request, note_id: str):
    await delete_note(note_id)
    return deleted(note_id, "note")

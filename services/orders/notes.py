"""Notes: what admins write on a resource (an order's timeline), signed by their author."""

from __future__ import annotations

from dataclasses import replace

from tortoise.query_utils import Prefetch
from tortoise.queryset import QuerySet

from models import Note, User
from services.core.clock import now
from services.core.errors import NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, find_page

__all__ = ["RELATIONS", "list_notes", "get_note", "create_note", "update_note", "delete_note"]

RELATIONS = ("author",)


def _live() -> QuerySet:
    return Note.filter(deleted_at=None)


def _with_author(qs: QuerySet) -> QuerySet:
    # A note keeps showing who wrote it after that user is deleted (the author's deleted_at says so).
    return qs.prefetch_related(Prefetch("author", queryset=User.all()))


def _not_found(note_id: str) -> NotFound:
    return NotFound(f"Note with id: {note_id} was not found.")


async def list_notes(resource_id: str | None, config: FindConfig) -> tuple[list[Note], int]:
    """One page of live notes (of one resource when `resource_id` is given); `config.relations` may
    hold `author`."""
    qs = _live()
    if resource_id is not None:
        if not fits(Note, resource_id, "resource_id"):
            return [], 0  # longer than any resource id a note holds
        qs = qs.filter(resource_id=resource_id)
    if "author" in config.relations:
        qs, config = _with_author(qs), replace(config, relations=())
    return await find_page(qs, config)


async def get_note(note_id: str) -> Note:
    found = fits(Note, note_id) and await _with_author(_live().filter(id=note_id)).first()
    if not found:
        raise _not_found(note_id)
    return found


async def create_note(*, author_id: str, resource_type: str, resource_id: str, value: str) -> Note:
    """A note by `author_id`. The resource is not checked: a note may name any kind of resource."""
    note = await Note.create(
        author_id=author_id, resource_type=resource_type, resource_id=resource_id, value=value, metadata={},
    )
    return await get_note(note.id)


async def update_note(note_id: str, *, value: str) -> Note:
    if not (fits(Note, note_id) and await _live().filter(id=note_id).update(value=value, updated_at=now())):
        raise _not_found(note_id)
    return await get_note(note_id)


async def delete_note(note_id: str) -> None:
    """A soft delete; a note that does not exist, or no longer does, is not found."""
    stamp = now()
    if not (fits(Note, note_id) and await _live().filter(id=note_id).update(deleted_at=stamp, updated_at=stamp)):
        raise _not_found(note_id)

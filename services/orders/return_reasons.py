"""Return reasons: why an item comes back. A top-level reason may group child reasons, one level
deep; the value identifies a reason and is unique among live ones."""

from __future__ import annotations

from tortoise.exceptions import IntegrityError
from tortoise.queryset import QuerySet

from models import ReturnReason
from services.core.clock import now
from services.core.db import atomic
from services.core.errors import Duplicate, InvalidData, NotFound
from services.core.ids import fits
from services.core.listing import find_one, prefetches
from services.core.updates import UNSET, apply_changes, save_changes

__all__ = [
    "RELATIONS", "MAX_LISTED", "list_return_reasons", "get_return_reason", "create_return_reason",
    "update_return_reason", "delete_return_reason",
]

RELATIONS = ("parent_return_reason", "return_reason_children")
# The list is not paged (Medusa's clients load it whole, into a picker): this bounds it.
MAX_LISTED = 1000

def _live() -> QuerySet:
    return ReturnReason.filter(deleted_at=None)


def _not_found(reason_id: str) -> NotFound:
    return NotFound(f"Return Reason with id: {reason_id} was not found.")


def _duplicate(value: str) -> Duplicate:
    return Duplicate(f"Return_reason with value {value} already exists.")


async def list_return_reasons() -> list[ReturnReason]:
    """The top-level reasons, oldest first (at most MAX_LISTED), each with its live children."""
    return await (
        _live().filter(parent_return_reason_id=None).order_by("created_at", "id").limit(MAX_LISTED)
        .prefetch_related(*prefetches(ReturnReason, RELATIONS))
    )


async def get_return_reason(reason_id: str) -> ReturnReason:
    """The live reason with its parent and its live children."""
    found = fits(ReturnReason, reason_id) and await find_one(_live().filter(id=reason_id), RELATIONS)
    if not found:
        raise _not_found(reason_id)
    return found


async def _ensure_value_free(value: str, exclude_id: str | None = None) -> None:
    qs = _live().filter(value=value)
    if exclude_id is not None:
        qs = qs.exclude(id=exclude_id)
    if await qs.exists():
        raise _duplicate(value)


async def create_return_reason(
    *, value: str, label: str, description: str | None = None, parent_return_reason_id: str | None = None,
    metadata: dict | None = None,
) -> ReturnReason:
    """A new reason; under a parent only when that parent is itself top-level."""
    parent_id = parent_return_reason_id or None  # an empty id means none, as in Medusa
    try:
        async with atomic():
            if parent_id is not None:
                # Locked: a concurrent delete of the parent waits, then takes this child with it.
                parent = fits(ReturnReason, parent_id) and await _live().select_for_update().get_or_none(id=parent_id)
                if not parent:
                    raise _not_found(parent_id)
                if parent.parent_return_reason_id is not None:
                    raise InvalidData("Doubly nested return reasons is not supported")
            await _ensure_value_free(value)
            reason = await ReturnReason.create(
                value=value, label=label, description=description, parent_return_reason_id=parent_id,
                metadata=metadata,
            )
    except IntegrityError:  # a concurrent request took the value between the check and the insert
        raise _duplicate(value) from None
    return await get_return_reason(reason.id)


async def update_return_reason(
    reason_id: str, *, value: str | None = None, label: str | None = None,
    description: str | None | object = UNSET, metadata: dict | None = None,
) -> ReturnReason:
    """Change value, label, description (null clears it) or metadata (merged)."""
    async with atomic():
        reason = fits(ReturnReason, reason_id) and await _live().select_for_update().get_or_none(id=reason_id)
        if not reason:
            raise _not_found(reason_id)
        if value is not None and value != reason.value:
            await _ensure_value_free(value, exclude_id=reason_id)
        changed = apply_changes(reason, {"value": value, "label": label, "description": description},
                                clearable={"description"}, metadata=metadata)
        await save_changes(reason, changed, duplicate=_duplicate(value))
    return await get_return_reason(reason_id)


async def delete_return_reason(reason_id: str) -> None:
    """A soft delete of the reason and its children (their values are free again). Deleting a
    reason that does not exist, or no longer does, changes nothing and is no error."""
    if not fits(ReturnReason, reason_id):
        return
    async with atomic():
        # The lock first: a child being created under this reason is committed before the
        # children are read, so none outlives its parent.
        if await _live().select_for_update().get_or_none(id=reason_id) is None:
            return
        stamp = now()
        await _live().filter(parent_return_reason_id=reason_id).update(deleted_at=stamp, updated_at=stamp)
        await _live().filter(id=reason_id).update(deleted_at=stamp, updated_at=stamp)

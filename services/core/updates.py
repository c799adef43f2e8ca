"""A partial update of one row, as every admin `POST /admin/<resource>/{id}` makes it (Medusa v1's
update routes): only the columns the request gives change, a column that already holds the given
value is left alone, metadata is merged (services/core/metadata.py), and the row is written only
when something changed, with its `updated_at`, in one `UPDATE` of the changed columns.

A request leaves a column out by not giving it: its keyword is None, or UNSET for a column that
None clears (a description, a handle), which the update names in `clearable`."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from tortoise.exceptions import IntegrityError
from tortoise.models import Model

from services.core.errors import DomainError
from services.core.metadata import merge_metadata

__all__ = ["UNSET", "apply_changes", "save_changes"]

UNSET: Any = object()  # a keyword the request did not give, where None is a value (it clears the column)


def apply_changes(
    row: Model, changes: Mapping[str, Any], *, clearable: Collection[str] = (), metadata: dict | None = None,
) -> list[str]:
    """Set on `row` each column of `changes` that is given and differs from the row's value, then
    merge `metadata` into the row's when it is given (which always counts as a change, as Medusa
    v1 merges whatever is sent); the columns changed, in the order of `changes`, `metadata` last.
    A value is given unless it is UNSET, or None for a column not in `clearable`."""
    changed = []
    for column, value in changes.items():
        if value is UNSET or (value is None and column not in clearable):
            continue
        if value != getattr(row, column):
            setattr(row, column, value)
            changed.append(column)
    if metadata is not None:
        row.metadata = merge_metadata(row.metadata, metadata)
        changed.append("metadata")
    return changed


async def save_changes(row: Model, changed: Collection[str], *, duplicate: DomainError | None = None) -> bool:
    """Write the `changed` columns of `row` with its `updated_at`, when there are any; whether it
    wrote. `duplicate`: the area's error for a unique value a concurrent request took between the
    update's check and its write (the database's IntegrityError), raised in its place."""
    if not changed:
        return False
    try:
        await row.save(update_fields=[*changed, "updated_at"])
    except IntegrityError:
        if duplicate is None:
            raise
        raise duplicate from None
    return True

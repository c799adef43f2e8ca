"""Where the last runs left off, per entity: the next run reads only the source's rows changed
since, less a margin for rows a slow transaction committed late with an earlier `updated_at`
(re-copying a row is harmless: every write is an upsert).

A mark is written only once its entity is wholly copied, so an interrupted run redoes at most the
entity it was in."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from models import MigrationMark
from services.migration.medusa_v1.differences import MARK_PREFIXES

__all__ = ["MARGIN", "load_marks", "save_mark"]

MARGIN = timedelta(minutes=10)


async def load_marks() -> dict[str, datetime]:
    """Entity name -> the source time from which its rows must be read again."""
    marks = await MigrationMark.all()
    return {m.entity: m.snapshot_at - MARGIN for m in marks if not m.entity.startswith(MARK_PREFIXES)}


async def save_mark(entity: str, table: str, snapshot_at: datetime, high_water: datetime | None) -> None:
    values = {"source_table": table, "snapshot_at": snapshot_at, "finished_at": datetime.now(timezone.utc)}
    if high_water is not None:  # a run that found nothing new keeps the newest seen before
        values["high_water"] = high_water
    await MigrationMark.update_or_create(entity=entity, defaults=values)

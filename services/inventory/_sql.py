"""Hand-written statements of the inventory area, written once with `?` marks for both backends."""

from __future__ import annotations

import re
from datetime import datetime

from models import InventoryLevel
from services.core.clock import now

__all__ = ["rows", "db", "stamp", "marks"]

_MARK = re.compile(r"\?")


def db():
    return InventoryLevel._meta.db


def _text(dialect: str, sql: str) -> str:
    if dialect == "sqlite":
        return sql
    counter = iter(range(1, 10_000))
    return _MARK.sub(lambda _: f"${next(counter)}", sql)


def marks(n: int) -> str:
    """`?, ?, …` for an IN list of `n` values."""
    return ", ".join("?" * n) if n else "NULL"


async def rows(sql: str, values: list) -> list[dict]:
    """Run `sql` (marks `?`, one value each, in order) in the current transaction's connection:
    the answered rows (an UPDATE's RETURNING) as dicts."""
    connection = db()
    return await connection.execute_query_dict(_text(connection.capabilities.dialect, sql), values)


def stamp() -> datetime:
    """`updated_at` for a hand-written UPDATE (SQLite's adapter writes it as Tortoise does)."""
    return now()

"""Units of work: one transaction, with hooks that run only after it commits, and writes that
are sent together at its end.

The job outbox uses the hooks: a job row is written inside the transaction and handed to the
broker after commit, so a rolled-back change never starts a job.

A write nothing in the transaction reads back, and whose failure nobody catches where it is asked
for (an event's row, a job's, the rows a placed order leaves), may be put off to the unit's end
(`write_at_end`): every such write is then sent before the commit, on PostgreSQL in one statement
(each a data-modifying WITH query of the last: all of them run, each exactly once, and the foreign
keys between them are checked at the statement's end), on SQLite one after the other. So none may
act on a row another put-off write makes or changes (in one PostgreSQL statement each sees the rows
as they were before it; an insert and a row it refers to are fine). A put-off
write that fails fails the unit as it would have where it was asked for: nothing commits. A round
trip per write was most of what such writes cost (a checkout's completion made nine of them).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from functools import lru_cache
import logging
import re

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.transactions import in_transaction

__all__ = ["UnitOfWork", "atomic", "write_at_end", "write_now"]

log = logging.getLogger(__name__)

_current: ContextVar["UnitOfWork | None"] = ContextVar("unit_of_work", default=None)


class UnitOfWork:
    def __init__(self, connection: BaseDBAsyncClient):
        self.connection = connection
        self._after_commit: list[Callable[[], Awaitable[None]]] = []
        self._at_end: list[tuple[str, list]] = []

    def write_at_end(self, text: str, values: list) -> None:
        """Send the data-modifying `text` (the connection's dialect's marks, no RETURNING) at the
        unit's end, before its commit (see the module's note)."""
        self._at_end.append((text, values))

    async def write_now(self) -> None:
        """Send the writes put off so far (a statement about to read or reference them follows)."""
        pending, self._at_end = self._at_end, []
        if not pending:
            return
        if self.connection.capabilities.dialect != "postgres":
            # SQLite runs them in order, rows of one statement in a row together (a line's tax lines)
            n = 0
            while n < len(pending):
                text, values = pending[n]
                same = n + 1
                while same < len(pending) and pending[same][0] == text:
                    same += 1
                if same == n + 1:
                    await self.connection.execute_query(text, values)
                else:
                    await self.connection.execute_many(text, [these for _, these in pending[n:same]])
                n = same
            return
        texts, values = [], []
        for text, these in pending:
            texts.append(text)
            values.extend(these)
        await self.connection.execute_query(_together(tuple(texts)), values)

    def after_commit(self, hook: Callable[[], Awaitable[None]]) -> None:
        self._after_commit.append(hook)

    async def _run_hooks(self) -> None:
        for hook in self._after_commit:
            try:
                await hook()
            except Exception:  # a hook must never undo a committed change; the outbox sweeps later
                log.exception("after-commit hook failed")


@asynccontextmanager
async def atomic() -> AsyncIterator[UnitOfWork]:
    """Open a transaction, or join the one this task already has open."""
    outer = _current.get()
    if outer is not None:
        yield outer
        return
    async with in_transaction() as connection:
        unit = UnitOfWork(connection)
        token = _current.set(unit)
        try:
            yield unit
            await unit.write_now()
        finally:
            _current.reset(token)
    await unit._run_hooks()


def write_at_end(text: str, values: list) -> bool:
    """`UnitOfWork.write_at_end` of the unit this task has open; False when none is open (the
    caller writes now: there is no end to wait for)."""
    unit = _current.get()
    if unit is None:
        return False
    unit.write_at_end(text, values)
    return True


async def write_now() -> None:
    """Send the writes the open unit (if any) has put off so far."""
    unit = _current.get()
    if unit is not None:
        await unit.write_now()


_MARK = re.compile(r"\$(\d+)")


@lru_cache(maxsize=512)
def _together(texts: tuple[str, ...]) -> str:
    """PostgreSQL statements (marks `$1`… each) as one: all but the last as data-modifying WITH
    queries of the last, each one's marks numbered on from the previous ones'. None of them may
    hold a WITH of its own (PostgreSQL allows data-modifying WITH queries at the top level only)."""
    numbered, offset = [], 0
    for text in texts:
        if text.lstrip().upper().startswith("WITH"):
            raise ValueError("a write put off to the unit's end cannot have a WITH of its own")
        marks = [int(n) for n in _MARK.findall(text)]
        numbered.append(_MARK.sub(lambda m, base=offset: f"${int(m.group(1)) + base}", text))
        offset += max(marks, default=0)
    if len(numbered) == 1:
        return numbered[0]
    withs = ", ".join(f'"w{n}" AS ({text})' for n, text in enumerate(numbered[:-1]))
    return f"WITH {withs} {numbered[-1]}"

"""Units of work: one transaction, with hooks that run only after it commits.

The job outbox uses the hooks: a job row is written inside the transaction and handed to the
broker after commit, so a rolled-back change never starts a job.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
import logging

from tortoise.backends.base.client import BaseDBAsyncClient
from tortoise.transactions import in_transaction

__all__ = ["UnitOfWork", "atomic"]

log = logging.getLogger(__name__)

_current: ContextVar["UnitOfWork | None"] = ContextVar("unit_of_work", default=None)


class UnitOfWork:
    def __init__(self, connection: BaseDBAsyncClient):
        self.connection = connection
        self._after_commit: list[Callable[[], Awaitable[None]]] = []

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
        finally:
            _current.reset(token)
    await unit._run_hooks()

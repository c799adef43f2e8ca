"""The database's passing trouble, told apart from faults: the one place that says which errors
mean "the same request may succeed in a moment".

- A **lost connection**: its session was killed, the server restarted or is starting, the network
  dropped it. The work on it is gone (PostgreSQL rolls back an unfinished transaction) and a fresh
  connection can run it again.
- Other **transient** errors: a serialization failure or a deadlock (PostgreSQL chose this
  transaction to roll back), too many connections, SQLite's "database is locked" after its busy
  timeout. Running the same work again at once may meet the same contention.

asyncpg's errors reach us unwrapped, or as the context of the error a rollback on the dead
connection raised; SQLite's as Tortoise's OperationalError. So the whole chain is looked at.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import asyncpg.exceptions as pg
from tortoise import connections
from tortoise.exceptions import DBConnectionError, OperationalError

from services.core.errors import DomainError

__all__ = ["connection_lost", "transient", "discard_connections", "DatabaseUnavailable", "RETRY_AFTER_SECONDS"]

RETRY_AFTER_SECONDS = 2  # as a stopped checkout's: a killed session is back at once, a restart takes seconds

_LOST = (
    ConnectionError, DBConnectionError,  # refused or reset (the server is down or restarting)
    pg.PostgresConnectionError,  # SQLSTATE class 08, and asyncpg's ConnectionDoesNotExistError
    pg.AdminShutdownError, pg.CrashShutdownError, pg.CannotConnectNowError,  # 57P01-57P03
    pg.InternalClientError,  # the protocol left mid-message by a dropped socket
)
_CONTENDED = (pg.SerializationError, pg.DeadlockDetectedError, pg.TooManyConnectionsError)
_SQLITE_LOCKED = ("database is locked", "database table is locked")


class DatabaseUnavailable(DomainError):
    """What a request that met the database's passing trouble answers: retry after `retry_after`."""

    kind = "database_error"

    def __init__(self):
        super().__init__("The database is unavailable for a moment. Retry the request.",
                         code="database_unavailable")
        self.retry_after = RETRY_AFTER_SECONDS


def connection_lost(error: BaseException) -> bool:
    """Whether `error` (or what caused it) is a lost database connection: the work may be run
    again, once, on a fresh connection."""
    return any(_lost(e) for e in _chain(error))


def transient(error: BaseException) -> bool:
    """Whether `error` is the database's passing trouble (a lost connection, or contention it
    resolved by refusing this transaction), not a fault of the request or of the code."""
    return any(_lost(e) or _contended(e) for e in _chain(error))


async def discard_connections() -> None:
    """After a lost connection, the pool's others are suspect too (a restart or a mass kill drops
    them all): each is replaced by a fresh one when next taken. SQLite has nothing to discard."""
    for client in connections.all():
        client = getattr(client, "_parent", client)  # inside a transaction: the pool's own client
        pool = getattr(client, "_pool", None)
        if pool is not None and hasattr(pool, "expire_connections"):
            await pool.expire_connections()


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    while error is not None and id(error) not in seen and len(seen) < 16:
        if type(error).__module__.partition(".")[0] == "redis":
            return  # Redis's trouble, with the socket errors it was raised from: not the database's
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def _lost(error: BaseException) -> bool:
    if isinstance(error, _LOST):
        return True
    # asyncpg's word for a connection found closed when it was used, with nothing chained to it.
    return isinstance(error, pg.InterfaceError) and "connection is closed" in str(error)


def _contended(error: BaseException) -> bool:
    if isinstance(error, _CONTENDED):
        return True
    return isinstance(error, (OperationalError, sqlite3.OperationalError)) and str(error).startswith(_SQLITE_LOCKED)

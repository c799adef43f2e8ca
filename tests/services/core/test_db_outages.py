"""Which database errors are its passing trouble: a lost connection (run the work again on a fresh
one) or contention it resolved by refusing the transaction (answer 503); anything else is a fault."""

import sqlite3

import asyncpg.exceptions as pg
from tortoise.exceptions import IntegrityError, OperationalError

from services.core.db_outages import connection_lost, transient


def _raised_while_handling(error: BaseException, during: BaseException) -> BaseException:
    """`error` as raised while `during` was handled (as a rollback on a dead connection is)."""
    try:
        try:
            raise during
        except BaseException:
            raise error
    except BaseException as e:
        return e


def test_a_killed_session_is_a_lost_connection_even_under_the_failed_rollback():
    killed = pg.ConnectionDoesNotExistError("connection was closed in the middle of operation")
    rollback = _raised_while_handling(
        pg.InterfaceError("cannot call Transaction.rollback(): the underlying connection is closed"), killed)
    for error in (killed, rollback, pg.AdminShutdownError("terminating connection due to administrator command"),
                  pg.InternalClientError("unexpected message"), ConnectionRefusedError(111, "refused"),
                  pg.InterfaceError("cannot call Connection.fetch(): connection is closed")):
        assert connection_lost(error) and transient(error), error


def test_contention_is_transient_but_not_a_lost_connection():
    for error in (pg.DeadlockDetectedError("deadlock detected"), pg.SerializationError("could not serialize")):
        assert transient(error) and not connection_lost(error)


def test_a_locked_sqlite_database_is_transient_as_tortoise_raises_it(tmp_path):
    path = str(tmp_path / "locked.sqlite3")
    holder, waiter = sqlite3.connect(path), sqlite3.connect(path, timeout=0)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another writer holds the database
        try:
            waiter.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            error = _raised_while_handling(OperationalError(exc), exc)  # as tortoise's SQLite client raises it
    finally:
        holder.close()
        waiter.close()
    assert isinstance(error, OperationalError) and str(error) == "database is locked"
    assert transient(error) and not connection_lost(error)


def test_faults_are_neither():
    for error in (RuntimeError("a bug"), pg.UndefinedColumnError("column x does not exist"),
                  OperationalError("no such table: x"), IntegrityError("duplicate key"),
                  pg.InterfaceError("cannot perform operation: another operation is in progress"),
                  pg.QueryCanceledError("canceling statement due to statement timeout")):
        assert not transient(error) and not connection_lost(error), error

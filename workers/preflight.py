"""What is wrong with the database and Redis a command is about to use, said in one line with what
to do about it, before the command starts (instead of the driver's traceback from deep inside).

A problem is *lasting* when waiting will not mend it (no such database, a refused password, a host
name that does not resolve) and *passing* when it may (nothing answers yet, too many connections):
`commerce serve` starts through a passing one, since the running server answers 503 until the
database or Redis is back; every other command needs them now.
"""

from __future__ import annotations

import asyncio
import os
import socket
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from app.config import Settings

__all__ = ["Problem", "Refused", "database_problem", "redis_problem", "where", "createdb", "EX_DATAERR", "EX_UNAVAILABLE", "EX_CONFIG"]

# sysexits.h, so scripts and supervisors can tell these apart from a crash (1).
EX_DATAERR = 65  # an input file is not what it must be
EX_UNAVAILABLE = 69  # the database or Redis cannot be used
EX_CONFIG = 78  # the environment describes a configuration the service refuses

CONNECT_SECONDS = 5.0


@dataclass(frozen=True)
class Problem:
    line: str  # what is wrong and what to do, one line
    lasting: bool  # True: waiting will not mend it


class Refused(Exception):
    """A command refused in one line (on stderr) with its exit code."""

    def __init__(self, line: str, exit_code: int):
        super().__init__(line)
        self.line, self.exit_code = line, exit_code


def where(url: str) -> str:
    """host:port/name of a URL, never its user or password."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    return f"{host}{port}{parts.path}"


NOT_MIGRATED = "run `commerce migrate` first (or `commerce start`, which also loads the demo store)"


async def database_problem(settings: Settings, *, needs_schema: bool = False) -> Problem | None:
    """`needs_schema`: the command does not migrate itself, so the tables must be there."""
    if not settings.is_postgres:
        return _sqlite_problem(settings.database_url, needs_schema)
    import asyncpg

    credentials = _credentials(settings.database_url)
    host, port, user, name = (credentials.get(k) for k in ("host", "port", "user", "database"))
    at = f"PostgreSQL at {host}:{port}"
    try:
        conn = await asyncpg.connect(host=host, port=port, user=user, password=credentials.get("password"),
                                     database=name, timeout=CONNECT_SECONDS, ssl=credentials.get("ssl"))
    except asyncpg.InvalidCatalogNameError:
        return Problem(f"the database {name!r} does not exist on {at}: create it "
                       f"({createdb(settings.database_url)}) or name another in DATABASE_URL", True)
    except (asyncpg.InvalidPasswordError, asyncpg.InvalidAuthorizationSpecificationError) as e:
        return Problem(f"{at} refused the user {user!r}: {_first_line(e)}; fix the user or password in DATABASE_URL",
                       True)
    except socket.gaierror:
        return Problem(f"the host {host!r} of DATABASE_URL does not resolve: fix the host name", True)
    except (asyncpg.TooManyConnectionsError, asyncpg.CannotConnectNowError) as e:
        return Problem(f"{at} refuses connections for now: {_first_line(e)}", False)
    except (OSError, asyncio.TimeoutError) as e:
        why = _cause(e) if isinstance(e, OSError) else f"no answer within {CONNECT_SECONDS:g} s"
        return Problem(f"nothing answers at {host}:{port} (DATABASE_URL): {why}; start PostgreSQL or fix the host "
                       "and port", False)
    except asyncpg.PostgresError as e:
        return Problem(f"{at} refused the connection: {_first_line(e)}", True)
    try:
        if needs_schema and not await conn.fetchval("SELECT to_regclass('store') IS NOT NULL"):
            return Problem(f"the database {name!r} on {at} has no tables yet: {NOT_MIGRATED}", True)
    finally:
        await conn.close()
    return None


def createdb(postgres_url: str, name: str | None = None) -> str:
    """The command that creates the URL's database (or `name` on its server)."""
    c = _credentials(postgres_url)
    return f"createdb -h {c['host']} -p {c['port']} -U {c['user']} {name or c['database']}"


def _credentials(postgres_url: str) -> dict:
    from app.config import tortoise_config

    return tortoise_config(postgres_url)["connections"]["default"]["credentials"]


def _sqlite_problem(url: str, needs_schema: bool) -> Problem | None:
    """The file's folder made (as every command would), and the file writable by this user."""
    path = url[len("sqlite://"):].split("?", 1)[0]
    if not path or path == ":memory:":
        return None
    file = Path(path)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return Problem(f"cannot make the folder of the SQLite database {path} (DATABASE_URL): "
                       f"{e.strerror}; choose another path", True)
    target = file if file.exists() else file.parent
    if file.is_dir() or not os.access(target, os.W_OK):
        return Problem(f"cannot write the SQLite database at {path} (DATABASE_URL): {target} is not a file this "
                       "user may write; choose another path", True)
    if needs_schema and not _sqlite_has_store(file):
        return Problem(f"the SQLite database at {path} has no tables yet: {NOT_MIGRATED}", True)
    return None


def _sqlite_has_store(file: Path) -> bool:
    if not file.exists():
        return False
    import sqlite3

    try:  # read-only: looking must not create the file
        with closing(sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store'").fetchone() is not None
    except sqlite3.DatabaseError:
        return False


async def redis_problem(settings: Settings) -> Problem | None:
    if settings.embedded:
        return None
    import redis.asyncio as aioredis
    from redis.exceptions import AuthenticationError, RedisError, ResponseError

    at = f"Redis at {where(settings.redis_url)}"
    client = aioredis.from_url(settings.redis_url, socket_connect_timeout=CONNECT_SECONDS,
                               socket_timeout=CONNECT_SECONDS)
    try:
        await client.ping()
    except (AuthenticationError, ResponseError) as e:
        return Problem(f"{at} refused this client: {_first_line(e)}; fix the password in REDIS_URL", True)
    except (RedisError, OSError) as e:
        return Problem(f"{at} does not answer (REDIS_URL): {_cause(e)}; start Redis, fix REDIS_URL, or unset it "
                       "to run embedded (jobs inside `commerce serve`)", False)
    finally:
        await client.aclose()
    return None


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _cause(error: BaseException) -> str:
    """The operating system's word for a failed connection (Connection refused), else the error's."""
    seen, depth = error, 0
    while seen is not None and depth < 16:  # bounded: a chain may loop back on itself
        if isinstance(seen, OSError) and seen.errno:
            return os.strerror(seen.errno)
        seen, depth = seen.__cause__ or seen.__context__, depth + 1
    return _first_line(error)

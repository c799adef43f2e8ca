"""A database connection that drops (its session killed, the server restarted) is the database's
passing trouble, not a fault: a read (GET, HEAD) is run again once on a fresh connection, any
other request answers 503 with Retry-After, and nothing of it is half-written."""

import asyncio
import logging
from contextlib import asynccontextmanager

import asyncpg
import pytest
from prometheus_client import REGISTRY
from sanic import Request
from tortoise.exceptions import OperationalError

from app.server import create_app
from app.web.responses import json
from models import Product
from tests.conftest import SETTINGS, requires_postgres, running, settings, wait_for

PRODUCTS_ROUTE = "/store/products"


def _requests(method: str, route: str, status: int) -> float:
    labels = {"method": method, "route": route, "status": str(status)}
    return REGISTRY.get_sample_value("commerce_http_requests_total", labels) or 0.0


@asynccontextmanager
async def table_locked(table: str):
    """Another session holding `table` locked: the server's next query of it waits. Yields that
    session, which can kill every other session of the database while they wait."""
    db = await asyncpg.connect(SETTINGS.database_url)
    try:
        async with db.transaction():
            await db.execute(f'LOCK TABLE "{table}" IN ACCESS EXCLUSIVE MODE')
            yield db
    finally:
        await db.close()


async def kill_the_servers_sessions_once_one_waits(db) -> None:
    async def waiting():
        await db.execute("SELECT pg_stat_clear_snapshot()")  # a transaction otherwise sees one snapshot
        return await db.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
    await wait_for(waiting, timeout=20)
    killed = await db.fetchval(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    assert killed >= 1


@requires_postgres("kills PostgreSQL sessions")
async def test_a_read_whose_connection_is_killed_is_answered_from_a_fresh_one(client, admin_headers, caplog):
    # Given a product, and a request for it waiting on a table another session holds
    r = await client.post("/admin/products", json={"title": "Outage shirt", "status": "published"}, headers=admin_headers)
    assert r.status_code == 200, r.text
    ok, failed = _requests("GET", PRODUCTS_ROUTE, 200), _requests("GET", PRODUCTS_ROUTE, 500)
    caplog.set_level(logging.INFO)
    async with table_locked("product") as db:
        read = asyncio.create_task(client.get(PRODUCTS_ROUTE, headers={"X-Request-Id": "outage-read"}))
        # When every session of the server is killed while it waits
        await kill_the_servers_sessions_once_one_waits(db)
    # I expect the read to be answered, from a fresh connection
    r = await read
    assert r.status_code == 200, r.text
    assert [p["title"] for p in r.json()["products"]] == ["Outage shirt"]
    # logged as a warning, without a traceback at ERROR; the request's line and metrics say 200
    assert any(rec.levelno == logging.WARNING and "retried" in rec.getMessage() for rec in caplog.records)
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR]
    [line] = [rec for rec in caplog.records if rec.name == "commerce.access" and "outage-read" in rec.getMessage()]
    assert line.http["status"] == 200
    assert _requests("GET", PRODUCTS_ROUTE, 200) == ok + 1 and _requests("GET", PRODUCTS_ROUTE, 500) == failed
    # and the server keeps serving
    assert (await client.get(PRODUCTS_ROUTE)).status_code == 200


@requires_postgres("kills PostgreSQL sessions")
async def test_a_write_whose_connection_is_killed_is_a_503_and_leaves_nothing(client, admin_headers):
    # Given a product being created, its transaction waiting on a table another session holds
    # (its row is written by then: images are linked last)
    body = {"title": "Half shirt", "images": ["https://img.example/half.png"], "options": [{"title": "Size"}]}
    async with table_locked("image") as db:
        write = asyncio.create_task(client.post("/admin/products", json=body, headers=admin_headers))
        # When every session of the server is killed while it waits
        await kill_the_servers_sessions_once_one_waits(db)
    # I expect a 503 with Retry-After and a JSON error
    r = await write
    assert r.status_code == 503, r.text
    assert int(r.headers["retry-after"]) >= 1
    assert r.json() == {
        "type": "database_error", "code": "database_unavailable",
        "message": "The database is unavailable for a moment. Retry the request.",
    }
    # and nothing of the product written
    assert await Product.filter(title="Half shirt").count() == 0
    # and the server keeps serving: the same request succeeds now
    r = await client.post("/admin/products", json=body, headers=admin_headers)
    assert r.status_code == 200, r.text
    assert await Product.filter(title="Half shirt").count() == 1


# ---------------------------------------------------------------- which errors, on either backend


def _lost() -> Exception:
    return asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation")


def outage_app(calls: dict):
    """The real app plus routes whose first runs fail as a dropped connection (or otherwise)."""
    app = create_app(settings(), manage_orm=False)

    def failing(name: str, errors: list):
        async def handler(request: Request):
            calls[name] = calls.get(name, 0) + 1
            if calls[name] <= len(errors):
                raise errors[calls[name] - 1]
            return json({"runs": calls[name]})
        handler.__name__ = name
        return handler

    app.add_route(failing("lost_once", [_lost()]), "/store/lost-once", methods=["GET", "POST"])
    app.add_route(failing("lost_twice", [_lost(), _lost()]), "/store/lost-twice")
    app.add_route(failing("broken", [RuntimeError("a real bug")]), "/store/broken")
    locked = OperationalError("database is locked")
    app.add_route(failing("locked", [locked, locked]), "/store/locked", methods=["GET", "POST"])
    return app


@pytest.fixture
async def outage(database):
    calls: dict = {}
    async with running(outage_app(calls)) as client:
        yield client, calls


async def test_a_read_is_run_again_once_when_its_connection_dropped(outage, caplog):
    client, calls = outage
    r = await client.get("/store/lost-once")
    assert r.status_code == 200 and r.json() == {"runs": 2}
    # a second drop is answered 503 rather than retried again
    r = await client.get("/store/lost-twice")
    assert r.status_code == 503 and r.headers["retry-after"] and r.json()["code"] == "database_unavailable"
    assert calls["lost_twice"] == 2


async def test_a_write_is_never_run_again_and_answers_503(outage):
    client, calls = outage
    r = await client.post("/store/lost-once")
    assert r.status_code == 503 and r.headers["retry-after"] and r.json()["type"] == "database_error"
    assert calls["lost_once"] == 1


async def test_a_real_bug_is_not_retried_but_a_500_with_its_traceback(outage, caplog):
    client, calls = outage
    with caplog.at_level(logging.ERROR, logger="commerce.errors"):
        r = await client.get("/store/broken")
    assert r.status_code == 500 and r.json()["code"] == "unknown_error"
    assert calls["broken"] == 1
    assert any(rec.exc_info and isinstance(rec.exc_info[1], RuntimeError) for rec in caplog.records)


async def test_a_locked_sqlite_database_answers_503_and_is_not_retried(outage):
    client, calls = outage
    for method in ("GET", "POST"):
        r = await client.request(method, "/store/locked")
        assert r.status_code == 503 and r.headers["retry-after"] and r.json()["code"] == "database_unavailable"
    assert calls["locked"] == 2  # once each: waiting on a lock is not a lost connection

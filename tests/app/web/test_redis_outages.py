"""Redis out of reach while the server runs: what needs it (sessions) answers 503 with Retry-After
naming Redis, not the database; and nothing is retried or discarded on the database's side."""

import logging
from dataclasses import replace

from app.server import create_app
from tests.conftest import SETTINGS, _free_port, running


async def test_a_sign_in_while_redis_is_down_answers_503_naming_redis_not_the_database(admin, caplog):
    # Given a server whose REDIS_URL points where nothing listens (Redis stopped after it started)
    port = _free_port()
    down = replace(SETTINGS, redis_url=f"redis://127.0.0.1:{port}/0")
    app = create_app(down, manage_orm=False, name="commerce_test_redis_down")
    caplog.set_level(logging.WARNING)
    async with running(app) as client:
        # When the admin signs in (the session lives in Redis)
        r = await client.post("/admin/auth", json={"email": "admin@test.com", "password": "supersecret"})
    # I expect a 503 to retry, that blames Redis
    assert r.status_code == 503, r.text
    assert r.json() == {"type": "unexpected_state", "code": "redis_unavailable",
                        "message": "Redis, where sessions are kept, is unavailable for a moment. Retry the request."}
    assert r.headers["Retry-After"] == "2"
    # and the log says which Redis, and nothing about the database
    logged = [record.getMessage() for record in caplog.records]
    assert any("Redis is unavailable" in line and f"127.0.0.1:{port}" in line for line in logged), logged
    assert not any("database is unavailable" in line for line in logged), logged


def test_redis_refusing_is_not_taken_for_the_database_losing_its_connection():
    import redis.exceptions

    from app.web.redis_outages import redis_unreachable
    from services.core.db_outages import connection_lost, transient

    # Given Redis's error, raised from the socket's (a ConnectionError, as a database's would be)
    try:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except OSError as socket_error:
            raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6390") from socket_error
    except redis.exceptions.RedisError as e:
        error = e
    # I expect Redis named, and the database's pool left alone
    assert redis_unreachable(error)
    assert not connection_lost(error) and not transient(error)

"""`commerce serve` (two web processes) started while PostgreSQL is not there: it serves, answers
503 until the database accepts connections, then 200; and a start that cannot succeed says why in
one line and stops only its own processes. PostgreSQL is reached through a stand-in of the test's
(tests/workers/db_gate.py), so the shared server's settings stay as they are."""

import asyncio
import os
import subprocess
import sys

import httpx
import pytest

from tests.conftest import PATIENCE, SETTINGS, _free_port, requires_postgres, wait_for
from tests.jobs.test_broker_outage import private_redis  # noqa: F401 (fixture)
from tests.workers.db_gate import DatabaseGate
from tests.workers.test_stranded_jobs import Output

pytestmark = requires_postgres("needs PostgreSQL: the web processes reach it through a gate")


class _Serve:
    """`commerce serve --workers 2` in a session of its own, started by a shell that also starts a
    bystander (`sleep`) in the same process group, as a script starting every process would."""

    def __init__(self, database_url: str, redis_url: str):
        self.port = _free_port()
        env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url, "LOG_LEVEL": "INFO"}
        serve = f"exec {sys.executable} -m workers.cli serve --port {self.port} --workers 2"
        self.proc = subprocess.Popen(["sh", "-c", f"sleep 600 & echo $! >&2; {serve}"], env=env,
                                     start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.bystander = int(self.proc.stderr.readline())
        self.out = Output(self.proc)


@pytest.fixture
def gate():
    with DatabaseGate(SETTINGS.database_url, mode="refuse") as g:
        yield g


async def _status(url: str) -> int | None:
    try:
        async with httpx.AsyncClient(timeout=10) as client:
            return (await client.get(url)).status_code
    except httpx.TransportError:
        return None


async def test_serve_started_while_postgresql_refuses_answers_503_then_200_once_it_accepts(gate, private_redis):
    # Given PostgreSQL refusing connections (at its connection limit) when `commerce serve` starts
    server = _Serve(gate.url, private_redis.url)
    base = f"http://127.0.0.1:{server.port}"
    try:
        # I expect it to start all the same (Sanic gives a start 30 s; this waits on the answer)
        await wait_for(lambda: _is(f"{base}/health", 200), timeout=PATIENCE, interval=0.1)
        # and a request that needs the database to answer 503 with Retry-After, as in any outage
        async with httpx.AsyncClient(timeout=10) as client:
            r = await client.get(f"{base}/store/regions")
        assert r.status_code == 503, (r.status_code, r.text, server.out.text[-3000:])
        assert r.json()["code"] == "database_unavailable" and r.headers["retry-after"]
        assert "database unreachable at start" in server.out.text, server.out.text[-3000:]
        # When PostgreSQL accepts connections again
        gate.mode = "open"
        # I expect the same request answered 200
        await wait_for(lambda: _is(f"{base}/store/regions", 200), timeout=PATIENCE, interval=0.2)
        # and the start-up work that needed the database done in the background
        await wait_for(lambda: _true("database reachable: providers' rows done" in server.out.text))
        assert server.proc.poll() is None
    finally:
        server.out.kill()  # the whole group, the bystander with it


async def test_a_web_process_that_cannot_start_is_named_and_only_its_own_processes_stop(gate, private_redis):
    # Given a database that refuses this server's password (a fault a retry cannot mend) from the
    # moment the command's own check before starting (one connection) is done, and a bystander in the
    # same process group (a worker started by the same script)
    gate.mode = "bad_password"
    gate.pass_first = 1
    server = _Serve(gate.url, private_redis.url)
    try:
        # When `commerce serve` fails to start
        code = await asyncio.to_thread(server.proc.wait, PATIENCE)
        # I expect it to say why in one line, the first web process's exception
        assert code == 1, (code, server.out.text[-3000:])
        why = [line for line in server.out.lines if "a web process could not start:" in line]
        assert why and "InvalidPasswordError" in why[0] and "password authentication failed" in why[0], \
            server.out.text[-3000:]
        # and the bystander still running: only the server's own processes were killed
        assert _running(server.bystander), server.out.text[-3000:]
    finally:
        server.out.kill()  # the whole group, the bystander with it


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def _is(url: str, status: int):
    return (await _status(url)) == status or None


async def _true(value: bool):
    return value or None

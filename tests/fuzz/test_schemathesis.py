"""Fuzzing every operation of our own OpenAPI document with schemathesis against a real server
process on PostgreSQL + Redis, signed in as the admin (a JWT) and as a customer (the session
cookie), bounded by a number of test cases per operation (never by time, so a busy machine runs
the same cases, only slower): the build fails on any 5xx or on an answer that breaks the document."""

import os
import re
import subprocess
import sys
import time

import httpx

from tests.conftest import NAMESPACE, PATIENCE, REDIS_URL, SETTINGS, _free_port, requires_postgres, stop_process

pytestmark = requires_postgres("fuzzes a real server process on PostgreSQL and Redis")

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "5"))  # test cases per operation, at most
# Only so that a wedged run ends: the run is bounded by its cases, however long a busy machine takes.
FUZZ_RUN_LIMIT_SECONDS = 3600


def _serve(port: int, log) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": SETTINGS.database_url, "REDIS_URL": REDIS_URL, "REDIS_NAMESPACE": NAMESPACE,
           "JWT_SECRET": SETTINGS.jwt_secret, "LOG_LEVEL": "WARNING"}
    return subprocess.Popen([sys.executable, "-m", "workers.cli", "serve", "--port", str(port)], env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=log)


def _up(base: str, proc: subprocess.Popen, log) -> None:
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise AssertionError(log.read().decode(errors="replace")[-3000:])
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the server did not come up within {PATIENCE:.0f} s")


def test_every_operation_survives_fuzzing_without_a_5xx_or_an_answer_off_the_document(seeded, tmp_path):
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "server.log").open("w+b")  # a file, not a pipe: a full pipe would stall the server
    server = _serve(port, log)
    try:
        _up(base, server, log)
        token = httpx.post(f"{base}/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"},
                           timeout=PATIENCE)
        jwt = token.json()["access_token"]
        with httpx.Client(base_url=base, timeout=PATIENCE) as shopper:
            shopper.post("/store/customers", json={"email": "fuzz@example.com", "password": "fuzz-password-1",
                                                   "first_name": "Fuzz", "last_name": "Er"}).raise_for_status()
            shopper.post("/store/auth", json={"email": "fuzz@example.com", "password": "fuzz-password-1"})
            cookie = shopper.cookies.get("connect.sid")
        assert cookie
        run = subprocess.run([
            sys.executable, "-m", "schemathesis.cli", "run", f"{base}/openapi.json",
            "-H", f"Authorization: Bearer {jwt}", "-H", f"Cookie: connect.sid={cookie}",
            "--checks", "not_a_server_error,response_schema_conformance", "--phases", "fuzzing",
            "--max-examples", str(FUZZ_EXAMPLES), "--workers", "4", "--seed", "20261124",
            "--request-timeout", str(PATIENCE),
            # Signing out would end the shopper's session the rest of the run relies on.
            "--exclude-path-regex", "^/(admin|store)/auth$",
        ], capture_output=True, text=True, timeout=FUZZ_RUN_LIMIT_SECONDS)
        summary = run.stdout[-4000:]
        assert run.returncode == 0, summary + run.stderr[-2000:]
        counted = re.search(r"(\d+) generated, (\d+) passed", summary)
        print(counted and counted.group(0))
        assert counted and counted.group(1) == counted.group(2) and int(counted.group(1)) > 1000, summary
    finally:
        stop_process(server)
        log.close()

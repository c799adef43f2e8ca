"""Fuzzing every operation of our own OpenAPI document with schemathesis against a real server
process on PostgreSQL + Redis, signed in as the admin (a JWT) and as a customer (the session
cookie), bounded in time: the build fails on any 5xx or on an answer that breaks the document."""

import os
import re
import subprocess
import sys
import time

import httpx

from tests.conftest import NAMESPACE, REDIS_URL, SETTINGS, _free_port, requires_postgres

pytestmark = requires_postgres("fuzzes a real server process on PostgreSQL and Redis")

FUZZ_SECONDS = int(os.environ.get("FUZZ_SECONDS", "75"))


def _serve(port: int) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": SETTINGS.database_url, "REDIS_URL": REDIS_URL, "REDIS_NAMESPACE": NAMESPACE,
           "JWT_SECRET": SETTINGS.jwt_secret, "LOG_LEVEL": "WARNING"}
    return subprocess.Popen([sys.executable, "-m", "workers.cli", "serve", "--port", str(port)], env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _up(base: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read().decode(errors="replace")[-3000:])
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("the server did not come up within 60 s")


def test_every_operation_survives_fuzzing_without_a_5xx_or_an_answer_off_the_document(seeded):
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = _serve(port)
    try:
        _up(base, server)
        token = httpx.post(f"{base}/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"})
        jwt = token.json()["access_token"]
        with httpx.Client(base_url=base) as shopper:
            shopper.post("/store/customers", json={"email": "fuzz@example.com", "password": "fuzz-password-1",
                                                   "first_name": "Fuzz", "last_name": "Er"}).raise_for_status()
            shopper.post("/store/auth", json={"email": "fuzz@example.com", "password": "fuzz-password-1"})
            cookie = shopper.cookies.get("connect.sid")
        assert cookie
        run = subprocess.run([
            sys.executable, "-m", "schemathesis.cli", "run", f"{base}/openapi.json",
            "-H", f"Authorization: Bearer {jwt}", "-H", f"Cookie: connect.sid={cookie}",
            "--checks", "not_a_server_error,response_schema_conformance", "--phases", "fuzzing",
            "--max-examples", "5", "--workers", "4", "--max-time", str(FUZZ_SECONDS), "--seed", "20261124",
            # Signing out would end the shopper's session the rest of the run relies on.
            "--exclude-path-regex", "^/(admin|store)/auth$",
        ], capture_output=True, text=True, timeout=FUZZ_SECONDS + 120)
        summary = run.stdout[-4000:]
        assert run.returncode == 0, summary + run.stderr[-2000:]
        counted = re.search(r"(\d+) generated, (\d+) passed", summary)
        assert counted and counted.group(1) == counted.group(2) and int(counted.group(1)) > 1000, summary
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()

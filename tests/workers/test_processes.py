"""The processes as an operator runs them: `commerce migrate`, `seed` (twice), `serve`, and on
PostgreSQL + Redis also `worker` and `scheduler`. The seeded store is served and jobs run."""

import json
import os
import sqlite3
import subprocess
import sys
import time
import uuid

import httpx

from tests.conftest import BACKEND, PATIENCE, REDIS_URL, SETTINGS, _free_port
from workers.cli import DEMO_SEED


def _env(tmp_path) -> dict:
    env = {**os.environ, "SCHEDULER_INTERVAL_SECONDS": "0.5", "OUTBOX_GRACE_SECONDS": "0", "LOG_LEVEL": "WARNING"}
    env.pop("REDIS_URL", None)
    if BACKEND == "postgres":
        env.update(DATABASE_URL=SETTINGS.database_url, REDIS_URL=REDIS_URL)
    else:
        env["DATABASE_URL"] = f"sqlite://{tmp_path / 'store.sqlite3'}"
    return env


def _cli(env, *args, check=True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.cli", *args], env=env, capture_output=True,
                          text=True, timeout=PATIENCE, check=check)


def _wait_http(url: str, timeout: float = PATIENCE):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError(f"{url} did not answer")


def _job_state_sqlite(path: str, job_id: str):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT status, attempts, result FROM job WHERE id = ?", (job_id,)).fetchone()


async def test_migrate_seed_and_serve_the_seeded_store_with_jobs_running(tmp_path, processes):
    env = _env(tmp_path)
    # Given a migrated database seeded twice from Medusa's seed file
    _cli(env, "migrate")
    first = json.loads(_cli(env, "seed", str(DEMO_SEED)).stdout.strip().splitlines()[-1])
    again = json.loads(_cli(env, "seed", str(DEMO_SEED)).stdout.strip().splitlines()[-1])
    assert first == again == {"users": 1, "regions": 2, "shipping_options": 4, "product_collections": 2, "products": 10}

    # When the processes run
    port = _free_port()
    serve = subprocess.Popen([sys.executable, "-m", "workers.cli", "serve", "--port", str(port)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    processes.append(serve)
    if BACKEND == "postgres":
        for role in ("worker", "scheduler"):
            args = ["worker", "--processes", "1", "--threads", "2"] if role == "worker" else [role]
            processes.append(subprocess.Popen([sys.executable, "-m", "workers.cli", *args], env=env,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                              start_new_session=True))
    base = f"http://127.0.0.1:{port}"
    _wait_http(base + "/health")

    # I expect the seeded store on the storefront
    async with httpx.AsyncClient(base_url=base) as http:
        regions = (await http.get("/store/regions")).json()["regions"]
        assert sorted(r["name"] for r in regions) == ["EU", "NA"]
        products = (await http.get("/store/products")).json()
        assert products["count"] == 10
        assert {p["id"] for p in products["products"]} >= {"prod_t_shirt", "prod_coffee"}
        # and the seeded admin able to sign in
        r = await http.post("/admin/auth", json={"email": "admin@test.com", "password": "supersecret"})
        assert r.status_code == 200 and "connect.sid" in r.cookies

    # and jobs running: through a worker process on Redis, inside the web process when embedded
    if BACKEND == "postgres":
        ping = _cli(env, "jobs", "ping", "--timeout", str(PATIENCE / 2), check=False)
        assert ping.returncode == 0, ping.stdout + ping.stderr
        assert json.loads(ping.stdout)["status"] == "succeeded"
    else:
        path = env["DATABASE_URL"][len("sqlite://"):]
        job_id = f"job_{uuid.uuid4().hex}"
        with sqlite3.connect(path) as db:  # a job row left pending, as if its sender had died
            db.execute(
                "INSERT INTO job (id, actor_name, queue_name, args, kwargs, status, attempts, created_at, updated_at)"
                " VALUES (?, 'ping', 'maintenance', '[\"embedded\"]', '{}', 'pending', 0,"
                " '2020-01-01 00:00:00+00:00', '2020-01-01 00:00:00+00:00')", (job_id,),
            )
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline and _job_state_sqlite(path, job_id)[0] != "succeeded":
            time.sleep(0.2)
        status, attempts, result = _job_state_sqlite(path, job_id)
        assert (status, attempts, json.loads(result)) == ("succeeded", 1, {"pong": "embedded"})

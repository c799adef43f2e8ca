"""The loyalty plugin as a shop runs it: installed, turned on by PLUGINS=loyalty, migrated, served,
its jobs run by real processes (on PostgreSQL + Redis a `worker` and a `scheduler`; on SQLite
everything inside `serve`), and the store bought from through its API. TEST_BACKEND (set by
`python -m tests`) picks the backend.

The tests are one story, in order: the plugin listed and its tables made; points earned on an
order and shown to the customer; adjusted by an admin; taken back on a refund; expired by the
scheduled job; and the plugin turned off again, its tables left alone. Every wait is on a
condition, bounded by TEST_PATIENCE_SECONDS."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import pytest

BACKEND = os.environ.get("TEST_BACKEND", "sqlite")
PG_ADMIN_URL = os.environ.get("TEST_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
PATIENCE = float(os.environ.get("TEST_PATIENCE_SECONDS", "120"))  # only so a broken run ends
ROOT = Path(__file__).resolve().parents[3]  # the repository: workers/demo/seed.json, `python -m workers.cli`
ADMIN = {"email": "admin@test.com", "password": "supersecret"}  # the demo seed's admin
ADDRESS = {"first_name": "Jane", "last_name": "Doe", "address_1": "1 Main St", "city": "Boston",
           "country_code": "us", "postal_code": "02110"}


# ---------------------------------------------------------------- processes


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the process's own group (it was started in a session of its own), SIGKILL if it
    has not ended within PATIENCE, and to whatever of its group outlived it."""
    def send(signum: int) -> None:
        try:
            os.killpg(proc.pid, signum)
        except ProcessLookupError:
            pass

    if proc.poll() is None:
        send(signal.SIGTERM)
        try:
            proc.wait(PATIENCE)
        except subprocess.TimeoutExpired:
            send(signal.SIGKILL)
            proc.wait()
    send(signal.SIGKILL)


def _until(predicate, what: str):
    """`predicate()`'s first truthy value, asked again until PATIENCE runs out."""
    deadline = time.monotonic() + PATIENCE
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {PATIENCE:g}s for {what}")
        time.sleep(0.1)


class Shop:
    """The shop's database, Redis namespace and processes, started and stopped as an operator
    would, with the environment `env` (PLUGINS and the LOYALTY_ settings among it)."""

    def __init__(self, where: Path):
        self.where, self.run = where, uuid.uuid4().hex[:12]
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("LOYALTY_", "DATABASE_URL", "REDIS_", "PLUGINS"))}
        self.env.update(SCHEDULER_INTERVAL_SECONDS="0.5", OUTBOX_GRACE_SECONDS="0", LOG_LEVEL="WARNING",
                        COMMERCE_SCRYPT_LOGN="4", DASHBOARD_DIR=str(where / "dashboard"), DASHBOARD_AUTOBUILD="false",
                        FILE_STORAGE_DIR=str(where / "files"), PLUGINS="loyalty")
        if BACKEND == "postgres":
            self.database = f"loyalty_test_{self.run}"
            self.env.update(DATABASE_URL=PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{self.database}",
                            REDIS_URL=REDIS_URL, REDIS_NAMESPACE=f"loyalty-test-{self.run}")
        else:
            self.env["DATABASE_URL"] = f"sqlite://{where / 'shop.sqlite3'}"
        self.processes: list[subprocess.Popen] = []
        self.base = ""

    # the database

    async def _admin_sql(self, statement: str) -> None:
        import asyncpg

        conn = await asyncpg.connect(PG_ADMIN_URL.replace("postgres://", "postgresql://"))
        try:
            await conn.execute(statement)
        finally:
            await conn.close()

    def create(self) -> None:
        if BACKEND == "postgres":
            asyncio.run(self._admin_sql(f'CREATE DATABASE "{self.database}"'))

    def drop(self) -> None:
        if BACKEND == "postgres":
            asyncio.run(self._admin_sql(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)'))
            import redis

            client = redis.Redis.from_url(REDIS_URL)
            keys = list(client.scan_iter(match=f"{self.env['REDIS_NAMESPACE']}*", count=1000))
            if keys:
                client.delete(*keys)

    def query(self, sql: str) -> list[tuple]:
        """Rows of `sql` read straight from the database, past the server."""
        if BACKEND == "postgres":
            import asyncpg

            async def read():
                conn = await asyncpg.connect(self.env["DATABASE_URL"].replace("postgres://", "postgresql://"))
                try:
                    return [tuple(r) for r in await conn.fetch(sql)]
                finally:
                    await conn.close()

            return asyncio.run(read())
        with sqlite3.connect(self.env["DATABASE_URL"][len("sqlite://"):]) as db:
            return db.execute(sql).fetchall()

    def tables(self) -> set[str]:
        sql = ("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
               if BACKEND == "postgres" else "SELECT name FROM sqlite_master WHERE type = 'table'")
        return {name for (name,) in self.query(sql)}

    # the commands

    def cli(self, *args: str, **env: str | None) -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, "-m", "workers.cli", *args], env=self._env(env), cwd=ROOT,
                              capture_output=True, text=True, timeout=PATIENCE)
        assert done.returncode == 0, f"commerce {' '.join(args)}: {done.stdout}{done.stderr}"
        return done

    def _env(self, changes: dict[str, str | None]) -> dict[str, str]:
        env = {**self.env, **{k: v for k, v in changes.items() if v is not None}}
        for k in [k for k, v in changes.items() if v is None]:
            env.pop(k, None)
        return env

    def start(self, **env: str | None) -> None:
        """`serve` (and on PostgreSQL + Redis a `worker` and a `scheduler`), with `env` changed
        (None: unset); back once the server answers."""
        port = _free_port()
        roles = [["serve", "--port", str(port)]]
        if BACKEND == "postgres":
            roles += [["worker", "--processes", "1", "--threads", "2"], ["scheduler"]]
        for args in roles:
            log = open(self.where / f"{args[0]}.log", "a")
            self.processes.append(subprocess.Popen(
                [sys.executable, "-m", "workers.cli", *args], env=self._env(env), cwd=ROOT, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True))
            log.close()
        self.base = f"http://127.0.0.1:{port}"

        def answers() -> bool:
            if self.processes[0].poll() is not None:
                raise AssertionError("serve ended: " + (self.where / "serve.log").read_text()[-3000:])
            try:
                return httpx.get(self.base + "/health", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        _until(answers, "the server to answer")

    def stop(self) -> None:
        while self.processes:
            _stop(self.processes.pop())

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=30)


# ---------------------------------------------------------------- the store's API


def _signed_up(http: httpx.Client, email: str) -> dict:
    """A customer who signed up, and the headers of their signed-in requests."""
    r = http.post("/store/customers", json={"email": email, "password": "jane-secret", "first_name": "Jane",
                                            "last_name": "Doe"})
    assert r.status_code == 200, r.text
    r = http.post("/store/auth/token", json={"email": email, "password": "jane-secret"})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


def _admin(http: httpx.Client) -> dict:
    r = http.post("/admin/auth/token", json=ADMIN)
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


def _buy(http: httpx.Client, headers: dict, email: str, quantity: int = 2) -> dict:
    """An order of the demo store's cap, placed by the signed-in customer through the store API."""
    def ok(r: httpx.Response) -> dict:
        assert r.status_code == 200, r.text
        return r.json()

    regions = ok(http.get("/store/regions"))["regions"]
    region = next(r for r in regions if r["name"] == "NA")
    cart = ok(http.post("/store/carts", json={"region_id": region["id"]}, headers=headers))["cart"]
    ok(http.post(f"/store/carts/{cart['id']}/line-items", json={"variant_id": "variant_cap_black",
                                                                "quantity": quantity}, headers=headers))
    ok(http.post(f"/store/carts/{cart['id']}", json={"email": email, "shipping_address": ADDRESS}, headers=headers))
    options = ok(http.get(f"/store/shipping-options/{cart['id']}", headers=headers))["shipping_options"]
    ok(http.post(f"/store/carts/{cart['id']}/shipping-methods", json={"option_id": options[0]["id"]},
                 headers=headers))
    ok(http.post(f"/store/carts/{cart['id']}/payment-sessions", json={}, headers=headers))
    ok(http.post(f"/store/carts/{cart['id']}/payment-session", json={"provider_id": "manual"}, headers=headers))
    done = ok(http.post(f"/store/carts/{cart['id']}/complete", headers=headers))
    assert done["type"] == "order", done
    return done["data"]


def _loyalty(http: httpx.Client, headers: dict) -> dict:
    r = http.get("/store/loyalty", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["loyalty"]


def _balance_becomes(http: httpx.Client, headers: dict, balance: int) -> dict:
    return _until(lambda: (found := _loyalty(http, headers))["balance"] == balance and found,
                  f"a loyalty balance of {balance}")


# ---------------------------------------------------------------- the story


@pytest.fixture(scope="module")
def shop():
    """The demo store, migrated with the plugin on and seeded, served (one start for the story)."""
    with tempfile.TemporaryDirectory(prefix="loyalty-test-") as where:
        shop = Shop(Path(where))
        shop.create()
        try:
            shop.migrated = shop.cli("migrate").stdout
            shop.cli("seed", str(ROOT / "workers" / "demo" / "seed.json"))
            shop.start()
            yield shop
        finally:
            shop.stop()
            shop.drop()


@pytest.fixture(scope="module")
def jane(shop):
    """A customer who signed up and bought: her headers, email, order and its points."""
    with shop.client() as http:
        email = f"jane-{shop.run}@example.com"
        headers = _signed_up(http, email)
        order = _buy(http, headers, email)
    return {"headers": headers, "email": email, "order": order, "points": order["total"] // 100}


def test_plugins_lists_loyalty_on_with_its_parts_and_migrate_makes_its_tables(shop):
    # Given the shop migrated with PLUGINS=loyalty
    rows = [json.loads(line) for line in shop.cli("plugins", "--json").stdout.splitlines()]
    loyalty = next(r for r in rows if r["name"] == "loyalty")

    # I expect `commerce plugins` to list it on, with everything it adds
    assert loyalty["on"] is True and "error" not in loyalty, loyalty
    assert loyalty["routes"] == ["GET /admin/loyalty/<customer_id:str>", "POST /admin/loyalty/<customer_id:str>/adjust",
                                 "GET /store/loyalty"]
    assert loyalty["subscribers"] == ["loyalty.points (order.placed, order.refund_created)"]
    assert loyalty["jobs"] == ["expire_loyalty_points"]
    assert loyalty["schedules"] == ["expire_loyalty_points every 3600s"]
    assert loyalty["tables"] == ["loyalty_account", "loyalty_entry"]
    assert loyalty["migrations"] == ["0001_initial"]
    assert loyalty["settings"] == ["LOYALTY_EXPIRE_EVERY_SECONDS", "LOYALTY_POINTS_LIFETIME_SECONDS",
                                   "LOYALTY_POINTS_PER_UNIT"]
    # and migrate to have named its migration and made its tables
    assert any(line.endswith("loyalty 0001_initial") for line in shop.migrated.splitlines()), shop.migrated
    assert {"loyalty_account", "loyalty_entry"} <= shop.tables()


def test_an_order_earns_points_the_customer_sees(shop, jane):
    # Given Jane's order (placed by the fixture)
    assert jane["points"] > 0 and jane["order"]["customer_id"]

    with shop.client() as http:
        # I expect her points on her account, once the event is handled
        found = _balance_becomes(http, jane["headers"], jane["points"])
        assert found["customer_id"] == jane["order"]["customer_id"]
        assert [(e["points"], e["order_id"], e["expired"]) for e in found["entries"]] == [
            (jane["points"], jane["order"]["id"], False)]
        # and nobody's without a sign-in
        r = http.get("/store/loyalty")
        assert r.status_code == 401 and r.json()["type"] == "unauthorized"

    # I expect her order confirmation to be the plugin's template: the built-in message, then its word
    def confirmation() -> tuple | None:
        rows = shop.query(f"SELECT body, status FROM notification WHERE event_name = 'order.placed' "
                          f"AND resource_id = '{jane['order']['id']}'")
        return rows[0] if rows and rows[0][1] == "sent" else None

    body, _ = _until(confirmation, "the order confirmation sent")
    assert f"Thank you for your order #{jane['order']['display_id']}" in body
    assert "This order earns you loyalty points: your balance is on your account" in body


def test_admins_see_and_adjust_a_balance_never_below_zero_even_at_once(shop, jane):
    customer_id = jane["order"]["customer_id"]
    with shop.client() as http:
        _balance_becomes(http, jane["headers"], jane["points"])
        # Without an admin's sign-in the admin routes refuse
        assert http.get(f"/admin/loyalty/{customer_id}").status_code == 401
        assert http.post(f"/admin/loyalty/{customer_id}/adjust", json={"points": 5, "reason": "x"}).status_code == 401

        # With one, the balance is shown and adjusted
        admin = _admin(http)
        r = http.get(f"/admin/loyalty/{customer_id}", headers=admin)
        assert r.status_code == 200 and r.json()["loyalty"]["balance"] == jane["points"]
        r = http.post(f"/admin/loyalty/{customer_id}/adjust", json={"points": 10, "reason": "goodwill"}, headers=admin)
        assert r.status_code == 200, r.text
        assert r.json()["loyalty"]["balance"] == jane["points"] + 10
        r = http.post(f"/admin/loyalty/{customer_id}/adjust", json={"points": -10, "reason": "undo"}, headers=admin)
        assert r.json()["loyalty"]["balance"] == jane["points"]

        # but never below zero, nor by nothing, nor for a customer that does not exist
        r = http.post(f"/admin/loyalty/{customer_id}/adjust", json={"points": -(jane["points"] + 1), "reason": "too much"},
                      headers=admin)
        assert r.status_code == 400 and r.json()["type"] == "not_allowed", r.text
        r = http.post(f"/admin/loyalty/{customer_id}/adjust", json={"points": 0, "reason": "nothing"}, headers=admin)
        assert r.status_code == 400 and r.json()["type"] == "invalid_data", r.text
        assert http.get("/admin/loyalty/cus_nobody", headers=admin).status_code == 404
        assert _loyalty(http, jane["headers"])["balance"] == jane["points"]

    # When eight admins take a third of the balance at once
    third = jane["points"] // 3
    assert third > 0, jane["points"]

    async def take_at_once() -> list[int]:
        async with httpx.AsyncClient(base_url=shop.base, timeout=30, headers=admin) as concurrent:
            answers = await asyncio.gather(*(concurrent.post(
                f"/admin/loyalty/{customer_id}/adjust", json={"points": -third, "reason": f"race {n}"})
                for n in range(8)))
        return sorted(r.status_code for r in answers)

    # I expect exactly three to succeed: the balance never goes below zero
    assert asyncio.run(take_at_once()) == [200] * 3 + [400] * 5
    with shop.client() as http:
        assert _loyalty(http, jane["headers"])["balance"] == jane["points"] - 3 * third
        r = http.post(f"/admin/loyalty/{customer_id}/adjust", json={"points": 3 * third, "reason": "race undone"},
                      headers=admin)
        assert r.json()["loyalty"]["balance"] == jane["points"]


def test_a_refund_takes_back_points_in_proportion(shop, jane):
    order = jane["order"]
    with shop.client() as http:
        _balance_becomes(http, jane["headers"], jane["points"])
        admin = _admin(http)
        # Given the order's payment captured
        r = http.post(f"/admin/orders/{order['id']}/capture", headers=admin)
        assert r.status_code == 200, r.text

        # When half of it is refunded
        refund = order["total"] // 2
        r = http.post(f"/admin/orders/{order['id']}/refund", json={"amount": refund, "reason": "other"}, headers=admin)
        assert r.status_code == 200, r.text

        # I expect the points of that half taken back
        taken = jane["points"] * refund // order["total"]
        found = _balance_becomes(http, jane["headers"], jane["points"] - taken)
        assert found["entries"][0]["points"] == -taken and found["entries"][0]["refund_id"]
    jane["points"] -= taken


def test_the_scheduled_job_expires_points(shop, jane):
    # Given the shop started again with points that last 2 s, swept every second
    shop.stop()
    shop.start(LOYALTY_POINTS_LIFETIME_SECONDS="2", LOYALTY_EXPIRE_EVERY_SECONDS="1")
    with shop.client() as http:
        before = _loyalty(http, jane["headers"])["balance"]
        # When Jane orders again
        order = _buy(http, jane["headers"], jane["email"], quantity=1)
        earned = order["total"] // 100

        # I expect the new points earned, then expired, and the older ones kept
        _until(lambda: any(e["order_id"] == order["id"] for e in _loyalty(http, jane["headers"])["entries"]),
               "the new order's points")
        found = _balance_becomes(http, jane["headers"], before)
        mine = next(e for e in found["entries"] if e["order_id"] == order["id"] and e["points"] == earned)
        assert mine["expired"] is True
        assert [e["points"] for e in found["entries"] if e["order_id"] == order["id"] and e["points"] < 0] == [-earned]

    # and the sweeps in the job list
    def succeeded() -> list[dict]:
        listed = shop.cli("jobs", "list", "--actor", "expire_loyalty_points").stdout.splitlines()
        return [j for j in map(json.loads, listed) if j["status"] == "succeeded"]

    assert all(job["actor"] == "expire_loyalty_points" for job in _until(succeeded, "a succeeded expiry job"))


def test_turned_off_the_plugin_leaves_its_tables_and_its_routes_are_gone(shop, jane):
    rows = shop.query("SELECT count(*) FROM loyalty_entry")
    # Given the shop started again without PLUGINS
    shop.stop()
    shop.cli("migrate", PLUGINS=None)
    shop.start(PLUGINS=None)

    # I expect its tables and rows as they were
    assert {"loyalty_account", "loyalty_entry"} <= shop.tables()
    assert shop.query("SELECT count(*) FROM loyalty_entry") == rows
    # and its routes not found
    with shop.client() as http:
        assert http.get("/store/loyalty", headers=jane["headers"]).status_code == 404
        r = http.get(f"/admin/loyalty/{jane['order']['customer_id']}", headers=_admin(http))
        assert r.status_code == 404

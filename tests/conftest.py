"""Test harness. One backend per pytest process (Tortoise caches compiled SQL per process):

    TEST_BACKEND=sqlite   (default) SQLite file + Dramatiq's in-memory broker
    TEST_BACKEND=postgres PostgreSQL (TEST_DATABASE_URL) + Redis (TEST_REDIS_URL)

`python -m tests` runs both. Each session gets a fresh database built by the real migrations and
a Redis namespace of its own (two runs on one machine do not meet), both removed at the end;
each test starts from the store's defaults only.
"""

from __future__ import annotations

from contextlib import contextmanager

import os

# Before any import of ours: cheap password hashing, and the broker chosen for this backend.
os.environ.setdefault("COMMERCE_SCRYPT_LOGN", "4")

import asyncio  # noqa: E402
import atexit  # noqa: E402
import logging  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import uuid  # noqa: E402
from contextlib import asynccontextmanager  # noqa: E402
from dataclasses import replace  # noqa: E402

import httpx  # noqa: E402
import pytest  # noqa: E402
from tortoise import Tortoise, connections  # noqa: E402

from app.config import Settings  # noqa: E402
from app.dashboard import DashboardSettings  # noqa: E402
from app.shapes.completion import ApiAnswers  # noqa: E402
from app.web.head_deadline import HeadDeadlineProtocol  # noqa: E402
from services import setup  # noqa: E402
from tests import snapshots  # noqa: E402
from workers.broker import QUEUES, load_actors, setup_broker  # noqa: E402

BACKEND = os.environ.get("TEST_BACKEND", "sqlite")
PG_ADMIN_URL = os.environ.get("TEST_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


JWT_SECRET = "test-jwt-secret-of-a-production-length-0123"
RUN_ID = uuid.uuid4().hex[:12]
# Every key of this run in Redis starts with it; processes the tests start inherit it.
os.environ["REDIS_NAMESPACE"] = NAMESPACE = f"commerce-test-{RUN_ID}"


def _temp_dir(prefix: str, where: str | None = None) -> str:
    path = tempfile.mkdtemp(prefix=prefix, dir=where)
    atexit.register(shutil.rmtree, path, True)  # gone with the run, however it ends
    return path


def _settings() -> Settings:
    if BACKEND == "postgres":
        url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/commerce_test_{RUN_ID}"
        return Settings(database_url=url, redis_url=REDIS_URL, redis_namespace=NAMESPACE, outbox_grace_seconds=0.0,
                        jwt_secret=JWT_SECRET, auth_cache_seconds=0.0)
    # On a RAM disk where there is one: a test database need not survive a power cut.
    ram = "/dev/shm" if os.path.isdir("/dev/shm") else None
    path = os.path.join(_temp_dir("commerce-test-", ram), "test.sqlite3")
    return Settings(database_url=f"sqlite://{path}", outbox_grace_seconds=0.0, jwt_secret=JWT_SECRET,
                    auth_cache_seconds=0.0)


SETTINGS = _settings()
# Stored files (uploads, imports, exports) go to a directory of this session, never ./uploads.
SETTINGS = replace(SETTINGS, file_storage_dir=_temp_dir("commerce-test-files-"))
# The tests' webhook receivers listen on loopback; worker processes the tests start inherit this.
os.environ["WEBHOOKS_ALLOW_PRIVATE"] = "true"
SETTINGS = replace(SETTINGS, webhooks_allow_private=True)
# The dashboard: an empty folder of this session, never a build in the home folder; and no `commerce
# start` a test runs builds one (a real npm build takes minutes). Processes the tests start inherit both.
os.environ["DASHBOARD_DIR"] = _temp_dir("commerce-test-dashboard-")
os.environ["DASHBOARD_AUTOBUILD"] = "false"
SETTINGS = replace(SETTINGS, dashboard=DashboardSettings(dir=os.environ["DASHBOARD_DIR"], autobuild=False))
setup.configure(SETTINGS, answers=ApiAnswers())  # as every process starts: the recording provider (no SMTP_HOST), the subscribers
BROKER = setup_broker(SETTINGS)
load_actors()


# The bound on any wait for a condition, in seconds: only so that a broken run ends instead of hanging.
# A slow or busy machine takes longer, never fails: no test waits on the clock for something to happen.
PATIENCE = float(os.environ.get("TEST_PATIENCE_SECONDS", "120"))


def stop_process(proc: subprocess.Popen, grace: float = PATIENCE) -> None:
    """Stop a process a test started, whatever the test's outcome: SIGTERM (to its whole group when
    it leads one, i.e. was started with start_new_session), SIGKILL after `grace` seconds, and
    SIGKILL to whatever of its group outlived it (a worker's children)."""
    leads = False
    if proc.returncode is None:  # not reaped yet (a zombie at worst): the pid is still this process's
        try:
            leads = os.getpgid(proc.pid) == proc.pid
        except ProcessLookupError:
            pass

    def send(signum: int) -> None:
        try:
            if leads:  # a group's id stays taken while any member lives, so this reaches only its own
                os.killpg(proc.pid, signum)
            elif proc.poll() is None:
                proc.send_signal(signum)
        except ProcessLookupError:
            pass

    if proc.poll() is None:
        send(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            send(signal.SIGKILL)
            proc.wait()
    send(signal.SIGKILL)


def requires_postgres(reason: str = "needs PostgreSQL and Redis"):
    return pytest.mark.skipif(BACKEND != "postgres", reason=reason)


async def _create_database() -> None:
    if BACKEND != "postgres":
        return
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN_URL.replace("postgres://", "postgresql://"))
    try:
        name = SETTINGS.database_url.rsplit("/", 1)[1]
        await conn.execute(f'CREATE DATABASE "{name}"')
        # A test database need not survive a crash: commits skip the wait for the disk.
        await conn.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    finally:
        await conn.close()


async def _drop_database() -> None:
    if BACKEND != "postgres":
        return
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN_URL.replace("postgres://", "postgresql://"))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{SETTINGS.database_url.rsplit("/", 1)[1]}" WITH (FORCE)')
    finally:
        await conn.close()


@pytest.fixture(scope="session")
async def database():
    from tortoise.migrations.api.migrate import migrate

    from services.orders.display_ids import ensure_sequence
    from services.store.defaults import ensure_defaults

    await _create_database()
    await migrate(config=SETTINGS.tortoise_config())
    await Tortoise.close_connections()
    await Tortoise.init(config=SETTINGS.tortoise_config(), _enable_global_fallback=True)
    await snapshots.track()
    await ensure_defaults()
    await ensure_sequence()
    _STATE["defaults"] = await snapshots.take()
    yield SETTINGS
    await Tortoise.close_connections()
    await _drop_database()
    _forget_redis_keys()


def _forget_redis_keys() -> None:
    """This run's keys in Redis go with it (its queues, sessions and counters)."""
    if BACKEND == "postgres":
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        keys = list(client.scan_iter(match=f"{NAMESPACE}*", count=1000))
        for i in range(0, len(keys), 1000):
            client.delete(*keys[i:i + 1000])


_STATE: dict[str, object] = {}  # the session's snapshots: "defaults", then "seeded" and its report


@pytest.fixture(autouse=True)
async def clean_db(database, request):
    """Every test starts from an empty store holding only its defaults: the snapshot taken after
    the session's migrations is put back, touching only the tables the last test changed. A test
    that asks for `seeded` gets the demo store's snapshot put back instead, once it is taken, so
    consecutive tests of the demo store rewrite only what the last one changed."""
    from services.regions.parts import forget_region_parts
    from app.web.answer_cache import forget_answers
    from services.store.defaults import forget_default_channel

    await _forget_rate_limits()  # before the restore: a store of counters in the database is put back with it
    demo = "seeded" in request.fixturenames and "seeded" in _STATE
    await snapshots.restore(_STATE["seeded"] if demo else _STATE["defaults"])
    forget_region_parts()  # the same ids come back every test: no cached view may outlive one
    forget_default_channel()
    forget_answers()
    BROKER.flush_all()
    _STATE["clean_mark"] = await snapshots.mark()
    yield


async def _forget_rate_limits() -> None:
    """Every test starts with no failed sign-ins or look-ups counted (the server is shared)."""
    from sanic import Sanic

    from tests.account_factories import forget_rate_limits

    if "commerce_test" in Sanic._app_registry:  # only once the shared test server exists
        await forget_rate_limits()


# ---------------------------------------------------------------- HTTP


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@asynccontextmanager
async def running(app):
    """Serve `app` on the test's loop and yield an httpx client for it."""
    app.config.TOUCHUP = False
    port = _free_port()
    server = await app.create_server(host="127.0.0.1", port=port, return_asyncio_server=True, access_log=False,
                                     protocol=HeadDeadlineProtocol)
    await server.startup()
    await server.before_start()
    await server.after_start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            yield client
    finally:
        await server.before_stop()
        server.close()
        await server.wait_closed()
        await server.after_stop()


@pytest.fixture(scope="session")
async def server(database):
    from app.server import create_app

    app = create_app(SETTINGS, manage_orm=False, name="commerce_test")
    async with running(app) as client:
        yield client


@pytest.fixture
async def client(server):
    """A client with an empty cookie jar (the server is shared)."""
    server.cookies.clear()
    yield server
    server.cookies.clear()


# ---------------------------------------------------------------- data


@pytest.fixture
async def store_state(request):
    """The demo store when the test asks for `seeded`: its snapshot, put back by `clean_db` before
    any other fixture runs (`admin` waits for this one); loaded the first time, when the snapshot
    is taken, and loaded again over whatever a fixture wrote before this one."""
    if "seeded" not in request.fixturenames:
        return None
    import json

    from services.store.seed import load_seed
    from workers.cli import DEMO_SEED

    if "seeded" in _STATE and await snapshots.unchanged(_STATE["seeded"], _STATE["clean_mark"]):
        return _STATE["seed_report"]
    fresh = "seeded" not in _STATE and await snapshots.unchanged(_STATE["defaults"], _STATE["clean_mark"])
    report = await load_seed(json.loads(DEMO_SEED.read_text()))
    if fresh:
        _STATE["seeded"], _STATE["seed_report"] = await snapshots.take(), report
    return report


@pytest.fixture
async def admin(store_state):
    from models.user import User
    from services.users.users import create_user

    # The demo store has this user already (same password); seeded or not, the test gets one.
    return await User.get_or_none(email="admin@test.com") or await create_user(
        "admin@test.com", "supersecret", role="admin"
    )


@pytest.fixture
async def admin_headers(client, admin):
    r = await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"})
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


@pytest.fixture
async def seeded(store_state):
    """The store of ../shared/fixtures/medusa-seed.json (shipped as workers/demo/seed.json)."""
    return store_state



@pytest.fixture
def mailbox():
    """The messages the shop sends from now on, recorded (read them with tests/account_factories.py)."""
    from tests.account_factories import recorder
    return recorder()


@pytest.fixture
async def fresh_limits(client):
    """Rate-limit counters (sign-in, message requests) forgotten after the test, for the next one."""
    from tests.account_factories import forget_rate_limits
    yield
    await forget_rate_limits()


# ---------------------------------------------------------------- query counting


class QueryCounter(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.queries: list[str] = []

    def emit(self, record):
        message = record.getMessage()
        if not message.startswith(("Created connection", "Closed connection")):
            self.queries.append(message)


@asynccontextmanager
async def count_queries():
    logger = logging.getLogger("tortoise.db_client")
    handler, level = QueryCounter(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler.queries
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


async def idle(worker, timeout: float = PATIENCE) -> None:
    """Until every queue is empty and `worker` holds no message: for a test that asserts nothing
    more happens, instead of sleeping and hoping."""
    for queue in QUEUES:
        await asyncio.to_thread(BROKER.join, queue, timeout=int(timeout * 1000))
    await asyncio.to_thread(worker.join)


def settings(**changes) -> Settings:
    return replace(SETTINGS, **changes)


@pytest.fixture
def installed_plugins(monkeypatch):
    """Declare plugins as installed packages would (`commerce.plugins` entry points): call it with
    name="module:attribute" pairs. The process's set-up is the suite's again after the test."""
    from importlib.metadata import EntryPoint

    from services import plugins

    def install(**refs: str) -> None:
        entries = {name: EntryPoint(name, ref, plugins.ENTRY_POINT_GROUP) for name, ref in refs.items()}
        monkeypatch.setattr(plugins, "installed", lambda: entries)
        plugins.enabled.cache_clear()

    yield install
    monkeypatch.undo()
    plugins.enabled.cache_clear()
    setup.configure(SETTINGS, answers=ApiAnswers())


@contextmanager
def configured(**changes):
    """The process set up again (services/setup.py) with these settings changed, as a process
    started with them would be (the plugins' providers chosen anew); the suite's set-up after."""
    setup.configure(settings(**changes), answers=ApiAnswers())
    try:
        yield
    finally:
        setup.configure(SETTINGS, answers=ApiAnswers())


async def wait_for(predicate, timeout: float = PATIENCE, interval: float = 0.05):
    """Await `predicate()` until it is truthy; its last value, or an AssertionError on timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await predicate()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        await asyncio.sleep(interval)


# ---------------------------------------------------------------- an S3-compatible server


def _wait_for_port(proc, port: int, what: str) -> None:
    """Until a server process started on `port` accepts connections; stopped and an error if it
    exits or does not within PATIENCE."""
    import time

    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_process(proc)
                raise RuntimeError(f"{what} did not start")
            time.sleep(0.05)


@pytest.fixture(scope="session")
def s3_endpoint():
    """moto's S3 server in a subprocess on a free port (started once, only for tests that ask):
    a stand-in for the external provider, spoken to over real HTTP by the real client."""
    import subprocess
    import sys

    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    _wait_for_port(proc, port, "moto's S3 server")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(proc)


# ---------------------------------------------------------------- a Stripe API


@pytest.fixture(scope="session")
def localstripe_url():
    """localstripe (tests/stripe_fake.py) in a subprocess on a free port, started once, only for
    tests that ask: Stripe's REST API, spoken to over real HTTP by the official client."""
    import subprocess
    import sys

    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tests.stripe_fake", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(proc, port, "localstripe")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(proc)


def use_stripe(configured: Settings):
    """Stripe's gateways registered for these settings, as the built-in stripe plugin offers them
    at a start with STRIPE_API_KEY (services/builtin_plugins.py); answers the card provider."""
    from services.payments import gateways
    from services.payments.stripe import build_providers

    made = build_providers(configured)
    gateways.configure(made)
    return made[0]


@pytest.fixture
async def stripe_gateway(localstripe_url, client):
    """The `stripe` provider registered against localstripe (as STRIPE_API_KEY and STRIPE_API_BASE
    would), with its provider row; gone after the test. Yields the settings it was made with."""
    from services import payments
    from services.payments import gateways, stripe
    from tests.stripe_fake import API_KEY, WEBHOOK_SECRET

    configured = settings(stripe_api_key=API_KEY, stripe_api_base=localstripe_url,
                          stripe_webhook_secret=WEBHOOK_SECRET)
    made = use_stripe(configured)
    await gateways.install()
    try:
        yield configured
    finally:
        # The test may have configured another (a setting changed): both let their connections go.
        last = payments.get_provider(stripe.PROVIDER_ID) if payments.is_registered(stripe.PROVIDER_ID) else made
        for provider in {id(made): made, id(last): last}.values():
            await provider.api.close()
        for provider_id in stripe.PROVIDER_IDS:
            payments.unregister(provider_id)

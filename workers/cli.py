"""`commerce`: the one command for every process and operator task.

    commerce migrate                      apply migrations, create the store's defaults
    commerce seed FILE                    load a Medusa v1 seed file (again: changes nothing)
    commerce user create --email E --password P [--role admin]
    commerce user token EMAIL             print a new API token once (only its hash is kept)
    commerce user password EMAIL --password P   new password; ends the sessions and JWTs of before
    commerce serve [--host H] [--port P] [--workers N]
    commerce worker [--processes N] [--threads N]
    commerce scheduler
    commerce start [--no-dashboard]       migrate, seed the demo store when empty, build the dashboard, serve
    commerce dashboard build [--force]    build Medusa v1's admin dashboard, served at /app (needs Node.js)
    commerce jobs ping                    round trip through the broker and a worker
    commerce jobs list [--status S] [--actor A] [--limit N]   newest first, one JSON line each
    commerce jobs show ID                 one job: arguments, attempts, last error, result
    commerce jobs retry ID                run a failed (or canceled) job again
    commerce jobs cancel ID               a job not yet running is never run
    commerce import medusa-v1 --from URL [--dry-run] [--carts-days N]   move a Medusa v1 shop in
    commerce plugins [--json]             the plugins installed, which are on, what each adds
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from tortoise import Tortoise

from app.config import ConfigError, Settings
from app.shapes.completion import ApiAnswers
from services.core.errors import DomainError
from workers.broker import QUEUES
from services import setup
from services.plugins import PluginError
from workers.logs import configure_logging
from workers.progress import MigrationProgress, SeedProgress
from workers.cli_parser import build_parser as _parser
from workers.preflight import EX_CONFIG, EX_DATAERR, EX_UNAVAILABLE, Refused, database_problem, redis_problem
from workers.move import run_import

log = logging.getLogger("commerce.cli")

DEMO_SEED = Path(__file__).with_name("demo") / "seed.json"


async def with_db(settings: Settings, work):
    if settings.database_url.startswith("sqlite://"):
        path = settings.database_url[len("sqlite://"):]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    await Tortoise.init(config=settings.tortoise_config())
    try:
        return await work()
    finally:
        await Tortoise.close_connections()


async def migrate(settings: Settings, out: TextIO | None = None) -> None:
    """Apply the migrations not yet applied, naming each on `out` as it starts: the core's, then
    each plugin's with tables (services/core/plugins.py), in the order PLUGINS names them. A
    plugin's migration that fails raises PluginError naming it; the core's stay applied. A plugin
    no longer in PLUGINS is not in the configuration: its tables stay as they are."""
    from tortoise.migrations.api.migrate import migrate as run_migrations

    from services.orders.display_ids import ensure_sequence
    from services.store.defaults import ensure_defaults

    async def start_up_rows() -> None:  # the store's defaults, then the orders' display-id counter
        await ensure_defaults()
        await ensure_sequence()

    if settings.database_url.startswith("sqlite://"):
        Path(settings.database_url[len("sqlite://"):]).parent.mkdir(parents=True, exist_ok=True)
    told = MigrationProgress(out) if out else None
    config = settings.tortoise_config()
    try:
        await run_migrations(config=config, app_labels=["models"], reporter=told and told.reporter,
                             progress=told and told.progress)
        for label, app in config["apps"].items():
            if label == "models" or not app.get("migrations"):
                continue
            try:
                await run_migrations(config=config, app_labels=[label], reporter=told and told.reporter,
                                     progress=told and told.progress)
            except Exception as e:
                raise PluginError(label, f"its migrations failed: {type(e).__name__}: {e}") from e
    finally:  # an open SQLite connection's thread would keep a failed run from exiting
        await Tortoise.close_connections()
    await with_db(settings, start_up_rows)
    await stock_by_location(settings)


async def stock_by_location(settings: Settings) -> None:
    """INVENTORY_LOCATIONS on: every variant counted by location (once; later runs carry over
    only what changed while it was off). Run after anything that writes variants in bulk (a
    migration, a seed, a move), which do not pass through the variant routes' own hook. See
    services/inventory/switch_on.py."""
    if not settings.inventory_locations:
        return
    from services.inventory.switch_on import switch_on

    done = await with_db(settings, switch_on)
    log.info("stock by location (INVENTORY_LOCATIONS): %d inventory item%s made, %s%d variant%s' stock set at "
             "%s", done["items"], "" if done["items"] == 1 else "s",
             "a new default location, " if done["location_made"] else "", done["reconciled"],
             "" if done["reconciled"] == 1 else "s", done["location_id"])


async def seed(settings: Settings, data: dict, what: str, out: TextIO, *, migrated: bool = False) -> dict:
    """Load a seed file's data (migrating first unless `migrated`), saying how far it is on `out`."""
    from services.store.seed import load_seed

    if not migrated:
        await migrate(settings, out)
    report = await with_db(settings, lambda: load_seed(data, SeedProgress(what, out)))
    await stock_by_location(settings)
    return report


async def _store_is_empty(settings: Settings) -> bool:
    from models import Product

    return await with_db(settings, lambda: Product.all().count()) == 0


async def _has_demo_admin(settings: Settings) -> bool:
    from models import User
    from workers.banner import DEMO_ADMIN

    return await with_db(settings, lambda: User.filter(email=DEMO_ADMIN[0], deleted_at=None).exists())


def _shared_metrics_dir() -> None:
    """Several web processes sum their request metrics through files in one directory
    (prometheus-client's multiprocess mode): PROMETHEUS_MULTIPROC_DIR, or a fresh one; emptied of
    a previous run's files, set before any process imports the metrics."""
    import tempfile

    where = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(prefix="commerce-metrics-")
    Path(where).mkdir(parents=True, exist_ok=True)
    for old in Path(where).glob("*.db"):
        old.unlink()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = where


def serve(settings: Settings, host: str, port: int, workers: int, *, announce: str | None = None) -> None:
    """Run the web server; `announce` is printed once the port answers (not before: a newcomer's
    first click must find it listening)."""
    from sanic import Sanic
    from sanic.worker.loader import AppLoader

    from app.web.head_deadline import HeadDeadlineProtocol
    from workers.banner import announce_when_listening
    from workers.web import build_app

    if workers > 1:
        _shared_metrics_dir()
    loader = AppLoader(factory=build_app)
    app = loader.load()
    app.prepare(host=host, port=port, workers=workers, single_process=workers == 1, motd=False, access_log=False,
                protocol=HeadDeadlineProtocol)
    if announce:
        # One web process: its server answers /health before Sanic's start-up is done, and a SIGTERM
        # sent between Sanic ignoring the signals and our after_server_start listener taking them
        # (workers/web_stop.py) is lost; so the banner waits until the app serves, its handler in place.
        announce_when_listening(host, port, announce,
                                serving=(lambda: app.state.is_running) if workers == 1 else None)
    if workers == 1:
        Sanic.serve_single(primary=app)
    else:
        import sanic.mixins.startup

        from workers.web_start import OwnProcessesManager, shared_state_manager

        # Sanic.serve builds its manager by this name: ours says why a start failed and kills
        # only its own processes, not the whole process group, and takes a stop during the start
        # for a stop; the processes' shared state outlives a signal to the group (workers/web_start.py).
        sanic.mixins.startup.WorkerManager = OwnProcessesManager
        sanic.mixins.startup.Manager = shared_state_manager
        Sanic.serve(primary=app, app_loader=loader)


def shutdown_timeout_ms(grace_seconds: float) -> int:
    """How long Dramatiq lets running jobs finish on a stop: the grace period less what giving
    back the unfinished ones and closing take (workers/boot.py ends the process at the grace)."""
    return int(max(0.5, grace_seconds - min(5.0, grace_seconds / 3)) * 1000)


def worker(settings: Settings, processes: int, threads: int) -> None:
    if settings.embedded:
        sys.exit("commerce worker needs REDIS_URL: without it, jobs run inside `commerce serve`")
    # How long an idle consumer waits for a wake-up token (workers/wakeups.py) before looking anyway.
    env = {**os.environ, "dramatiq_worker_timeout": os.environ.get("dramatiq_worker_timeout", "1000")}
    args = [sys.executable, "-m", "workers.dramatiq_main", "workers.boot", "--processes", str(processes),
            "--threads", str(threads), "--queues", *QUEUES,
            "--worker-shutdown-timeout", str(shutdown_timeout_ms(settings.worker_grace_seconds))]
    os.execve(sys.executable, args, env)


async def ping(settings: Settings, timeout: float) -> dict:
    from services.core import outbox
    from models import Job
    from workers.broker import load_actors, setup_broker

    setup_broker(settings)
    load_actors()

    async def work():
        job = await outbox.enqueue("ping", str(time.time()), queue_name="maintenance")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            job = await Job.get(id=job.id)
            if job.status in ("succeeded", "failed"):
                break
            await asyncio.sleep(0.2)
        return {"job": job.id, "status": job.status, "result": job.result, "error": job.last_error}

    return await with_db(settings, work)


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    configure_logging()
    try:
        settings = Settings.from_env()
    except ConfigError as e:
        _fail(f"configuration error: {e}", EX_CONFIG)
    if getattr(args, "target", None):  # `import medusa-v1 --target URL`: the store to move into
        settings = _with_database(settings, args.target)
    if args.command == "plugins":  # lists a broken plugin too, rather than refusing to start
        from workers.plugin_list import list_plugins

        sys.exit(list_plugins(settings, as_json=args.json))
    try:
        # Every command (the scheduler's too) sets the services up as the web does, the plugins
        # loaded: one that cannot be is one line naming it, whatever the command.
        setup.configure(settings, answers=ApiAnswers())
    except PluginError as e:
        _fail(str(e), EX_CONFIG)
    except ValueError as e:  # a setting an area refuses, such as a message template that does not compile
        _fail(f"configuration error: {e}", EX_CONFIG)
    try:
        _check_services(settings, args)
        _run(settings, args)
    except Refused as e:
        _fail(e.line, e.exit_code)
    except PluginError as e:  # a plugin's migration that fails
        _fail(str(e), EX_CONFIG)


def _run(settings: Settings, args) -> None:
    cmd = args.command
    if cmd == "migrate":
        asyncio.run(migrate(settings, sys.stdout))
        print("migrations applied")
    elif cmd == "seed":
        # Progress goes to stderr: stdout is the report, one JSON line.
        data = read_seed(args.file)
        try:
            report = asyncio.run(seed(settings, data, f"loading {args.file.name}", sys.stderr))
        except DomainError as e:  # the file's content, refused by the seed's own checks
            raise Refused(f"the seed file {args.file} is refused: {e.message}", EX_DATAERR) from None
        print(json.dumps(report))
    elif cmd == "user":
        _user(settings, args)
    elif cmd == "import":
        run_import(settings, args, migrate, with_db, stock_by_location)
    elif cmd in ("serve", "start"):
        _serve_or_start(settings, args)
    elif cmd == "dashboard":
        _dashboard(settings, args)
    elif cmd == "worker":
        worker(settings, args.processes or settings.worker_processes, args.threads or settings.worker_threads)
    elif cmd == "scheduler":
        from workers.broker import setup_broker
        from workers.scheduler import run_scheduler

        setup_broker(settings)
        asyncio.run(run_scheduler(settings))
    elif cmd == "jobs" and args.action != "ping":
        _jobs(settings, args)
    elif cmd == "jobs":
        if settings.embedded:
            sys.exit("without REDIS_URL, jobs run inside `commerce serve`: there is no worker to ping from here")
        result = asyncio.run(ping(settings, args.timeout))
        print(json.dumps(result))
        sys.exit(0 if result["status"] == "succeeded" else 1)


def _serve_or_start(settings: Settings, args) -> None:
    from workers.banner import banner, base_url, check_port, seeded_line

    busy = check_port(args.host, args.port)
    if busy:
        sys.exit(busy)
    if settings.dashboard.enabled and not (os.environ.get("ADMIN_URL") or os.environ.get("BACKEND_URL")):
        # The team's links (invitations, resets) lead to the dashboard on the port served here;
        # the web processes read their settings from the environment again.
        os.environ["ADMIN_URL"] = base_url(args.host, args.port) + settings.dashboard.path
        settings = Settings.from_env()
    demo = False
    if args.command == "start":
        asyncio.run(migrate(settings, sys.stdout))
        if asyncio.run(_store_is_empty(settings)):
            data = read_seed(DEMO_SEED)
            report = _run_domain(seed(settings, data, "loading demo store", sys.stdout, migrated=True))
            print(seeded_line(report), flush=True)
        demo = asyncio.run(_has_demo_admin(settings))
        if not args.no_dashboard:
            from workers.dashboard import on_first_start

            on_first_start(settings.dashboard, sys.stdout)
    workers = args.workers or settings.web_concurrency
    serve(settings, args.host, args.port, workers,
          announce=banner(settings, args.host, args.port, workers, demo=demo))


# Commands that outlive an outage, and what they do meanwhile: a database or Redis that does not
# answer yet is a warning for them (`start` migrates first: its database must answer now), and
# refuses every other command.
WHILE_MISSING = {
    "serve": "requests that need it answer 503 until it does", "start": "requests that need it answer 503 until it does",
    "worker": "jobs wait until it does", "scheduler": "sweeps wait until it does",
}


def _check_services(settings: Settings, args) -> None:
    """Refuse, in one line, a database or Redis the command cannot use; warn of one that does not
    answer yet when the command will keep running (workers/preflight.py)."""
    cmd = args.command
    needs_database = cmd != "dashboard" and not (cmd == "import" and args.dry_run)  # a build reads no database
    needs_schema = cmd not in ("migrate", "seed", "start", "import")  # those migrate first
    needs_redis = cmd in WHILE_MISSING or (cmd == "jobs" and args.action == "ping")

    async def look():
        database = database_problem(settings, needs_schema=needs_schema) if needs_database else _nothing()
        return await asyncio.gather(database, redis_problem(settings) if needs_redis else _nothing())

    database, redis = asyncio.run(look())
    for problem, lenient in ((database, cmd in WHILE_MISSING and cmd != "start"), (redis, cmd in WHILE_MISSING)):
        if problem is None:
            continue
        if problem.lasting or not lenient:
            raise Refused(problem.line, EX_UNAVAILABLE)
        print(f"warning: {problem.line}; {WHILE_MISSING[cmd]}", file=sys.stderr, flush=True)


async def _nothing():
    return None


def read_seed(path: Path) -> dict:
    """A seed file's JSON; anything else is a refusal naming the file (exit 65)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise Refused(f"Could not find a seed file at: {path}", EX_DATAERR) from None
    except (OSError, UnicodeDecodeError) as e:
        raise Refused(f"cannot read the seed file {path}: {getattr(e, 'strerror', None) or e}", EX_DATAERR) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise Refused(f"the seed file {path} is not JSON: {e.msg} at line {e.lineno} column {e.colno}",
                      EX_DATAERR) from None
    if not isinstance(data, dict):
        raise Refused(f"the seed file {path} is not a Medusa v1 seed: its JSON is not an object "
                      "(\"store\", \"regions\", \"products\" …)", EX_DATAERR)
    return data


def _with_database(settings: Settings, url: str) -> Settings:
    from dataclasses import replace

    try:
        changed = replace(settings, database_url=url)
        changed.check()
    except ConfigError as e:
        _fail(f"configuration error: --target: {e}".replace("DATABASE_URL", "the URL"), EX_CONFIG)
    return changed


def _fail(line: str, exit_code: int):
    print(line, file=sys.stderr, flush=True)
    sys.exit(exit_code)


def _dashboard(settings: Settings, args) -> None:
    from workers.dashboard import BuildFailed, build, node_problem

    problem = node_problem()
    if problem:
        sys.exit(problem)
    try:
        build(settings.dashboard, sys.stdout, force=args.force)
    except BuildFailed as e:
        sys.exit(f"dashboard build failed: {e}")
    if not settings.dashboard.enabled:
        print("dashboard: DASHBOARD=false, so the server will not serve it until that is unset", flush=True)


def _user(settings: Settings, args) -> None:
    from services.users.users import create_user, issue_api_token, set_user_password

    if args.action == "create":
        user = _run_domain(with_db(settings, lambda: create_user(
            args.email, args.password, role=args.role, first_name=args.first_name, last_name=args.last_name,
        )))
        print(json.dumps({"id": user.id, "email": user.email, "role": user.role}))
    elif args.action == "password":
        user = _run_domain(with_db(settings, lambda: set_user_password(args.email, args.password)))
        print(json.dumps({"id": user.id, "email": user.email}))
    else:
        print(_run_domain(with_db(settings, lambda: issue_api_token(args.email))))


def _jobs(settings: Settings, args) -> None:
    from jobs import control
    from workers.broker import setup_broker

    setup_broker(settings)  # retry sends through the deployment's broker (embedded: the sweep does)
    if args.action == "list":
        found = _run_domain(with_db(settings, lambda: control.list_jobs(
            status=args.status, actor=args.actor, limit=args.limit,
        )))
        for job in found:
            print(json.dumps(control.describe(job)))
        return
    work = {
        "show": lambda: control.show_job(args.id),
        "retry": lambda: control.retry_job(args.id, send_now=not settings.embedded),
        "cancel": lambda: control.cancel_job(args.id),
    }[args.action]
    print(json.dumps(control.describe(_run_domain(with_db(settings, work)), full=True)))


def _run_domain(coro):
    """Run a coroutine; a domain error ends the command with its message, not a traceback."""
    from services.core.errors import DomainError

    try:
        return asyncio.run(coro)
    except DomainError as e:
        sys.exit(f"{e.kind}: {e.message}")


if __name__ == "__main__":
    main()

"""`commerce`: the one command for every process and operator task.

    commerce migrate                      apply migrations, create the store's defaults
    commerce seed FILE                    load a Medusa v1 seed file (again: changes nothing)
    commerce user create --email E --password P [--role admin]
    commerce user token EMAIL             print a new API token once (only its hash is kept)
    commerce user password EMAIL --password P   new password; ends the sessions and JWTs of before
    commerce serve [--host H] [--port P] [--workers N]
    commerce worker [--processes N] [--threads N]
    commerce scheduler
    commerce start                        migrate, seed the demo store when empty, serve
    commerce jobs ping                    round trip through the broker and a worker
    commerce jobs list [--status S] [--actor A] [--limit N]   newest first, one JSON line each
    commerce jobs show ID                 one job: arguments, attempts, last error, result
    commerce jobs retry ID                run a failed (or canceled) job again
    commerce jobs cancel ID               a job not yet running is never run
    commerce import medusa-v1 --from URL [--dry-run] [--carts-days N]   move a Medusa v1 shop in
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from tortoise import Tortoise

from app.config import ConfigError, Settings
from workers.broker import QUEUES
from models.job import JOB_STATUSES
from services import files
from workers.logs import configure_logging
from workers.progress import MigrationProgress, SeedProgress
from workers.move import add_import_parser, run_import

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
    """Apply the migrations not yet applied, naming each on `out` as it starts."""
    from tortoise.migrations.api.migrate import migrate as run_migrations

    from services.store.defaults import ensure_defaults

    if settings.database_url.startswith("sqlite://"):
        Path(settings.database_url[len("sqlite://"):]).parent.mkdir(parents=True, exist_ok=True)
    told = MigrationProgress(out) if out else None
    try:
        await run_migrations(config=settings.tortoise_config(), reporter=told and told.reporter,
                             progress=told and told.progress)
    finally:  # an open SQLite connection's thread would keep a failed run from exiting
        await Tortoise.close_connections()
    await with_db(settings, ensure_defaults)
    await stock_by_location(settings)


async def stock_by_location(settings: Settings) -> None:
    """INVENTORY_LOCATIONS on: every variant counted by location (once; later runs carry over
    only what changed while it was off). Run after anything that writes variants in bulk (a
    migration, a seed, a move), which do not pass through the variant routes' own hook. See
    services/inventory/switch_on.py."""
    if not settings.inventory_locations:
        return
    from services.inventory.switch_on import switch_on

    await with_db(settings, switch_on)


async def seed(settings: Settings, path: Path, what: str, out: TextIO, *, migrated: bool = False) -> dict:
    """Load a seed file (migrating first unless `migrated`), saying how far it is on `out`."""
    from services.store.seed import load_seed

    data = json.loads(path.read_text())
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


def serve(settings: Settings, host: str, port: int, workers: int) -> None:
    from sanic import Sanic
    from sanic.worker.loader import AppLoader

    from app.web.head_deadline import HeadDeadlineProtocol
    from workers.web import build_app

    if workers > 1:
        _shared_metrics_dir()
    loader = AppLoader(factory=build_app)
    app = loader.load()
    app.prepare(host=host, port=port, workers=workers, single_process=workers == 1, motd=False, access_log=False,
                protocol=HeadDeadlineProtocol)
    if workers == 1:
        Sanic.serve_single(primary=app)
    else:
        import sanic.mixins.startup

        from workers.web_start import OwnProcessesManager

        # Sanic.serve builds its manager by this name: ours says why a start failed and kills
        # only its own processes, not the whole process group (workers/web_start.py).
        sanic.mixins.startup.WorkerManager = OwnProcessesManager
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
    from jobs import outbox
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


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="commerce", description="Medusa v1 compatible commerce back end")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="apply migrations and create the store's defaults")
    s = sub.add_parser("seed", help="load a Medusa v1 seed file (again: changes nothing)")
    s.add_argument("file", type=Path, help="the seed file (JSON, Medusa v1's seed format)")
    u = sub.add_parser("user", help="manage back-office users").add_subparsers(dest="action", required=True)
    c = u.add_parser("create", help="add a back-office user who signs in with email and password")
    c.add_argument("--email", required=True, help="the user's email, their sign-in name")
    c.add_argument("--password", required=True, help="the user's password (stored hashed)")
    c.add_argument("--role", default="admin", choices=("admin", "member", "developer"),
                   help="admin (manages the team) or member or developer (default: admin)")
    c.add_argument("--first-name", help="shown in the dashboard")
    c.add_argument("--last-name", help="shown in the dashboard")
    t = u.add_parser("token", help="issue a new API token (printed once)")
    t.add_argument("email", help="the user's email")
    pw = u.add_parser("password", help="set a new password; ends the user's sessions and JWTs (not the API token)")
    pw.add_argument("email", help="the user's email")
    pw.add_argument("--password", required=True, help="the new password")
    for name, text in (("serve", "the web server (the API; embedded mode also runs jobs and sweeps in it)"),
                       ("start", "migrate, load the demo store when the database is empty, then serve")):
        sv = sub.add_parser(name, help=text)
        sv.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0: every interface)")
        sv.add_argument("--port", type=int, default=9000, help="port to listen on (default 9000)")
        sv.add_argument("--workers", type=int, default=None, help="web processes (default WEB_CONCURRENCY or 1)")
    w = sub.add_parser("worker", help="Dramatiq worker processes (needs REDIS_URL)")
    w.add_argument("--processes", type=int, default=None, help="worker processes (default WORKER_PROCESSES or 2)")
    w.add_argument("--threads", type=int, default=None, help="threads per process (default WORKER_THREADS or 4)")
    sub.add_parser("scheduler", help="the APScheduler process (any number: each sweep runs once per interval)")
    j = sub.add_parser("jobs", help="inspect and steer the job outbox (ping, list, show, retry, cancel)").add_subparsers(dest="action", required=True)
    pg = j.add_parser("ping", help="enqueue a ping job and wait for a worker to run it")
    pg.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the job (default 10)")
    ls = j.add_parser("list", help="jobs newest first, one JSON line each")
    ls.add_argument("--status", action="append", choices=JOB_STATUSES, help="repeat for several")
    ls.add_argument("--actor", action="append", help="actor name, e.g. send_notification; repeat for several")
    ls.add_argument("--limit", type=int, default=50, help="at most this many jobs (default 50)")
    for action, text in (("show", "one job with its attempts, last error and result"),
                         ("retry", "run a failed or canceled job again"),
                         ("cancel", "cancel a job that is not running yet")):
        j.add_parser(action, help=text).add_argument("id", help="the job's id (job_…)")
    add_import_parser(sub)
    return p


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    configure_logging()
    try:
        settings = Settings.from_env()
    except ConfigError as e:
        sys.exit(f"configuration error: {e}")
    files.configure(settings)  # for every command that reads or writes stored files
    cmd = args.command
    if cmd == "migrate":
        asyncio.run(migrate(settings, sys.stdout))
        print("migrations applied")
    elif cmd == "seed":
        if not args.file.exists():
            sys.exit(f"Could not find a seed file at: {args.file}")
        # Progress goes to stderr: stdout is the report, one JSON line.
        print(json.dumps(_run_domain(seed(settings, args.file, f"loading {args.file.name}", sys.stderr))))
    elif cmd == "user":
        _user(settings, args)
    elif cmd == "import":
        run_import(settings, args, migrate, with_db, stock_by_location)
    elif cmd in ("serve", "start"):
        from workers.banner import banner, check_port, seeded_line

        busy = check_port(args.host, args.port)
        if busy:
            sys.exit(busy)
        demo = False
        if cmd == "start":
            asyncio.run(migrate(settings, sys.stdout))
            if asyncio.run(_store_is_empty(settings)):
                report = _run_domain(seed(settings, DEMO_SEED, "loading demo store", sys.stdout, migrated=True))
                print(seeded_line(report), flush=True)
            demo = asyncio.run(_has_demo_admin(settings))
        workers = args.workers or settings.web_concurrency
        print(banner(settings, args.host, args.port, workers, demo=demo), flush=True)
        serve(settings, args.host, args.port, workers)
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

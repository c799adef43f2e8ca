"""The `commerce` command line: its commands, options and help pages (run by workers/cli.py)."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from models.job import JOB_STATUSES
from workers.move import add_import_parser

__all__ = ["build_parser"]


# What each command reads from the environment (all of it: the README's table of variables).
COMMON = ("DATABASE_URL", "COMMERCE_ENV", "LOG_LEVEL", "LOG_FORMAT")
SERVER = ("REDIS_URL", "REDIS_NAMESPACE", "COOKIE_SECRET", "JWT_SECRET", "COOKIE_SECURE", "COOKIE_SAMESITE",
          "STORE_CORS", "ADMIN_CORS", "WEB_CONCURRENCY", "DASHBOARD", "DASHBOARD_PATH", "TRUSTED_PROXIES", "INVENTORY_LOCATIONS",
          "FILE_STORAGE_DIR", "S3_BUCKET", "SMTP_HOST", "STRIPE_API_KEY")
WORKER = ("REDIS_URL", "REDIS_NAMESPACE", "WORKER_PROCESSES", "WORKER_THREADS", "WORKER_GRACE_SECONDS",
          "JOB_HEARTBEAT_SECONDS", "JOB_TAKEOVER_SECONDS", "INVENTORY_LOCATIONS", "FILE_STORAGE_DIR", "S3_BUCKET",
          "SMTP_HOST", "STRIPE_API_KEY")
SCHEDULER = ("REDIS_URL", "REDIS_NAMESPACE", "SCHEDULER_INTERVAL_SECONDS", "OUTBOX_GRACE_SECONDS",
             "JOB_LEASE_SECONDS")
JOBS = ("REDIS_URL", "REDIS_NAMESPACE")
DASHBOARD = ("DASHBOARD", "DASHBOARD_PATH", "DASHBOARD_DIR", "DASHBOARD_CACHE_DIR")

DESCRIPTION = """A back end that speaks Medusa v1's admin (/admin) and storefront (/store) API.

First run: `commerce start` migrates a SQLite file (commerce.sqlite3), loads the demo store and serves
it on http://localhost:9000 (the API's pages at /docs). Production: PostgreSQL and Redis, with
`commerce migrate`, `commerce serve`, `commerce worker` and `commerce scheduler`."""

EPILOG = """environment (every variable: the README's table):
  DATABASE_URL   sqlite://PATH (default sqlite://commerce.sqlite3) or postgres://user:pw@host:5432/db
  REDIS_URL      unset: embedded (jobs and sweeps inside `commerce serve`); redis://host:6379/0 for production
  COMMERCE_ENV   development (default), test, staging or production (refuses default secrets)
  COOKIE_SECRET, JWT_SECRET   random values of 32 characters or more in production

exit codes: 0 done; 1 failed; 2 wrong usage; 65 an input file is not what it must be; 69 the
database or Redis cannot be used; 78 a setting is wrong (each with one line on stderr saying why)
`commerce <command> --help` describes each command."""


WIDTH = 100


def _reads(*names: str) -> str:
    return textwrap.fill("environment: " + ", ".join(dict.fromkeys((*COMMON, *names)))
                         + " (the README's table says what each does)", WIDTH, subsequent_indent="  ")


def _command(sub, name: str, help: str, description: str, reads: tuple[str, ...] = ()) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=textwrap.fill(description, WIDTH), epilog=_reads(*reads),
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="commerce", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"commerce {_version()}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", required=True)
    _command(sub, "migrate", "apply migrations and create the store's defaults",
             "Apply the database migrations not yet applied (each named as it starts) and create the store's "
             "defaults (store, default sales channel, shipping profiles); with INVENTORY_LOCATIONS on, count "
             "every variant's stock by location. Safe to run again: it does only what is missing.",
             ("INVENTORY_LOCATIONS",))
    s = _command(sub, "seed", "load a Medusa v1 seed file (again: changes nothing)",
                 "Migrate, then load a seed file in Medusa v1's format (store, users, regions, shipping options, "
                 "collections, products). Progress on stderr; stdout is the report, one JSON line. Loading the "
                 "same file again changes nothing.", ("INVENTORY_LOCATIONS",))
    s.add_argument("file", type=Path, help="the seed file (JSON, Medusa v1's seed format)")
    u = _command(sub, "user", "manage back-office users",
                 "Manage the back office's users: create one, issue an API token, set a password."
                 ).add_subparsers(dest="action", required=True)
    c = _command(u, "create", "add a back-office user who signs in with email and password",
                 "Add a back-office user who signs in to the dashboard with email and password (the first admin "
                 "of a new store is made this way). Prints the user as one JSON line.")
    c.add_argument("--email", required=True, help="the user's email, their sign-in name")
    c.add_argument("--password", required=True, help="the user's password (stored hashed)")
    c.add_argument("--role", default="admin", choices=("admin", "member", "developer"),
                   help="admin (manages the team) or member or developer (default: admin)")
    c.add_argument("--first-name", help="shown in the dashboard")
    c.add_argument("--last-name", help="shown in the dashboard")
    t = _command(u, "token", "issue a new API token (printed once)",
                 "Issue a new API token for the user and print it once (only its SHA-256 is kept; it replaces "
                 "the one before). Send it as `Authorization: Bearer <token>` or `x-medusa-access-token`.")
    t.add_argument("email", help="the user's email")
    pw = _command(u, "password", "set a new password; ends the user's sessions and JWTs (not the API token)",
                  "Set a user's password. Every session and JWT signed in before it ends; the API token stays.")
    pw.add_argument("email", help="the user's email")
    pw.add_argument("--password", required=True, help="the new password")
    for name, text, description in (
        ("serve", "the web server (the API, the dashboard at /app; embedded mode also runs jobs and sweeps in it)",
         "Serve the API, and the admin dashboard at DASHBOARD_PATH (/app) once built, on --host:--port. It neither migrates nor seeds (run `commerce migrate` first). "
         "Without REDIS_URL (embedded) the jobs and the scheduler run inside it too; with it, run "
         "`commerce worker` and `commerce scheduler` beside it. Says where it listens once it answers."),
        ("start", "migrate, load the demo store when the database is empty, build the dashboard when missing "
                  "and Node.js is there, then serve",
         "The first-run command: migrate the database (each migration named as it starts), load the demo "
         "store when the database holds no product yet (its admin: admin@test.com / supersecret), build the "
         "admin dashboard when it is missing or outdated and Node.js 20+ is installed (unless --no-dashboard "
         "or DASHBOARD_AUTOBUILD=false), then serve as `commerce serve` does. Run it again: it migrates what is new and serves; the demo store "
         "is never loaded twice."),
    ):
        sv = _command(sub, name, text, description, SERVER)
        if name == "start":
            sv.add_argument("--no-dashboard", action="store_true",
                            help="do not build the admin dashboard now (one already built is still served)")
        sv.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0: every interface)")
        sv.add_argument("--port", type=int, default=9000, help="port to listen on (default 9000)")
        sv.add_argument("--workers", type=int, default=None, help="web processes (default WEB_CONCURRENCY or 1)")
    w = _command(sub, "worker", "Dramatiq worker processes (needs REDIS_URL)",
                 "Run the jobs (imports, exports, messages, webhooks, payments' follow-ups) from Redis's queues "
                 "in Dramatiq worker processes, any number of them on any host. Stops cleanly on SIGTERM or "
                 "SIGINT within WORKER_GRACE_SECONDS.", WORKER)
    w.add_argument("--processes", type=int, default=None, help="worker processes (default WORKER_PROCESSES or 2)")
    w.add_argument("--threads", type=int, default=None, help="threads per process (default WORKER_THREADS or 4)")
    _command(sub, "scheduler", "the APScheduler process (any number: each sweep runs once per interval)",
             "Run the sweeps (jobs never sent, jobs whose worker died, expired carts and keys, the hourly "
             "maintenance) every SCHEDULER_INTERVAL_SECONDS. Any number may run: each sweep runs once per "
             "interval across them.", SCHEDULER)
    j = _command(sub, "jobs", "inspect and steer the job outbox (ping, list, show, retry, cancel)",
                 "Inspect and steer the jobs recorded in the database (the outbox).", JOBS
                 ).add_subparsers(dest="action", required=True)
    pg = _command(j, "ping", "enqueue a ping job and wait for a worker to run it",
                  "Send a ping job through Redis and wait for a `commerce worker` to run it: exit 0 when it did, "
                  "1 when not within --timeout. Prints the job as one JSON line.", JOBS)
    pg.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the job (default 10)")
    ls = _command(j, "list", "jobs newest first, one JSON line each",
                  "List jobs newest first, one JSON line each.", JOBS)
    ls.add_argument("--status", action="append", choices=JOB_STATUSES, help="repeat for several")
    ls.add_argument("--actor", action="append", help="actor name, e.g. send_notification; repeat for several")
    ls.add_argument("--limit", type=int, default=50, help="at most this many jobs (default 50)")
    for action, text, description in (
        ("show", "one job with its attempts, last error and result",
         "Show one job as a JSON line: its actor, arguments, status, attempts, last error and result."),
        ("retry", "run a failed or canceled job again",
         "Run a failed or canceled job again (sent through Redis at once; embedded: by the next sweep)."),
        ("cancel", "cancel a job that is not running yet",
         "Cancel a job that has not started: it is never run, even if its message was already sent."),
    ):
        _command(j, action, text, description, JOBS).add_argument("id", help="the job's id (job_…)")
    d = _command(sub, "dashboard", "Medusa v1's admin dashboard, served at DASHBOARD_PATH (/app)",
                 "Medusa v1's own admin dashboard (@medusajs/admin-ui 2.1.18), built for this server's origin "
                 "and served by `commerce serve` and `commerce start` at DASHBOARD_PATH.", DASHBOARD
                 ).add_subparsers(dest="action", required=True)
    db = _command(d, "build", "build it for this server (Node.js 20+ and npm; again only when its pinned versions change)",
                  "Install the dashboard's pinned packages with `npm ci` into DASHBOARD_CACHE_DIR and build it into "
                  "DASHBOARD_DIR for DASHBOARD_PATH, with progress. Run again, it rebuilds only when the pinned "
                  "versions or the path changed.", DASHBOARD)
    db.add_argument("--force", action="store_true", help="build even when the build is up to date")
    pl = _command(sub, "plugins", "list the plugins installed, which are on, and what each adds",
                  "List the built-in plugins and those installed (the `commerce.plugins` entry points), whether "
                  "PLUGINS turns each on, and what each adds: routes, subscribers, jobs, scheduled jobs, tables "
                  "and migrations, providers, settings, templates (docs/plugins.md). A plugin that cannot be "
                  "loaded is listed with its error; exit 78 when that plugin is on.", ("PLUGINS",))
    pl.add_argument("--json", action="store_true", help="one JSON line per plugin")
    add_import_parser(sub)
    return p


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("commerce")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"

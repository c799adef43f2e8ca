"""The `commerce` command line: its commands, options and help pages (run by workers/cli.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from models.job import JOB_STATUSES
from workers.move import add_import_parser

__all__ = ["build_parser"]


def build_parser() -> argparse.ArgumentParser:
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

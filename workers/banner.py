"""What `commerce start` and `commerce serve` tell the person who ran them, once the port answers:
where the store listens, what it really runs on (the database and the broker named as they are),
the pages to open first (the API's documentation, a storefront read that answers without signing
in), how to sign in to the demo store and where to get the admin dashboard. And a busy port found
before anything else runs, in one line."""

from __future__ import annotations

import errno
import http.client
import socket
import sys
import threading
import time

from app.config import Settings
from app.dashboard import is_built

__all__ = ["check_port", "banner", "seeded_line", "announce_when_listening", "mode", "base_url"]

DEMO_ADMIN = ("admin@test.com", "supersecret")


def check_port(host: str, port: int) -> str | None:
    """Why the server could not listen there (None: it can)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        return f"cannot listen on {host}: {e.strerror}"
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return f"port {port} on {host} is already in use: stop what runs there, or pass --port"
            return f"cannot listen on {host}:{port}: {e.strerror}"
    return None


def mode(settings: Settings) -> str:
    """How this deployment runs, naming the database and the broker it really uses."""
    from workers.preflight import where

    if settings.is_postgres:
        database = f"PostgreSQL at {where(settings.database_url)}"
    else:
        database = f"SQLite at {settings.database_url.removeprefix('sqlite://').split('?', 1)[0]}"
    if settings.embedded:
        return (f"embedded: {database}; jobs and the scheduler run inside this process (production: set "
                "DATABASE_URL=postgres://… and REDIS_URL, and run `commerce worker` and `commerce scheduler`)")
    return (f"{database} + Redis at {where(settings.redis_url)}; jobs run in `commerce worker`, sweeps in "
            "`commerce scheduler`")


def base_url(host: str, port: int) -> str:
    """Where a person on this machine reaches the server."""
    return f"http://{'localhost' if host in ('127.0.0.1', '0.0.0.0', '::') else host}:{port}"


def banner(settings: Settings, host: str, port: int, workers: int, *, demo: bool) -> str:
    base = base_url(host, port)
    lines = [
        f"commerce listens on {base} ({workers} web process{'es' if workers != 1 else ''})",
        f"  mode:      {mode(settings)}",
        f"  API docs:  {base}/docs (every route, to try in the browser; the document: {base}/openapi.json)",
        f"  try:       {base}/store/products (the storefront API; the admin API under {base}/admin/ signs in "
        "first: POST /admin/auth)",
    ]
    lines.append(f"  dashboard: {_dashboard(settings, base)}")
    if demo:
        lines.append(f"  sign in:   {DEMO_ADMIN[0]} / {DEMO_ADMIN[1]} (the demo store's admin; change it before going live)")
    return "\n".join(lines)


def announce_when_listening(host: str, port: int, text: str, out=None, serving=None) -> threading.Thread:
    """Print `text` on `out` (stdout) once the server answers HTTP on the port, and `serving()`
    (when given) is true, from a thread that waits for that: the socket accepts connections
    seconds before the server's start-up is done."""
    reach = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)

    def wait_then_print():
        while not _answers(reach, port):
            time.sleep(0.05)
        while serving is not None and not serving():
            time.sleep(0.01)
        print(text, file=out or sys.stdout, flush=True)

    thread = threading.Thread(target=wait_then_print, name="announce", daemon=True)
    thread.start()
    return thread


def _answers(host: str, port: int) -> bool:
    """Whether GET /health gets any HTTP answer."""
    connection = http.client.HTTPConnection(host, port, timeout=2)
    try:
        connection.request("GET", "/health")
        connection.getresponse().read()
        return True
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


def _dashboard(settings: Settings, base: str) -> str:
    dashboard = settings.dashboard
    if not dashboard.enabled:
        return "not served here (DASHBOARD=false)"
    if is_built(dashboard):
        return f"{base}{dashboard.path}"
    return (f"not built yet: run `commerce dashboard build` (Node.js 20+ and npm), then open "
            f"{base}{dashboard.path}")


def seeded_line(report: dict) -> str:
    parts = ", ".join(f"{n} {name.replace('_', ' ')}" for name, n in report.items())
    return f"demo store loaded: {parts}"

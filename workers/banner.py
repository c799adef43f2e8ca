"""What `commerce start` and `commerce serve` tell the person who ran them: where the store
listens, how it runs (embedded, or PostgreSQL + Redis), how to sign in to the demo store and where
to get the admin dashboard. And a busy port found before anything else runs, in one line."""

from __future__ import annotations

import errno
import socket

from app.config import Settings
from app.dashboard import is_built

__all__ = ["check_port", "banner", "seeded_line", "base_url"]

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


def _mode(settings: Settings) -> str:
    if settings.embedded:
        where = settings.database_url.removeprefix("sqlite://")
        return (f"embedded: {'SQLite at ' + where if settings.database_url.startswith('sqlite') else 'database'}, "
                "jobs and the scheduler run inside this process (production: set DATABASE_URL=postgres://… and "
                "REDIS_URL, and run `commerce worker` and `commerce scheduler`)")
    return "production: PostgreSQL + Redis; jobs run in `commerce worker`, sweeps in `commerce scheduler`"


def base_url(host: str, port: int) -> str:
    """Where a person on this machine reaches the server."""
    return f"http://{'localhost' if host in ('127.0.0.1', '0.0.0.0', '::') else host}:{port}"


def banner(settings: Settings, host: str, port: int, workers: int, *, demo: bool) -> str:
    base = base_url(host, port)
    lines = [
        f"commerce listens on {base} ({workers} web process{'es' if workers != 1 else ''})",
        f"  mode:      {_mode(settings)}",
        f"  store API: {base}/store    admin API: {base}/admin",
    ]
    lines.append(f"  dashboard: {_dashboard(settings, base)}")
    if demo:
        lines.append(f"  sign in:   {DEMO_ADMIN[0]} / {DEMO_ADMIN[1]} (the demo store's admin; change it before going live)")
    return "\n".join(lines)


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

"""Medusa v1's admin dashboard, served by this server at `/app` (as `@medusajs/admin` serves it
from a Medusa server): where its build is kept and how it is served.

    DASHBOARD            false: no dashboard here (not served, not built by `commerce start`)
    DASHBOARD_PATH       where it is served (default /app); a build is made for one path
    DASHBOARD_DIR        where `commerce dashboard build` keeps the build
                         (default $XDG_DATA_HOME/commerce/dashboard, i.e. ~/.local/share/...)
    DASHBOARD_CACHE_DIR  where its npm packages are installed
                         (default $XDG_CACHE_HOME/commerce/dashboard, i.e. ~/.cache/...)
    DASHBOARD_AUTOBUILD  false: `commerce start` does not build a missing dashboard

The build calls the API at a relative base (`/admin/...`), so one build serves any host name and
needs neither a CORS entry nor a cross-site cookie. Next to its files the build keeps
`STAMP_FILE`, naming the recipe it was made by and the path it was made for.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DashboardSettings", "STAMP_FILE", "read_stamp", "is_built", "PATH_PATTERN"]

STAMP_FILE = ".commerce-dashboard.json"
# One or more plain segments, no trailing slash (Medusa's own `path` option rules, and no dots or
# odd characters that a URL would have to escape).
PATH_PATTERN = re.compile(r"^(/[A-Za-z0-9_-]+)+$")


def _bool(value: str | None, default: bool) -> bool:
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def _home_dir(variable: str, fallback: str, environ) -> Path:
    base = environ.get(variable) or os.path.join(os.path.expanduser("~"), fallback)
    return Path(base) / "commerce" / "dashboard"


@dataclass(frozen=True)
class DashboardSettings:
    enabled: bool = True
    path: str = "/app"
    dir: str = str(_home_dir("XDG_DATA_HOME", ".local/share", os.environ))
    cache_dir: str = str(_home_dir("XDG_CACHE_HOME", ".cache", os.environ))
    autobuild: bool = True

    @classmethod
    def from_env(cls, e) -> "DashboardSettings":
        path = (e.get("DASHBOARD_PATH") or cls.path).strip()
        return cls(
            enabled=_bool(e.get("DASHBOARD"), True),
            path=path,
            dir=e.get("DASHBOARD_DIR") or str(_home_dir("XDG_DATA_HOME", ".local/share", e)),
            cache_dir=e.get("DASHBOARD_CACHE_DIR") or str(_home_dir("XDG_CACHE_HOME", ".cache", e)),
            autobuild=_bool(e.get("DASHBOARD_AUTOBUILD"), True),
        )

    def problem(self) -> str | None:
        """Why DASHBOARD_PATH cannot be served (None: it can). That it meets no API route is
        checked where the routes are known (app/dashboard/serving.py)."""
        if not PATH_PATTERN.match(self.path):
            return f"DASHBOARD_PATH must look like /app (a slash, letters, digits, - or _), not {self.path!r}"
        if self.path.startswith(("/admin", "/store")):
            # The sign-in gate and CORS take every path that starts so as the API's.
            return f"DASHBOARD_PATH {self.path} starts like the API's /admin or /store: choose another, such as /app"
        return None


def read_stamp(build_dir: str | Path) -> dict | None:
    """What a build says of itself (recipe, path, versions), or None when there is no build."""
    folder = Path(build_dir)
    if not (folder / "index.html").is_file():
        return None
    try:
        return json.loads((folder / STAMP_FILE).read_text())
    except (OSError, ValueError):
        return {}  # built by hand, or an older recipe: served, but rebuilt by the next build


def is_built(settings: DashboardSettings) -> bool:
    """A build exists, made for the path it would be served at."""
    stamp = read_stamp(settings.dir)
    return stamp is not None and stamp.get("path", settings.path) == settings.path

"""The built dashboard, served as a single-page app at DASHBOARD_PATH (`/app`), as `@medusajs/admin`
serves it from a Medusa server.

- A file of the build is sent as it is; any other path under DASHBOARD_PATH gets `index.html`, so
  the app's own routes (`/app/a/orders/...`) load on a reload or from a link. A path naming a
  missing asset (`.js`, `.css`, an image, a locale file) is a 404 instead: index.html in its place
  would only fail later in the browser, confusingly.
- Files whose names carry webpack's content hash (`main.1a2b3c4d.js`) never change: cached for a
  year, `immutable`. Everything else (index.html, the locale files) is `no-cache` with an `ETag`,
  so a new build shows at the next load and an unchanged file costs a 304.
- Compressed when the client accepts it: the build's `.br` / `.gz` twins (made by
  `commerce dashboard build`), else gzip made on the fly for text.
- No dot segment, hidden file, backslash or symlink out of the build is ever followed (a 404).
"""

from __future__ import annotations

import asyncio
import gzip
import mimetypes
import re
from html import escape
from pathlib import Path

from sanic import Request, Sanic
from sanic.exceptions import NotFound
from sanic.response import HTTPResponse, html

from app.config import ConfigError, Settings
from app.dashboard import DashboardSettings, is_built, read_stamp

__all__ = ["mount"]

# webpack's `[contenthash:8]` / `[chunkhash]` / `[hash]` in the dashboard's file names.
HASHED = re.compile(r"(^|[.-])[0-9a-f]{8,}\.[A-Za-z0-9]+$")
ASSET_SUFFIXES = frozenset({
    ".js", ".mjs", ".css", ".map", ".json", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico",
    ".woff", ".woff2", ".ttf", ".eot", ".otf", ".txt",
})
COMPRESSIBLE = frozenset({".html", ".js", ".mjs", ".css", ".map", ".json", ".svg", ".txt", ".ico", ".ttf", ".eot", ".otf"})
MIN_COMPRESS_BYTES = 1024  # smaller answers gain less than the header costs
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
# What the platform's table may lack.
CONTENT_TYPES = {".mjs": "text/javascript", ".map": "application/json", ".woff2": "font/woff2", ".woff": "font/woff"}
# Checked in this order: brotli is smaller where both exist.
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))


def mount(app: Sanic, settings: Settings) -> None:
    """Serve the dashboard at DASHBOARD_PATH, after every API route is registered: a path that
    would hide one is refused (ConfigError), never served over it."""
    dashboard = settings.dashboard
    if not dashboard.enabled:
        return
    base = dashboard.path
    clash = sorted({"/" + route.path for route in app.router.routes if _clashes(route.path, base)})
    if clash:
        raise ConfigError(f"DASHBOARD_PATH {base} would hide the API's routes ({', '.join(clash[:3])}): choose another")
    # Files, not API: left out of the OpenAPI document (app/openapi.py), hence out of its fuzzing.
    app.add_route(_serve, base, methods=["GET", "HEAD"], name="dashboard", strict_slashes=False, ctx_undocumented=True)
    app.add_route(_serve, base + "/<rest:path>", methods=["GET", "HEAD"], name="dashboard_files",
                  ctx_undocumented=True)


def _clashes(route_path: str, base: str) -> bool:
    """Whether an API route (Sanic's path, no leading slash) and the dashboard under `base` could
    answer the same URL: the route is at or under `base`, or its parameters could match there."""
    path = "/" + route_path.rstrip("/")
    if "<" not in path:
        return path == base or path.startswith(base + "/")
    fixed = path.split("<", 1)[0].rstrip("/")  # what comes before its first parameter
    return fixed == base or fixed.startswith(base + "/") or (base + "/").startswith(fixed + "/")


async def _serve(request: Request, rest: str = "") -> HTTPResponse:
    dashboard: DashboardSettings = request.app.ctx.settings.dashboard
    root = Path(dashboard.dir)
    if not is_built(dashboard):
        return _not_built(dashboard, read_stamp(root))
    found = _inside(root, rest)
    if found is None:
        suffix = Path(rest).suffix.lower()
        if _refused(rest) or suffix in ASSET_SUFFIXES:
            raise NotFound(f"No file {dashboard.path}/{rest} in the dashboard's build")
        found = root / "index.html"
    return await _send(request, found)


def _refused(rest: str) -> bool:
    """A part of the path that could leave the build or reach what it keeps for itself (`..`,
    hidden files such as the build's stamp, a Windows separator)."""
    return any(part.startswith(".") or "\\" in part or "\x00" in part for part in rest.split("/"))


def _inside(root: Path, rest: str) -> Path | None:
    """The build's file at `rest`, or None (not there, a folder, or a refused path)."""
    if not rest or _refused(rest):
        return None
    candidate = root.joinpath(*rest.split("/"))
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not real.is_file() or not real.is_relative_to(root.resolve()):
        return None
    return candidate


async def _send(request: Request, path: Path) -> HTTPResponse:
    suffix = path.suffix.lower()
    headers = {
        "Cache-Control": IMMUTABLE if HASHED.search(path.name) else REVALIDATE,
        "X-Content-Type-Options": "nosniff",
    }
    accepted = _accepted_encodings(request.headers.get("accept-encoding", ""))
    source, encoding = path, None
    if suffix in COMPRESSIBLE:
        headers["Vary"] = "Accept-Encoding"
        for name, ending in ENCODINGS:
            twin = path.with_name(path.name + ending)
            if name in accepted and twin.is_file():
                source, encoding = twin, name
                break
    stat = source.stat()
    # Made on the fly below: gzip of a text file that has no twin.
    squeeze = (encoding is None and suffix in COMPRESSIBLE and "gzip" in accepted
               and stat.st_size >= MIN_COMPRESS_BYTES)
    encoding = "gzip" if squeeze else encoding
    if encoding:
        headers["Content-Encoding"] = encoding
    headers["ETag"] = etag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}-{encoding or "identity"}"'
    if etag in (t.strip().removeprefix("W/") for t in request.headers.get("if-none-match", "").split(",")):
        return HTTPResponse(status=304, headers=headers)
    body = await asyncio.to_thread(source.read_bytes)
    if squeeze:
        body = await asyncio.to_thread(gzip.compress, body, 6, mtime=0)
    return HTTPResponse(body, headers=headers, content_type=_content_type(path))


def _content_type(path: Path) -> str:
    kind = mimetypes.guess_type(path.name)[0] or CONTENT_TYPES.get(path.suffix.lower(), "application/octet-stream")
    textual = kind.startswith("text/") or kind in ("application/javascript", "application/json", "image/svg+xml")
    return kind + "; charset=utf-8" if textual else kind


def _accepted_encodings(header: str) -> set[str]:
    """The codings an `Accept-Encoding` allows (`q=0` refuses one; `*` allows the others)."""
    allowed, refused, star = set(), set(), False
    for item in header.split(","):
        name, _, params = item.strip().lower().partition(";")
        q = re.search(r"q\s*=\s*([0-9.]+)", params)
        ok = not q or _positive(q.group(1))
        if name == "*":
            star = ok
        elif name:
            (allowed if ok else refused).add(name)
    if star:
        allowed |= {"br", "gzip"} - refused
    return allowed


def _positive(value: str) -> bool:
    try:
        return float(value) > 0
    except ValueError:
        return False


def _not_built(dashboard: DashboardSettings, stamp: dict | None) -> HTTPResponse:
    why = ("is not built yet" if stamp is None
           else f"was built for {escape(str(stamp.get('path')))}, not DASHBOARD_PATH {dashboard.path}")
    return html(
        "<!doctype html><meta charset=utf-8><title>Dashboard not built</title>"
        f"<p>The admin dashboard {why}. Run <code>commerce dashboard build</code> (needs Node.js), then reload.</p>",
        status=404, headers={"Cache-Control": "no-store"},
    )

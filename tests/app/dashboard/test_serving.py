"""The admin dashboard served at /app (app/dashboard/serving.py), from a small fake build folder
shaped like admin-ui's: the single-page app's routes, cache headers, compression, and that no API
route is hidden and no file outside the build is reached."""

import gzip
import json
import os

import pytest

from app.config import ConfigError
from app.dashboard import STAMP_FILE, DashboardSettings
from app.server import create_app
from tests.conftest import running, settings

INDEX = b"<!doctype html><title>Medusa</title><div id=root></div>" + b" " * 2000
SCRIPT = b"console.log('the dashboard');\n" * 200  # 6 KB: worth compressing
BROTLI = b"pretend-brotli-bytes"
STYLE = b"body{margin:0}\n" * 200
LOCALE = json.dumps({"orders": "Orders"}).encode()
SECRET = b"outside the build"


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    root = tmp_path_factory.mktemp("dashboard-build")
    files = {
        "index.html": INDEX,
        "main.1a2b3c4d.js": SCRIPT,
        "main.1a2b3c4d.js.gz": gzip.compress(SCRIPT),
        "main.1a2b3c4d.js.br": BROTLI,
        "main.0123456789abcdef0123.css": STYLE,  # no twins: gzip made on the fly
        "public/locales/en/translation.json": LOCALE,
        STAMP_FILE: json.dumps({"path": "/app", "recipe": "test"}).encode(),
    }
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(body)
    (root.parent / "secret.txt").write_bytes(SECRET)
    os.symlink(root.parent / "secret.txt", root / "escape.txt")
    os.symlink(root.parent, root / "up")
    return root


def _app(**dashboard):
    return create_app(settings(dashboard=DashboardSettings(**dashboard)), manage_orm=False)


@pytest.fixture(scope="module")
async def served(build, database):
    async with running(_app(dir=str(build))) as client:
        yield client


async def _raw(client, path: str, **headers) -> tuple[object, bytes]:
    """The answer and its body as sent (httpx would decode gzip)."""
    async with client.stream("GET", path, headers=headers) as r:
        return r, b"".join([chunk async for chunk in r.aiter_raw()])


@pytest.mark.parametrize("path", ["/app", "/app/", "/app/login", "/app/a/orders/order_01ABC", "/app/a/settings/"])
async def test_every_route_of_the_app_gets_index_html_revalidated_on_each_load(served, path):
    r, body = await _raw(served, path, **{"Accept-Encoding": "identity"})
    assert r.status_code == 200 and body == INDEX
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["cache-control"] == "no-cache" and r.headers["etag"]


async def test_hashed_assets_are_cached_for_a_year_and_the_rest_revalidates_with_an_etag(served):
    # Given a file whose name carries webpack's content hash, I expect it cached as immutable
    r = await served.get("/app/main.1a2b3c4d.js")
    assert r.status_code == 200 and r.content == SCRIPT
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert r.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    # and a file without one (a locale) revalidated, an unchanged one answered by a bodiless 304
    r = await served.get("/app/public/locales/en/translation.json")
    assert r.status_code == 200 and r.json() == {"orders": "Orders"}
    assert r.headers["cache-control"] == "no-cache"
    again = await served.get("/app/public/locales/en/translation.json", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    index = await served.get("/app/a/orders")
    assert (await served.get("/app/a/products", headers={"If-None-Match": index.headers["etag"]})).status_code == 304


async def test_compressed_as_the_client_accepts_from_the_builds_twins_or_on_the_fly(served):
    # brotli preferred where both are accepted and the build has its twin
    r, body = await _raw(served, "/app/main.1a2b3c4d.js", **{"Accept-Encoding": "gzip, deflate, br"})
    assert (r.headers["content-encoding"], body) == ("br", BROTLI)
    assert "accept-encoding" in r.headers["vary"].lower()
    r, body = await _raw(served, "/app/main.1a2b3c4d.js", **{"Accept-Encoding": "gzip, br;q=0"})
    assert r.headers["content-encoding"] == "gzip" and gzip.decompress(body) == SCRIPT
    # no twin: gzip made here; nothing accepted: sent as it is
    r, body = await _raw(served, "/app/main.0123456789abcdef0123.css", **{"Accept-Encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip" and gzip.decompress(body) == STYLE
    r, body = await _raw(served, "/app/main.1a2b3c4d.js", **{"Accept-Encoding": "identity"})
    assert "content-encoding" not in r.headers and body == SCRIPT
    # each coding has its own tag, so a cache never hands one to a client asking for another
    r_gz, _ = await _raw(served, "/app/a/orders", **{"Accept-Encoding": "gzip"})
    r_id, _ = await _raw(served, "/app/a/orders", **{"Accept-Encoding": "identity"})
    assert r_gz.headers["content-encoding"] == "gzip" and r_gz.headers["etag"] != r_id.headers["etag"]


async def test_head_answers_the_headers_without_the_body(served):
    r = await served.head("/app/a/orders")
    assert r.status_code == 200 and r.content == b"" and r.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize("path", [
    "/app/%2e%2e/secret.txt", "/app/..%2fsecret.txt", "/app/a/%2e%2e/%2e%2e/secret.txt",
    "/app/escape.txt", "/app/up/secret.txt", "/app/" + STAMP_FILE, "/app/..%5csecret.txt",
    "/app/main.1a2b3c4d.js%00.png",
])
async def test_no_path_reaches_outside_the_build_or_its_hidden_files(served, path):
    r = await served.get(path)
    # (a NUL anywhere in a request is already a 400: app/web/validation.py)
    assert r.status_code in (400, 404) and r.headers["content-type"].startswith("application/json")
    assert SECRET not in r.content and b"recipe" not in r.content


async def test_a_missing_asset_is_a_404_not_the_app(served):
    r = await served.get("/app/main.ffffffff.js")
    assert r.status_code == 404 and r.json()["type"] == "not_found"


async def test_the_api_keeps_its_routes_around_the_dashboard(served):
    assert (await served.get("/admin/auth")).status_code == 401  # the admin gate, not index.html
    r = await served.get("/store/regions")
    assert r.status_code == 200 and "regions" in r.json()
    assert (await served.get("/health")).text == "OK"
    r = await served.get("/application")  # shares a prefix, not the path
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")
    r = await served.post("/app/a/orders", json={})
    assert r.status_code == 405 and r.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize("path", ["/docs", "/health", "/stripe", "/docs/assets/app"])
def test_a_dashboard_path_that_would_hide_an_api_route_is_refused(path):
    with pytest.raises(ConfigError, match=f"DASHBOARD_PATH {path} would hide the API's routes"):
        _app(path=path)


async def test_dashboard_false_serves_nothing_at_app(build, database):
    async with running(_app(dir=str(build), enabled=False)) as client:
        r = await client.get("/app/a/orders")
        assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")
        assert (await client.get("/store/regions")).status_code == 200


async def test_without_a_build_app_says_how_to_make_one(tmp_path, database):
    async with running(_app(dir=str(tmp_path / "nothing"))) as client:
        r = await client.get("/app/a/orders")
        assert r.status_code == 404 and "commerce dashboard build" in r.text
        assert r.headers["cache-control"] == "no-store"


async def test_a_build_made_for_another_path_is_not_served_there(build, database):
    async with running(_app(dir=str(build), path="/back-office")) as client:
        r = await client.get("/back-office/a/orders")
        assert r.status_code == 404 and "built for /app" in r.text

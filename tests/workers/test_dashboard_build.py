"""`commerce dashboard build` and the first `commerce start` (workers/dashboard/): what they check,
say and keep, with stand-ins for `node` and `npm` that record their calls and write a tiny build
(a real npm build takes minutes and the registry; the recipe itself is exercised by hand, as the
documentation says)."""

import io
import json
import os
import sqlite3
import stat
import subprocess
import sys
import time

import httpx
import pytest

from app.dashboard import STAMP_FILE, DashboardSettings
from tests.workers.cli_process import run_until
from tests.conftest import BACKEND, PATIENCE, _free_port, stop_process
from workers import dashboard
from workers.dashboard import build, node_problem, recipe_id

FAKE_NODE = """#!/bin/sh
echo "node $*" >> "$FAKE_LOG"
if [ "$1" = "--version" ]; then echo "${FAKE_NODE_VERSION:-v20.11.1}"; exit 0; fi
if [ -n "$FAKE_BUILD_FAILS" ]; then echo "Module not found: oops" >&2; exit 1; fi
/bin/mkdir -p "$2"
echo "<!doctype html><script src=$3/main.0123abcd.js></script>" > "$2/index.html"
echo "console.log(1)" > "$2/main.0123abcd.js"
echo "building dashboard: 50% (building)"
echo "building dashboard: done"
"""
FAKE_NPM = """#!/bin/sh
echo "npm $*" >> "$FAKE_LOG"
if [ "$1" = "--version" ]; then echo "${FAKE_NPM_VERSION:-10.2.4}"; exit 0; fi
/bin/mkdir -p node_modules/@medusajs/admin-ui node_modules/webpack
"""


@pytest.fixture
def tools(tmp_path, monkeypatch):
    """A PATH holding only the stand-ins; their calls land in the returned log file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, script in (("node", FAKE_NODE), ("npm", FAKE_NPM)):
        (bin_dir / name).write_text(script)
        (bin_dir / name).chmod(stat.S_IRWXU)
    log = tmp_path / "calls.log"
    log.touch()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_LOG", str(log))
    return log


def _settings(tmp_path, **changes) -> DashboardSettings:
    return DashboardSettings(**{"dir": str(tmp_path / "build"), "cache_dir": str(tmp_path / "cache"), **changes})


def _calls(log) -> list[str]:
    return [line for line in log.read_text().splitlines() if "--version" not in line]


def test_without_node_the_message_is_one_line_naming_the_version_and_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing there
    problem = node_problem()
    assert "\n" not in problem
    assert problem.startswith("Node.js and npm not found: ") and "Node.js 20 or later" in problem
    assert "https://nodejs.org" in problem and "commerce dashboard build" in problem


def test_too_old_a_node_is_named_with_its_version(tools, monkeypatch):
    monkeypatch.setenv("FAKE_NODE_VERSION", "v16.20.2")
    assert node_problem().startswith("Node.js 16.20.2, npm 10.2.4 is too old: ")
    monkeypatch.setenv("FAKE_NODE_VERSION", "v20.0.0")
    assert node_problem() is None


def test_the_build_installs_the_locked_packages_once_and_is_made_again_only_when_the_recipe_changes(
        tools, tmp_path, monkeypatch):
    settings, out = _settings(tmp_path), io.StringIO()
    # Given no build, when it is built
    assert build(settings, out) is True
    # I expect `npm ci` without install scripts in a cache folder of its own, then the recipe run
    calls = _calls(tools)
    assert calls[0].startswith("npm ci --ignore-scripts") and calls[1].startswith("node build.cjs ")
    assert calls[1].endswith(" /app")
    said = out.getvalue()
    assert "installing @medusajs/admin-ui 2.1.18" in said and "building dashboard: 50% (building)" in said
    stamp = json.loads((tmp_path / "build" / STAMP_FILE).read_text())
    assert (stamp["recipe"], stamp["path"], stamp["admin_ui"]) == (recipe_id(), "/app", "2.1.18")
    assert (tmp_path / "build" / "index.html").is_file()

    # When it is asked again: nothing runs
    out = io.StringIO()
    assert build(settings, out) is False and len(_calls(tools)) == 2
    assert "up to date" in out.getvalue()
    # for another path it is built again (the path is compiled in), without installing again
    assert build(_settings(tmp_path, path="/back-office"), io.StringIO()) is True
    assert [c.split()[:2] for c in _calls(tools)[2:]] == [["node", "build.cjs"]]
    assert json.loads((tmp_path / "build" / STAMP_FILE).read_text())["path"] == "/back-office"
    # and for a new recipe (a new lock or build script) too
    monkeypatch.setattr(dashboard, "recipe_id", lambda: "another-recipe")
    assert build(_settings(tmp_path, path="/back-office"), io.StringIO()) is True


def test_a_failed_build_keeps_the_previous_one_and_says_why(tools, tmp_path, monkeypatch):
    settings = _settings(tmp_path)
    build(settings, io.StringIO())
    before = (tmp_path / "build" / "index.html").read_text()
    monkeypatch.setenv("FAKE_BUILD_FAILS", "1")
    with pytest.raises(dashboard.BuildFailed, match="Module not found: oops"):
        build(settings, io.StringIO(), force=True)
    assert (tmp_path / "build" / "index.html").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "build", "cache", "calls.log"]  # no half build left


def _cli(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.cli", *args], env=env, capture_output=True, text=True,
                          timeout=PATIENCE)


def test_the_command_without_node_ends_with_one_line(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path), "DASHBOARD_DIR": str(tmp_path / "build"),
           "DASHBOARD_CACHE_DIR": str(tmp_path / "cache")}
    done = _cli(env, "dashboard", "build")
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "Node.js 20 or later" in done.stderr, done.stderr


def _when_listening(url: str) -> httpx.Response:
    """GET `url` once the server takes connections (the banner comes just before it listens)."""
    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            return httpx.get(url, timeout=PATIENCE)
        except httpx.ConnectError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _sent_body(database, to: str) -> str:
    """The body of the message to `to`, once the server's jobs have written it."""
    deadline = time.monotonic() + PATIENCE
    while True:
        with sqlite3.connect(database) as db:
            row = db.execute("SELECT body FROM notification WHERE \"to\" = ? AND body IS NOT NULL", (to,)).fetchone()
        if row or time.monotonic() > deadline:
            assert row, f"no message to {to}"
            return row[0]
        time.sleep(0.1)


def _start(env, *args) -> tuple[list[str], subprocess.Popen]:
    """`commerce start` until it says where it listens (its lines so far, and the process)."""
    return run_until(env, ["start", *args], "commerce listens on")


@pytest.mark.skipif(BACKEND != "sqlite", reason="a fresh SQLite file, the newcomer's first run: the SQLite leg runs it")
def test_first_start_builds_the_dashboard_after_the_demo_store_and_serves_it_at_app(tools, tmp_path):
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite://{tmp_path / 'store.sqlite3'}", "LOG_LEVEL": "WARNING",
           "DASHBOARD_DIR": str(tmp_path / "build"), "DASHBOARD_CACHE_DIR": str(tmp_path / "cache"),
           "DASHBOARD_AUTOBUILD": "true"}
    env.pop("REDIS_URL", None)
    lines, proc = _start(env, "--port", str(port))
    try:
        # I expect the build after the demo store, and the banner naming the dashboard and the sign-in
        loaded = next(i for i, line in enumerate(lines) if line.startswith("demo store loaded:"))
        built = next(i for i, line in enumerate(lines) if line.startswith("dashboard: built in"))
        assert loaded < built < len(lines) - 1
        assert f"  dashboard: http://localhost:{port}/app" in lines
        # the banner's lines arrive one by one after its first: wait for the last of them
        deadline = time.monotonic() + PATIENCE
        while not any(line.startswith("  sign in:") for line in lines) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any(line.startswith("  sign in:   admin@test.com / supersecret") for line in lines), lines
        r = _when_listening(f"http://127.0.0.1:{port}/app/a/orders")
        assert r.status_code == 200 and "/app/main.0123abcd.js" in r.text
        # and an invitation's link leading to it, on the port it listens on
        base = f"http://127.0.0.1:{port}"
        token = httpx.post(f"{base}/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"},
                           timeout=PATIENCE).json()["access_token"]
        r = httpx.post(f"{base}/admin/invites", json={"user": "ada@test.com", "role": "member"},
                       headers={"Authorization": f"Bearer {token}"}, timeout=PATIENCE)
        assert r.status_code == 200, r.text
        assert f"http://localhost:{port}/app/invite?token=" in _sent_body(tmp_path / "store.sqlite3", "ada@test.com")
    finally:
        stop_process(proc)
    # When it starts again, with --no-dashboard or with a current build, nothing is built
    calls = len(_calls(tools))
    lines, proc = _start(env, "--port", str(port))
    stop_process(proc)
    assert len(_calls(tools)) == calls and f"  dashboard: http://localhost:{port}/app" in lines


@pytest.mark.skipif(BACKEND != "sqlite", reason="a fresh SQLite file, the newcomer's first run: the SQLite leg runs it")
@pytest.mark.parametrize("how", ["no node", "--no-dashboard"])
def test_start_without_node_or_with_no_dashboard_starts_as_before(tools, tmp_path, how):
    env = {**os.environ, "DATABASE_URL": f"sqlite://{tmp_path / 'store.sqlite3'}", "LOG_LEVEL": "WARNING",
           "DASHBOARD_DIR": str(tmp_path / "build"), "DASHBOARD_CACHE_DIR": str(tmp_path / "cache"),
           "DASHBOARD_AUTOBUILD": "true"}
    env.pop("REDIS_URL", None)
    if how == "no node":
        env["PATH"] = str(tmp_path)
    lines, proc = _start(env, "--port", str(_free_port()), *([how] if how.startswith("--") else []))
    stop_process(proc)
    assert _calls(tools) == []
    told = [line for line in lines if line.startswith("dashboard:")]
    if how == "no node":
        assert len(told) == 1 and told[0].startswith("dashboard: not built; Node.js and npm not found"), lines
    else:
        assert told == [], lines
    assert any(line.startswith("  dashboard: not built yet: run `commerce dashboard build`") for line in lines)

"""`commerce dashboard build`: Medusa v1's admin dashboard (`@medusajs/admin-ui` 2.1.18) built for
this server, to be served at DASHBOARD_PATH (app/dashboard/serving.py).

The recipe ships in this folder: `package.json` and `package-lock.json` pin the whole dependency
tree (`webpack` held at 5.97.1: later 5.x releases refuse the options admin-ui passes), and
`build.cjs` runs admin-ui's own `build` with a relative API base and precompresses the result.
The packages are installed with `npm ci --ignore-scripts` (none of them needs its install script
to build; one would send telemetry) into DASHBOARD_CACHE_DIR, one folder per lock file; the build
goes to DASHBOARD_DIR with a stamp naming the recipe and the path, so it is made again only when
the recipe or DASHBOARD_PATH changes.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

from app.dashboard import STAMP_FILE, DashboardSettings, read_stamp

__all__ = [
    "NODE_NEEDED", "node_problem", "recipe_id", "is_current", "build", "BuildFailed", "ADMIN_UI_VERSION", "on_first_start",
]

RECIPE = Path(__file__).parent
RECIPE_FILES = ("package.json", "package-lock.json", "build.cjs")
ADMIN_UI_VERSION = "2.1.18"
NODE_MAJOR = 20  # the lock's oldest engine that says (`encoding`: node >= 20)
NPM_MAJOR = 7  # reads lock file version 3
NODE_NEEDED = (f"the admin dashboard is built with Node.js {NODE_MAJOR} or later and npm: install them "
               "(https://nodejs.org, or e.g. `apt-get install nodejs npm`), then run `commerce dashboard build`")
PROGRESS_SECONDS = 5.0


class BuildFailed(Exception):
    """npm or the build stopped; the message says where to look."""


def _version(command: str) -> tuple[int, ...] | None:
    path = shutil.which(command)
    if not path:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(n) for n in found.groups()) if found else None


def node_problem() -> str | None:
    """One line on what is missing or too old to build the dashboard (None: Node and npm will do)."""
    node, npm = _version("node"), _version("npm")
    if node is None or npm is None:
        missing = " and ".join(name for name, v in (("Node.js", node), ("npm", npm)) if v is None)
        return f"{missing} not found: {NODE_NEEDED}"
    if node[0] < NODE_MAJOR or npm[0] < NPM_MAJOR:
        found = f"Node.js {'.'.join(map(str, node))}, npm {'.'.join(map(str, npm))}"
        return f"{found} is too old: {NODE_NEEDED}"
    return None


def recipe_id() -> str:
    """Names the recipe (pinned packages and build script): a new one means a new build."""
    digest = hashlib.sha256()
    for name in RECIPE_FILES:
        digest.update((RECIPE / name).read_bytes())
    return digest.hexdigest()[:16]


def is_current(settings: DashboardSettings) -> bool:
    """A build made by this recipe for DASHBOARD_PATH is in DASHBOARD_DIR."""
    stamp = read_stamp(settings.dir) or {}
    return stamp.get("recipe") == recipe_id() and stamp.get("path") == settings.path


def build(settings: DashboardSettings, out: TextIO, *, force: bool = False) -> bool:
    """Build into DASHBOARD_DIR unless a current build is there (`force`: build anyway), saying how
    far it is on `out`. True when it built. Raises BuildFailed."""
    cache = Path(settings.cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    with _only_one_build(cache):
        if is_current(settings) and not force:
            print(f"dashboard: up to date in {settings.dir}", file=out, flush=True)
            return False
        lock_id = hashlib.sha256((RECIPE / "package-lock.json").read_bytes()).hexdigest()[:16]
        packages = cache / f"npm-{lock_id}"
        _install(packages, out)
        _build(settings, packages, out)
        for old in cache.glob("npm-*"):  # installs for older lock files
            if old != packages:
                shutil.rmtree(old, ignore_errors=True)
        return True


@contextlib.contextmanager
def _only_one_build(cache: Path):
    with open(cache / ".build-lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("dashboard: another build is running; waiting for it", file=sys.stderr, flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _install(packages: Path, out: TextIO) -> None:
    done = packages / ".installed"
    if done.is_file():
        return
    shutil.rmtree(packages, ignore_errors=True)  # a half-finished install
    packages.mkdir(parents=True)
    for name in RECIPE_FILES:
        shutil.copyfile(RECIPE / name, packages / name)
    lock = json.loads((RECIPE / "package-lock.json").read_text())["packages"]
    total = sum(1 for key in lock if key.count("node_modules/") == 1 and not lock[key].get("optional"))
    print(f"dashboard: installing @medusajs/admin-ui {ADMIN_UI_VERSION} and the packages its lock pins into "
          f"{packages} (first time only: a few minutes)", file=out, flush=True)

    def count() -> str:
        top = packages / "node_modules"
        if not top.is_dir():
            return ""
        n = sum(len(os.listdir(d)) if d.name.startswith("@") else 1 for d in top.iterdir() if d.is_dir()
                and not d.name.startswith("."))
        return f"installing packages: {min(n, total)}/{total} (top level)"

    _run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], packages, out, count)
    done.write_text(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def _build(settings: DashboardSettings, packages: Path, out: TextIO) -> None:
    target = Path(settings.dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = target.with_name(f"{target.name}.new-{os.getpid()}")
    shutil.rmtree(fresh, ignore_errors=True)
    print(f"dashboard: building for {settings.path} (about 2 minutes on 2 cores)", file=out, flush=True)
    try:
        _run(["node", "build.cjs", str(fresh), settings.path], packages, out, None)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    (fresh / STAMP_FILE).write_text(json.dumps({
        "recipe": recipe_id(), "path": settings.path, "admin_ui": ADMIN_UI_VERSION,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }))
    # Swapped in whole, so a server running meanwhile never serves half of two builds.
    old = target.with_name(f"{target.name}.old-{os.getpid()}")
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    print(f"dashboard: built in {target}", file=out, flush=True)


def _run(command: list[str], cwd: Path, out: TextIO, progress) -> None:
    """Run `command`, passing its stdout on line by line (and, every few seconds, `progress()`);
    its last lines of stderr make the BuildFailed message."""
    # admin-ui compiles every MEDUSA_ADMIN_* variable into the bundle: none of the operator's.
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("MEDUSA_ADMIN_")}
    env.update(MEDUSA_DISABLE_TELEMETRY="true", NODE_ENV="production", npm_config_update_notifier="false")
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True)
    reader.start()
    stop = threading.Event()

    def tick():
        last = ""
        while not stop.wait(PROGRESS_SECONDS):
            line = progress()
            if line and line != last:
                print(line, file=out, flush=True)
                last = line

    ticker = threading.Thread(target=tick, daemon=True) if progress else None
    if ticker:
        ticker.start()
    for line in proc.stdout:
        print(line.rstrip(), file=out, flush=True)
    code = proc.wait()
    stop.set()
    reader.join()
    if code != 0:
        tail = "".join(line for line in errors if not line.startswith("npm warn"))[-2000:].strip()
        raise BuildFailed(f"`{' '.join(command)}` in {cwd} failed (exit {code}){': ' + tail if tail else ''}")


def on_first_start(settings: DashboardSettings, out: TextIO) -> None:
    """`commerce start`'s step: build a missing or outdated dashboard when Node is there; without
    Node, one line on how to get it. A failed build is reported and the server starts anyway."""
    if not settings.enabled or not settings.autobuild or is_current(settings):
        return
    problem = node_problem()
    if problem:
        print(f"dashboard: {'not built' if read_stamp(settings.dir) is None else 'kept as built'}; {problem}",
              file=out, flush=True)
        return
    try:
        build(settings, out)
    except BuildFailed as e:
        print(f"dashboard: build failed, starting without it: {e}", file=out, flush=True)

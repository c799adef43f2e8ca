"""`python -m tests`: the whole suite on PostgreSQL + Redis (when reachable) and on SQLite + the
in-memory broker, each in its own pytest process, both at once (each has its own database and
Redis namespace, so they do not meet). The first leg's output streams; the other's follows when it
is done. With REQUIRE_POSTGRES=1 (CI) an unreachable PostgreSQL or Redis is a failure instead of a
skipped leg. Extra arguments go to pytest."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
from urllib.parse import urlparse

PG = os.environ.get("TEST_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _reachable(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or default_port), timeout=2):
            return True
    except OSError:
        return False


def _start(backend: str, args: list[str], output) -> subprocess.Popen:
    env = {**os.environ, "TEST_BACKEND": backend}
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        env=env, stdout=output, stderr=subprocess.STDOUT, text=True,
    )


def _counts(tail: str) -> dict[str, int]:
    return {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", tail)}


def main() -> int:
    args = sys.argv[1:]
    legs = ["sqlite"]
    if _reachable(PG, 5432) and _reachable(REDIS, 6379):
        legs.insert(0, "postgres")
    elif os.environ.get("REQUIRE_POSTGRES") == "1":
        print(f"PostgreSQL ({PG}) or Redis ({REDIS}) is not reachable, and REQUIRE_POSTGRES=1")
        return 1
    else:
        print("PostgreSQL or Redis not reachable: running the SQLite leg only")
    first, rest = legs[0], legs[1:]
    buffers = {leg: tempfile.TemporaryFile("w+") for leg in rest}
    later = {leg: _start(leg, args, buffers[leg]) for leg in rest}
    results: dict[str, tuple[int, dict[str, int]]] = {}

    print(f"\n===== tests on {first} =====", flush=True)
    proc = _start(first, args, subprocess.PIPE)
    tail = ""
    for line in proc.stdout:
        sys.stdout.write(line)
        tail = line
    results[first] = (proc.wait(), _counts(tail))
    print(f"{first}: " + ", ".join(f"{v} {k}" for k, v in results[first][1].items()), flush=True)

    for leg, proc in later.items():
        code = proc.wait()
        print(f"\n===== tests on {leg} =====", flush=True)
        buffers[leg].seek(0)
        tail = ""
        for line in buffers[leg]:
            sys.stdout.write(line)
            tail = line
        results[leg] = (code, _counts(tail))
        print(f"{leg}: " + ", ".join(f"{v} {k}" for k, v in results[leg][1].items()), flush=True)

    total = {"passed": 0, "failed": 0, "skipped": 0}
    worst = 0
    for leg in legs:
        code, counts = results[leg]
        total["passed"] += counts.get("passed", 0)
        total["failed"] += counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
        total["skipped"] += counts.get("skipped", 0)
        worst = worst or code  # pytest's 5 (no tests ran) fails the run too
    print(f"\nlegs: {', '.join(legs)}")
    print(f"{total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return worst


if __name__ == "__main__":
    sys.exit(main())

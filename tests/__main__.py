"""`python -m tests`: the whole suite on PostgreSQL + Redis (when reachable) and on SQLite + the
in-memory broker, each in its own pytest process. With REQUIRE_POSTGRES=1 (CI) an unreachable
PostgreSQL or Redis is a failure instead of a skipped leg. Extra arguments go to pytest."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
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


def _run(backend: str, args: list[str]) -> tuple[int, dict[str, int]]:
    print(f"\n===== tests on {backend} =====", flush=True)
    env = {**os.environ, "TEST_BACKEND": backend}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    tail = ""
    for line in proc.stdout:
        sys.stdout.write(line)
        tail = line
    code = proc.wait()
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", tail)}
    return code, counts


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
    total = {"passed": 0, "failed": 0, "skipped": 0}
    worst = 0
    for leg in legs:
        code, counts = _run(leg, args)
        print(f"{leg}: " + ", ".join(f"{v} {k}" for k, v in counts.items()), flush=True)
        total["passed"] += counts.get("passed", 0)
        total["failed"] += counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
        total["skipped"] += counts.get("skipped", 0)
        worst = worst or code  # pytest's 5 (no tests ran) fails the run too
    print(f"\nlegs: {', '.join(legs)}")
    print(f"{total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return worst


if __name__ == "__main__":
    sys.exit(main())

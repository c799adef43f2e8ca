"""Running a `commerce` command as its own process and reading its output as it comes, for the
tests of what a command prints while it keeps running (start, serve)."""

from __future__ import annotations

import subprocess
import sys
import threading

from tests.conftest import PATIENCE, stop_process

__all__ = ["run_until"]


def run_until(env: dict, args: list[str], prefix: str) -> tuple[list[str], subprocess.Popen]:
    """`commerce ARGS` in a session of its own, read until a line starts with `prefix` (or it
    ends): its lines so far, which go on growing, and the process, for the caller to stop."""
    proc = subprocess.Popen([sys.executable, "-m", "workers.cli", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    seen = threading.Event()

    def read():
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith(prefix):
                seen.set()
        seen.set()  # it ended: the caller's assertions say how

    threading.Thread(target=read, daemon=True).start()
    if not seen.wait(PATIENCE):
        stop_process(proc)
        raise AssertionError("\n".join(lines))
    return lines, proc

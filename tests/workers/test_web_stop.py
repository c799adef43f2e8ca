"""A SIGTERM to `commerce start` as soon as it says it listens (workers/web_stop.py): Sanic's own
handler lost a stop asked while its after_server_start listeners ran, which is when the banner
comes, and the server then served on until SIGKILL; and uvloop held a signal that arrived between
two runs of the loop until another one came. A SIGTERM to the group of `commerce serve --workers 2`
(workers/web_start.py): the process keeping the web processes' shared state died of it, and a stop
asked while they started was taken for a failed start, both ending with 1."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.conftest import BACKEND, PATIENCE, _free_port, stop_process
from tests.workers.cli_process import run_until


def _said(lines: list[str], text: str) -> bool:
    """Whether `text` is in the output, once the reader has it (the process may end first)."""
    deadline = time.monotonic() + PATIENCE
    while not any(text in line for line in lines):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.skipif(BACKEND != "sqlite", reason="the web process alone, on a fresh SQLite file: run in the SQLite leg")
def test_a_sigterm_at_the_banner_stops_the_server_gracefully(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite://{tmp_path / 'store.sqlite3'}", "LOG_LEVEL": "INFO",
           "DASHBOARD_DIR": str(tmp_path / "build"), "DASHBOARD_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("REDIS_URL", None)
    # Given `commerce start` that has just said where it listens
    lines, proc = run_until(env, ["start", "--no-dashboard", "--port", str(_free_port())], "commerce listens on")
    try:
        # When its group gets SIGTERM at once, as a supervisor told it is up sends it
        os.killpg(proc.pid, signal.SIGTERM)
        # I expect it to end with 0 after its shutdown: the stop taken, the shutdown listeners run
        assert proc.wait(PATIENCE) == 0, "\n".join(lines)
        assert _said(lines, "SIGTERM received: stopping"), "\n".join(lines)
        assert _said(lines, "Worker complete"), "\n".join(lines)  # Sanic's line after after_server_stop
    finally:
        stop_process(proc)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> Path:
    """A SQLite file `commerce migrate` made (serve refuses a store without tables), for each test to copy."""
    path = tmp_path_factory.mktemp("serve") / "store.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite://{path}"}
    env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "-m", "workers.cli", "migrate"], env=env, check=True, capture_output=True,
                   timeout=PATIENCE * 3)
    return path


@pytest.mark.skipif(BACKEND != "sqlite", reason="the web processes alone, on a fresh SQLite file: run in the SQLite leg")
def test_a_sigterm_to_the_group_of_serve_with_two_web_processes_ends_it_with_0(tmp_path, migrated):
    shutil.copy(migrated, tmp_path / "store.sqlite3")
    env = {**os.environ, "DATABASE_URL": f"sqlite://{tmp_path / 'store.sqlite3'}", "LOG_LEVEL": "INFO",
           "DASHBOARD_DIR": str(tmp_path / "build"), "DASHBOARD_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("REDIS_URL", None)
    # Given `commerce serve --workers 2` that has said where it listens (its web processes may
    # still be starting)
    lines, proc = run_until(env, ["serve", "--port", str(_free_port()), "--workers", "2"], "commerce listens on")
    try:
        # When its process group gets SIGTERM, as a supervisor stops it
        os.killpg(proc.pid, signal.SIGTERM)
        # I expect it to end with 0, its main process stopped in order
        assert proc.wait(PATIENCE) == 0, "\n".join(lines)
        assert _said(lines, "Server Stopped"), "\n".join(lines)
        assert not any("Experienced exception" in line or "Not all workers" in line for line in lines), \
            "\n".join(lines)
    finally:
        stop_process(proc)


_BETWEEN_RUNS = textwrap.dedent("""
    import asyncio, os, signal, sys
    import uvloop
    from workers.web_stop import take_signals_on

    loop = uvloop.new_event_loop()
    asyncio.set_event_loop(loop)
    heard = []

    async def install():
        if sys.argv[1] == "ours":
            take_signals_on(loop, heard.append)
        else:
            loop.add_signal_handler(signal.SIGTERM, heard.append, signal.SIGTERM)

    loop.run_until_complete(install())
    os.kill(os.getpid(), signal.SIGTERM)  # the loop does not run: between two runs, as Sanic's are
    loop.call_later(float(sys.argv[2]), loop.stop)  # a bound: a handler that never hears it

    def heard_yet():
        if heard:
            loop.stop()
        else:
            loop.call_later(0.01, heard_yet)

    loop.call_soon(heard_yet)
    loop.run_forever()
    print(heard)
""")


def _between_runs(handler: str, bound: float) -> str:
    return subprocess.run([sys.executable, "-c", _BETWEEN_RUNS, handler, str(bound)], capture_output=True,
                          text=True, timeout=PATIENCE + bound, check=True).stdout.strip()


def test_a_signal_between_two_runs_of_uvloop_reaches_the_handler():
    # Given uvloop, and a SIGTERM sent while it does not run (after one run_until_complete, before
    # the run_forever that serves)
    # When the handler is workers/web_stop.py's
    # I expect it to be called once the loop runs again
    # (uvloop 0.23's own add_signal_handler holds it until another signal arrives)
    assert _between_runs("ours", PATIENCE) == "[15]"

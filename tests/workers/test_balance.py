"""Keep-alive connections spread over the web workers (workers/balance.py): the rule on its own,
then `commerce serve --workers 2` taking a burst of connections."""

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import BACKEND, PATIENCE, _free_port
from tests.workers.test_processes import _cli, _env, _wait_http
from workers.balance import SHED_PAUSE_SECONDS, ConnectionBalance


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_worker_two_connections_above_the_quietest_sheds_one_then_pauses():
    # Given two workers, this one holding 5 connections and the other 3
    counts, clock = [7, 3], Clock()
    balance = ConnectionBalance(counts, 0, clock=clock)
    assert counts == [0, 3]  # its own count starts again from none
    for _ in range(5):
        balance.opened()
    # When it answers twice in a row, then again after the pause
    first, second = balance.shed(), balance.shed()
    clock.now += SHED_PAUSE_SECONDS
    third = balance.shed()
    # I expect one connection ended per pause while it holds two more than the other
    assert (first, second, third) == (True, False, True)


def test_a_worker_within_one_connection_of_the_others_keeps_its_connections():
    counts = [0, 4, 5]
    balance = ConnectionBalance(counts, 0, clock=Clock())
    for _ in range(5):
        balance.opened()
    assert balance.shed() is False
    balance.closed()
    assert counts == [4, 4, 5] and balance.shed() is False


def _descendants(pid: int) -> set[int]:
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, grew = {pid}, True
    while grew:
        more = {child for child, parent in parents.items() if parent in found} - found
        found |= more
        grew = bool(more)
    return found


def _connections_by_process(server_pid: int, port: int) -> dict[int, int]:
    """How many established connections to `port` each process under the server holds."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "01":  # local port, ESTABLISHED
            inodes.add(fields[9])
    held = {}
    for pid in _descendants(server_pid):
        try:
            links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
        except OSError:
            continue
        mine = sum(1 for link in links if re.fullmatch(r"socket:\[(\d+)\]", link)
                   and link[8:-1] in inodes)
        if mine:
            held[pid] = mine
    return held


def _ask(conn: socket.socket) -> bool:
    """One request on the connection; whether the server keeps it open."""
    conn.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data or not data.endswith(b"OK"):
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return b"connection: close" not in data.lower()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.skipif(BACKEND == "postgres", reason="the web tier alone, on SQLite: run once, in the SQLite leg")
def test_a_burst_of_keep_alive_connections_ends_evenly_spread_over_two_workers(tmp_path, processes):
    env = _env(tmp_path)  # embedded, on SQLite
    _cli(env, "migrate")
    port = _free_port()
    serve = subprocess.Popen([sys.executable, "-m", "workers.cli", "serve", "--port", str(port), "--workers", "2"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    processes.append(serve)
    _wait_http(f"http://127.0.0.1:{port}/health")
    # Given 16 connections opened at once, as a proxy's pool or a load test opens them
    conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(16)]
    try:
        # When each keeps asking, reconnecting whenever the server ends its connection
        deadline, held = time.monotonic() + PATIENCE, {}
        while time.monotonic() < deadline:
            for n, conn in enumerate(conns):
                if not _ask(conn):
                    conn.close()
                    conns[n] = socket.create_connection(("127.0.0.1", port))
            held = _connections_by_process(serve.pid, port)
            if len(held) == 2 and max(held.values()) - min(held.values()) <= 1 and sum(held.values()) == 16:
                break
            time.sleep(SHED_PAUSE_SECONDS)
        # I expect both workers to hold 8 connections, give or take one
        assert len(held) == 2 and sum(held.values()) == 16, held
        assert max(held.values()) - min(held.values()) <= 1, held
    finally:
        for conn in conns:
            conn.close()

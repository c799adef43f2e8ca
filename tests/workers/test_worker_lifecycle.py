"""The job processes as an operator runs them, on PostgreSQL + Redis: a worker killed mid-send,
a worker stopped by SIGTERM to its group, a worker whose parent is killed, two schedulers.
Heartbeats, takeover, grace and sweep intervals are shortened through the environment (the
production defaults are 5 s, 15 s, 30 s and 15 s); each story takes seconds."""

import asyncio
import email
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest
from aiosmtpd.controller import Controller

from models import Customer, Job, Notification
from services.notifications.delivery import queue_message
from services.notifications.messages import PASSWORD_RESET
from tests.conftest import PATIENCE, SETTINGS, _free_port, requires_postgres, wait_for
from tests.jobs.test_broker_outage import private_redis  # noqa: F401 (fixture)

pytestmark = requires_postgres("needs PostgreSQL and Redis: worker processes share the database")

QUICK = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_TAKEOVER_SECONDS": "2", "SCHEDULER_INTERVAL_SECONDS": "0.5",
         "OUTBOX_GRACE_SECONDS": "0", "WORKER_GRACE_SECONDS": "3"}


class Inbox:
    """An SMTP server that records each message's Message-ID; while `hold` is set it takes a
    message's data and never answers (the sender cannot know whether it was delivered)."""

    def __init__(self):
        self.received: list[str] = []  # every DATA seen
        self.accepted: list[str] = []  # answered 250
        self.hold = threading.Event()
        self.port = _free_port()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server, session, envelope):
        message_id = email.message_from_bytes(envelope.content)["Message-ID"]
        self.received.append(message_id)
        if self.hold.is_set():
            while self.hold.is_set():
                await asyncio.sleep(0.05)
            return "451 the sender went away"
        self.accepted.append(message_id)
        return "250 OK"


@pytest.fixture
def inbox():
    box = Inbox()
    box.controller.start()
    yield box
    box.hold.clear()
    box.controller.stop()


def _commerce(*args: str, redis_url: str, inbox: Inbox | None = None, log=subprocess.PIPE,
              **env) -> subprocess.Popen:
    environ = {**os.environ, "DATABASE_URL": SETTINGS.database_url, "REDIS_URL": redis_url, "LOG_LEVEL": "INFO",
               **QUICK, **env}
    if inbox is not None:
        environ.update(SMTP_HOST="127.0.0.1", SMTP_PORT=str(inbox.port), SMTP_TLS="none")
    # A session of its own: signals to "the group" reach exactly this command's processes.
    return subprocess.Popen([sys.executable, "-m", "workers.cli", *args], env=environ, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=log)


def _kill_group(proc: subprocess.Popen) -> str:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    err = proc.communicate()[1]
    return err.decode(errors="replace") if err else ""


def _processes():
    """(pid, the fields of /proc/PID/stat after the name: state, ppid, pgrp, session, …) of each process."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    yield int(entry), f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue


def _children(pid: int) -> list[int]:
    return [child for child, fields in _processes() if int(fields[1]) == pid]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has stopped
    except OSError:
        return False


async def _reset_asked_for(address: str = "jane@example.com") -> Notification:
    customer = await Customer.create(email=address, has_account=True, first_name="Jane", last_name="Doe")
    return await queue_message(PASSWORD_RESET, to=address, customer_id=customer.id, data={
        "id": customer.id, "email": address, "first_name": "Jane", "last_name": "Doe",
    })


async def _until(predicate, timeout: float = PATIENCE):
    async def check():
        return predicate() or None

    return await wait_for(check, timeout=timeout, interval=0.05)


async def test_a_worker_killed_mid_send_sends_again_with_the_same_message_id(private_redis, inbox):
    url, logs, procs = private_redis.url, [], {}
    try:
        # Given a worker sending a message whose server took the data but has not answered
        inbox.hold.set()
        procs["worker"] = _commerce("worker", "--processes", "1", "--threads", "2", redis_url=url, inbox=inbox)
        note = await _reset_asked_for()
        await _until(lambda: inbox.received)
        # When the worker's processes are killed mid-send, then a worker and the scheduler start again
        logs.append(_kill_group(procs.pop("worker")))
        inbox.hold.clear()
        procs["worker"] = _commerce("worker", "--processes", "1", "--threads", "2", redis_url=url, inbox=inbox)
        procs["scheduler"] = _commerce("scheduler", redis_url=url)
        # I expect the message accepted (takeover is 2 s here)
        await _until(lambda: inbox.accepted)
        await asyncio.sleep(1.5)  # room for a wrong second send to arrive
    finally:
        logs += [_kill_group(p) for p in procs.values()]
    # accepted once; the unanswered first send and the second carry one Message-ID, so a mail
    # system that did get the first drops the second
    assert len(inbox.accepted) == 1 and len(inbox.received) == 2, (inbox.received, logs[-1][-2000:])
    assert len(set(inbox.received)) == 1 and note.id in inbox.received[0]
    assert (await Notification.get(id=note.id)).status == "sent"
    job = await Job.get(actor_name="send_notification", args=[note.id])
    assert job.status == "succeeded" and job.attempts == 2


async def test_sigterm_to_the_group_stops_within_the_grace_period_and_gives_the_job_back(private_redis, inbox):
    url, procs, logs = private_redis.url, {}, []
    try:
        # Given a worker (two processes) whose send hangs
        inbox.hold.set()
        procs["worker"] = worker = _commerce("worker", "--processes", "2", "--threads", "2", redis_url=url,
                                             inbox=inbox)
        note = await _reset_asked_for()
        await _until(lambda: inbox.received)
        # When SIGTERM reaches the whole group (each worker process gets it twice)
        os.killpg(worker.pid, signal.SIGTERM)
        _, err = worker.communicate(timeout=PATIENCE)
        procs.pop("worker")
        logs.append(err.decode(errors="replace"))
        # I expect every process gone though the send never ends (only the grace period, 3 s here,
        # can end it), exit code 0
        assert worker.returncode == 0, logs[-1][-3000:]
        assert "Killing worker process" not in logs[-1]
        # and the job given back, not lost: a new worker sends the message
        job = await Job.get(actor_name="send_notification", args=[note.id])
        assert job.status == "retrying" and "worker stopped" in job.last_error
        inbox.hold.clear()
        procs["worker"] = _commerce("worker", "--processes", "1", "--threads", "2", redis_url=url, inbox=inbox)
        await _until(lambda: inbox.accepted)

        async def recorded():
            return (await Notification.get(id=note.id)).status == "sent"

        await wait_for(recorded, timeout=PATIENCE)
    finally:
        logs += [_kill_group(p) for p in procs.values()]
    assert inbox.accepted == [inbox.received[0]]


async def test_sigterm_to_the_group_while_its_processes_boot_stops_them_cleanly(private_redis):
    # Given a worker command whose worker processes have just been forked (still importing)
    worker = _commerce("worker", "--processes", "2", "--threads", "1", redis_url=private_redis.url)
    try:
        await _until(lambda: len(_children(worker.pid)) >= 2)
        # When SIGTERM reaches the whole group at once (each worker process gets it twice)
        os.killpg(worker.pid, signal.SIGTERM)
        _, err = worker.communicate(timeout=PATIENCE)
        log = err.decode(errors="replace")
        # I expect a clean stop: exit 0, no process killed mid-boot
        assert worker.returncode == 0, log[-3000:]
        assert "Killing worker process" not in log, log[-3000:]
    finally:
        _kill_group(worker)


async def test_killing_the_parent_leaves_no_worker_process_behind(private_redis):
    # Given a worker command with two worker processes up
    worker = _commerce("worker", "--processes", "2", "--threads", "1", redis_url=private_redis.url)
    try:
        children = await _until(lambda: len(_children(worker.pid)) >= 2 and _children(worker.pid))
        await asyncio.sleep(1)  # booted: watching their parent
        # When the parent alone is killed outright
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(PATIENCE)
        # I expect its worker processes to stop on their own
        await _until(lambda: not any(_alive(pid) for pid in children))
    finally:
        _kill_group(worker)


_SLOT = re.compile(r"sweep_outbox: slot (\d+) runs (here|in another scheduler)")


def _slots(log: str) -> tuple[set[int], set[int]]:
    ran, seen = set(), set()
    for slot, where in _SLOT.findall(log):
        seen.add(int(slot))
        if where == "here":
            ran.add(int(slot))
    return ran, seen


async def test_two_schedulers_run_each_sweep_once_and_a_standby_takes_over(private_redis, tmp_path):
    url = private_redis.url
    paths = [tmp_path / "first.log", tmp_path / "second.log"]
    files = [path.open("wb") for path in paths]
    first, second = (_commerce("scheduler", redis_url=url, LOG_LEVEL="DEBUG", log=f) for f in files)

    def seen(n: int) -> tuple[set[int], set[int]]:
        return _slots(paths[n].read_text(errors="replace"))

    try:
        # Given two schedulers sweeping every 0.5 s, both seeing the same slots a while
        await _until(lambda: len(seen(0)[1] & seen(1)[1]) >= 4)
        # When the first dies
        _kill_group(first)
        killed_at = time.time()
        # I expect the standby to run the slots from the next one on
        await _until(lambda: len({slot for slot in seen(1)[1] if slot * 0.5 > killed_at + 0.5}) >= 3)
    finally:
        _kill_group(first)
        _kill_group(second)
        for f in files:
            f.close()
    (ran_first, seen_first), (ran_second, seen_second) = seen(0), seen(1)
    logs = (paths[0].read_text(errors="replace")[-2000:], paths[1].read_text(errors="replace")[-2000:])
    # and every slot both saw run by exactly one of them
    both = seen_first & seen_second
    assert len(both) >= 4, logs
    assert all((slot in ran_first) != (slot in ran_second) for slot in both), logs
    # and every slot after the first died run by the standby
    after = {slot for slot in seen_second if slot * 0.5 > killed_at + 0.5}
    assert after and after <= ran_second, logs

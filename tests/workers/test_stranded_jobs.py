"""No job is stranded by a worker that dies or stops, on PostgreSQL + Redis with real `commerce
worker` processes: what a killed worker had fetched but not started runs elsewhere within the
takeover time, and a stopping worker takes nothing new while another worker does. Heartbeat,
takeover and sweeps are shortened as in test_worker_lifecycle (0.5 s, 2 s, 0.5 s)."""

import os
import re
import signal
import subprocess
import threading

import pytest
import redis

from services.core import outbox
from models import Job
from tests.conftest import NAMESPACE, requires_postgres, wait_for
from tests.jobs.test_broker_outage import private_redis  # noqa: F401 (fixture)
from tests.workers.test_worker_lifecycle import _commerce, _reset_asked_for, _until, inbox  # noqa: F401 (fixture)

pytestmark = requires_postgres("needs PostgreSQL and Redis: worker processes share the database")


class Output:
    """A started command and its stderr, read as it comes, so a test can wait for a line."""

    def __init__(self, proc: subprocess.Popen):
        self.proc, self.lines = proc, []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line.decode(errors="replace"))

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def kill(self) -> str:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)
        self.reader.join(10)
        return self.text


@pytest.fixture
def commands():
    """The commands a test starts (name -> Output): their whole groups killed at its end."""
    started: dict[str, Output] = {}
    yield started
    for out in started.values():
        out.kill()


async def _status(job_id: str, *statuses: str):
    job = await Job.get(id=job_id)
    return job if job.status in statuses else None


async def test_a_job_a_killed_worker_had_fetched_but_not_started_runs_elsewhere_within_the_takeover(
    private_redis, inbox, commands,
):
    url = private_redis.url
    queue = redis.Redis.from_url(url)
    # Given a worker with one thread, held by a send whose server does not answer
    inbox.hold.set()
    commands["first"] = Output(_commerce("worker", "--processes", "1", "--threads", "1", redis_url=url, inbox=inbox))
    held = await _reset_asked_for("jane@example.com")
    await _until(lambda: inbox.received, timeout=30)
    # and a second send that worker fetched (it prefetches) but cannot start: its thread is busy
    fetched = await _reset_asked_for("john@example.com")
    await _until(lambda: queue.llen(f"{NAMESPACE}:default") == 0, timeout=30)
    job = await Job.get(actor_name="send_notification", args=[fetched.id])
    assert job.status == "pending"  # sent after its commit, never claimed
    # When the worker is killed outright, and another worker and the scheduler run
    commands.pop("first").kill()
    inbox.hold.clear()
    commands["second"] = Output(_commerce("worker", "--processes", "1", "--threads", "2", redis_url=url, inbox=inbox))
    commands["scheduler"] = Output(_commerce("scheduler", redis_url=url))
    # I expect both sends to run there within 45 s: the takeover is 2 s here, and the broker alone
    # returns a dead worker's fetched messages 60 s after it died at the earliest
    try:
        done = await wait_for(lambda: _status(job.id, "succeeded"), timeout=45, interval=0.2)
    except AssertionError:
        pytest.fail("the fetched job did not run elsewhere: " + commands["second"].text[-2000:])
    assert done.attempts == 1  # it had never started
    taken_over = await Job.get(actor_name="send_notification", args=[held.id])
    assert await wait_for(lambda: _status(taken_over.id, "succeeded"), timeout=30)
    assert sorted(inbox.accepted) == sorted({m for m in inbox.received})
    assert any(fetched.id in m for m in inbox.accepted) and any(held.id in m for m in inbox.accepted)


async def test_a_stopping_worker_takes_nothing_new_while_another_worker_does(private_redis, inbox, commands):
    url = private_redis.url
    # Given a worker with an idle thread and one held by a send that does not finish, with a long grace
    inbox.hold.set()
    first = commands["first"] = Output(_commerce(
        "worker", "--processes", "1", "--threads", "2", redis_url=url, inbox=inbox, WORKER_GRACE_SECONDS="60"))
    await _reset_asked_for()
    await _until(lambda: inbox.received, timeout=30)
    # When SIGTERM reaches its group, and once it is stopping a job is asked for and a second worker runs
    os.killpg(first.proc.pid, signal.SIGTERM)
    await _until(lambda: "worker process stopping" in first.text, timeout=30)
    ping = await outbox.enqueue("ping", "after-the-signal", queue_name="maintenance")
    second = commands["second"] = Output(_commerce("worker", "--processes", "1", "--threads", "2", redis_url=url))
    # I expect the second worker to run it while the first is still stopping, which never took it
    try:
        await wait_for(lambda: _status(ping.id, "succeeded"), timeout=45, interval=0.2)
    except AssertionError:
        pytest.fail("the job did not run: " + first.text[-3000:])
    assert first.proc.poll() is None
    assert f"job {ping.id} ping started" in second.text
    assert f"job {ping.id}" not in first.text, first.text[-3000:]
    # and the first to finish its send once the server answers, then exit 0 within its grace
    inbox.hold.clear()
    assert first.proc.wait(30) == 0, first.text[-3000:]
    first.reader.join(10)
    stopped = [float(s) for s in re.findall(r"worker process stopped ([\d.]+) s after the signal", first.text)]
    assert len(stopped) == 1 and stopped[0] < 60, first.text[-3000:]


async def test_a_worker_whose_job_outlives_the_grace_exits_within_it(private_redis, inbox, commands):
    url = private_redis.url
    # Given a worker of two processes, one held by a send that never finishes (grace 5 s here)
    inbox.hold.set()
    worker = commands["worker"] = Output(_commerce("worker", "--processes", "2", "--threads", "1", redis_url=url,
                                                   inbox=inbox, WORKER_GRACE_SECONDS="5"))
    note = await _reset_asked_for()
    await _until(lambda: inbox.received, timeout=30)
    # When SIGTERM reaches its group
    os.killpg(worker.proc.pid, signal.SIGTERM)
    # I expect it to exit 0, each worker process by its own clock within the grace, counted from
    # when it got the signal (the deadline is logical: it does not depend on the machine's speed)
    assert worker.proc.wait(30) == 0, worker.text[-3000:]
    worker.reader.join(10)
    stopped = [float(s) for s in re.findall(r"worker process stopped ([\d.]+) s after the signal", worker.text)]
    assert len(stopped) == 2 and all(s < 5 for s in stopped), worker.text[-3000:]
    # and the held job given back to the queue
    job = await Job.get(actor_name="send_notification", args=[note.id])
    assert job.status == "retrying" and "worker stopped" in job.last_error

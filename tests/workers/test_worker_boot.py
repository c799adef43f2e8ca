"""`commerce worker` killed outright (`kill -9` of its main process) while its worker processes
boot: none of them outlives it by more than moments, whatever stage of its boot it was in."""

import asyncio
import os
import signal
import time

import pytest

from models import Job
from tests.conftest import PATIENCE, requires_postgres, wait_for
from tests.jobs.test_broker_outage import private_redis  # noqa: F401 (fixture)
from tests.workers.test_stranded_jobs import Output
from tests.workers.test_worker_lifecycle import (  # noqa: F401 (fixture)
    _children, _commerce, _kill_group, _processes, _reset_asked_for, _until, inbox,
)

pytestmark = requires_postgres("needs Redis: `commerce worker` runs on it")

# The points of a worker process's boot, by what it has just done: forked (its imports under way),
# its broker and middleware loaded, its threads starting, ready.
STAGES = {
    "forked": None,
    "broker loaded": "Loading modules...",
    "threads starting": "Starting worker threads...",
    "ready": "Worker process is ready for action.",
}


def _session(sid: int) -> list[int]:
    """Live processes of the session `sid` (the command and everything it started)."""
    return [pid for pid, fields in _processes() if int(fields[3]) == sid and fields[0] != "Z"]


@pytest.mark.parametrize("stage", list(STAGES))
async def test_killing_the_parent_while_its_processes_boot_leaves_none_behind(private_redis, stage):
    # Given a worker command (two processes, the default 30 s grace) at a point of its boot
    worker = _commerce("worker", "--processes", "2", "--threads", "1", redis_url=private_redis.url,
                       LOG_LEVEL="DEBUG", WORKER_GRACE_SECONDS="30")
    out = Output(worker)
    try:
        await _until(lambda: len(_children(worker.pid)) >= 2)
        if STAGES[stage]:
            await _until(lambda: STAGES[stage] in out.text)
        # When its main process alone is killed outright
        os.kill(worker.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        worker.wait(PATIENCE)
        # I expect no process of it left within 5 s
        while _session(worker.pid) and time.monotonic() - killed_at < 5:
            await asyncio.sleep(0.05)
        left = _session(worker.pid)
        assert not left, (stage, left, out.text[-3000:])
    finally:
        out.kill()


async def test_a_booted_worker_process_still_gives_its_job_back_when_its_parent_dies(private_redis, inbox):
    # Given a booted worker command whose one process is held by a send that never ends
    inbox.hold.set()
    worker = _commerce("worker", "--processes", "1", "--threads", "1", redis_url=private_redis.url, inbox=inbox)
    try:
        note = await _reset_asked_for()
        await _until(lambda: inbox.received)
        # When its main process is killed outright
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(PATIENCE)

        # I expect the worker process to stop the clean way (workers/stopping.py), not to die
        # outright: at the end of its grace (3 s here) the job is given back, not left running
        async def given_back():
            job = await Job.get(actor_name="send_notification", args=[note.id])
            return job if job.status == "retrying" else None

        job = await wait_for(given_back, timeout=PATIENCE)
        assert "worker stopped" in job.last_error
        await _until(lambda: not _session(worker.pid))
    finally:
        inbox.hold.clear()
        _kill_group(worker)

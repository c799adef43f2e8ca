"""End to end with real processes: a job asked for while Redis is down runs exactly once after
Redis comes back, through the `commerce scheduler` sweep and a `commerce worker` process."""

import os
import shutil
import signal
import subprocess
import sys
import time

import dramatiq
import pytest

from services.core import outbox
from models import Job
from tests.conftest import BROKER, PATIENCE, SETTINGS, _free_port, requires_postgres, stop_process, wait_for
from workers.broker import setup_broker

pytestmark = requires_postgres("needs PostgreSQL and Redis: worker processes share the database")


class RedisServer:
    """A private redis-server that the test can stop and start again on the same port."""

    def __init__(self):
        self.port = _free_port()
        self.proc = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        self.proc = subprocess.Popen(
            [shutil.which("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        import redis

        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                if redis.Redis.from_url(self.url).ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not start")

    def stop(self):
        if self.proc:
            stop_process(self.proc)
            self.proc = None


def _commerce(*args: str, redis_url: str, log=subprocess.PIPE, **env) -> subprocess.Popen:
    environ = {
        **os.environ, "DATABASE_URL": SETTINGS.database_url, "REDIS_URL": redis_url,
        "SCHEDULER_INTERVAL_SECONDS": "0.5", "OUTBOX_GRACE_SECONDS": "0", **env,
    }
    # A session of its own: a kill reaches the worker's children too.
    return subprocess.Popen([sys.executable, "-m", "workers.cli", *args], env=environ, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=log)


def _stop(proc: subprocess.Popen) -> str:
    """SIGTERM to the command (it stops its children), a kill of its group if it has not stopped
    within PATIENCE, and of whatever of its group outlived it."""
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        err = None
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if err is None:
        _, err = proc.communicate()
    return err.decode(errors="replace") if err else ""


async def _done(job_id: str):
    job = await Job.get(id=job_id)
    return job if job.status in ("succeeded", "failed") else None


@pytest.fixture
async def private_redis():
    server = RedisServer()
    server.start()
    setup_broker(SETTINGS.__class__(**{**SETTINGS.__dict__, "redis_url": server.url}))
    yield server
    server.stop()
    dramatiq.set_broker(BROKER)


async def test_job_asked_for_while_redis_is_down_runs_exactly_once_after_it_returns(private_redis, tmp_path):
    worker_file = (tmp_path / "worker.log").open("w+b")  # read while it runs
    worker = _commerce("worker", "--processes", "1", "--threads", "2", redis_url=private_redis.url, log=worker_file)
    scheduler, worker_log, scheduler_log = None, "", ""

    def worker_said() -> str:
        return (tmp_path / "worker.log").read_text(errors="replace")

    try:
        # Given a worker process that runs jobs
        warm = await outbox.enqueue("ping", "warm-up", queue_name="maintenance")
        assert (await wait_for(lambda: _done(warm.id), timeout=PATIENCE)).status == "succeeded"

        # When Redis goes down and a job is asked for
        private_redis.stop()
        job = await outbox.enqueue("ping", "during-outage", queue_name="maintenance")
        assert (await Job.get(id=job.id)).status == "pending"

        # and Redis comes back, with the scheduler process sweeping the outbox
        private_redis.start()
        scheduler = _commerce("scheduler", redis_url=private_redis.url)
        done = await wait_for(lambda: _done(job.id), timeout=PATIENCE, interval=0.2)

        # I expect the job to have run once, with its result recorded
        assert done.status == "succeeded" and done.attempts == 1
        assert done.result == {"pong": "during-outage"}

        # and neither further sweeps nor a duplicate delivery to run it again
        assert await outbox.send(done)

        async def duplicate_skipped():
            return "skipping duplicate message" in worker_said()

        await wait_for(duplicate_skipped, timeout=PATIENCE, interval=0.1)
        time.sleep(1.5)  # room for a wrong rerun by a sweep
        again = await Job.get(id=job.id)
        assert again.status == "succeeded" and again.attempts == 1
    finally:
        scheduler_log = _stop(scheduler) if scheduler else ""
        _stop(worker)
        worker_file.close()
        worker_log = worker_said()
    # The processes tell the same story: one pending row swept and sent, one duplicate skipped.
    assert "outbox sweep: 1 pending, 0 lost, 0 stalled; 1 sent" in scheduler_log, scheduler_log
    assert worker_log.count("skipping duplicate message") == 1, worker_log[-3000:]
    assert "Traceback" not in worker_log + scheduler_log, (worker_log + scheduler_log)[-3000:]

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

from jobs import outbox
from models import Job
from tests.conftest import BROKER, SETTINGS, _free_port, requires_postgres, wait_for
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

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if redis.Redis.from_url(self.url).ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


def _commerce(*args: str, redis_url: str, **env) -> subprocess.Popen:
    environ = {
        **os.environ, "DATABASE_URL": SETTINGS.database_url, "REDIS_URL": redis_url,
        "SCHEDULER_INTERVAL_SECONDS": "0.5", "OUTBOX_GRACE_SECONDS": "0", **env,
    }
    return subprocess.Popen([sys.executable, "-m", "workers.cli", *args], env=environ,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err.decode(errors="replace")


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


async def test_job_asked_for_while_redis_is_down_runs_exactly_once_after_it_returns(private_redis):
    worker = _commerce("worker", "--processes", "1", "--threads", "2", redis_url=private_redis.url)
    scheduler, worker_log, scheduler_log = None, "", ""
    try:
        # Given a worker process that runs jobs
        warm = await outbox.enqueue("ping", "warm-up", queue_name="maintenance")
        assert (await wait_for(lambda: _done(warm.id), timeout=30)).status == "succeeded"

        # When Redis goes down and a job is asked for
        private_redis.stop()
        job = await outbox.enqueue("ping", "during-outage", queue_name="maintenance")
        assert (await Job.get(id=job.id)).status == "pending"

        # and Redis comes back, with the scheduler process sweeping the outbox
        private_redis.start()
        scheduler = _commerce("scheduler", redis_url=private_redis.url)
        done = await wait_for(lambda: _done(job.id), timeout=60, interval=0.2)

        # I expect the job to have run once, with its result recorded
        assert done.status == "succeeded" and done.attempts == 1
        assert done.result == {"pong": "during-outage"}

        # and neither further sweeps nor a duplicate delivery to run it again
        assert await outbox.send(done)
        time.sleep(1.5)
        again = await Job.get(id=job.id)
        assert again.status == "succeeded" and again.attempts == 1
    finally:
        scheduler_log = _stop(scheduler) if scheduler else ""
        worker_log = _stop(worker)
    # The processes tell the same story: one pending row swept and sent, one duplicate skipped.
    assert "outbox sweep: 1 pending, 0 lost, 0 stalled; 1 sent" in scheduler_log, scheduler_log
    assert worker_log.count("skipping duplicate message") == 1, worker_log[-3000:]
    assert "Traceback" not in worker_log + scheduler_log, (worker_log + scheduler_log)[-3000:]

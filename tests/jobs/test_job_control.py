"""`commerce jobs list|show|retry|cancel`: an operator reads the job rows, runs a failed job
again and cancels one that has not started; a job a worker holds is neither."""

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from jobs import control
from models import Job
from services.core.errors import NotAllowed, NotFound
from tests.conftest import PATIENCE, SETTINGS


def _cli(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": SETTINGS.database_url, "LOG_LEVEL": "WARNING"}
    env.pop("REDIS_URL", None)  # embedded: a retried job waits for the web process's sweep
    return subprocess.run([sys.executable, "-m", "workers.cli", "jobs", *args], env=env, capture_output=True,
                          text=True, timeout=PATIENCE)


async def _job(status: str, actor: str = "ping", minutes_ago: int = 0, **fields) -> Job:
    job = await Job.create(actor_name=actor, queue_name="maintenance", args=[status], status=status, **fields)
    await Job.filter(id=job.id).update(created_at=datetime.now(timezone.utc) - timedelta(minutes=minutes_ago))
    return job


async def test_list_filters_by_status_and_actor_newest_first():
    old_failed = await _job("failed", minutes_ago=5, last_error="boom")
    new_failed = await _job("failed", actor="send_notification", minutes_ago=1)
    await _job("succeeded")
    assert [j.id for j in await control.list_jobs(status=["failed"])] == [new_failed.id, old_failed.id]
    assert [j.id for j in await control.list_jobs(status=["failed"], actor=["ping"])] == [old_failed.id]
    assert len(await control.list_jobs(limit=2)) == 2


async def test_retry_runs_a_failed_job_again_and_refuses_others():
    failed = await _job("failed", attempts=4, last_error="SMTPException: down", finished_at=datetime.now(timezone.utc))
    retried = await control.retry_job(failed.id, send_now=False)
    assert (retried.status, retried.attempts, retried.finished_at) == ("pending", 4, None)
    running = await _job("running", attempts=1)
    with pytest.raises(NotAllowed, match="is running"):
        await control.retry_job(running.id)
    with pytest.raises(NotFound):
        await control.retry_job("job_nope")


async def test_cancel_stops_a_job_before_it_runs_and_its_message_is_skipped():
    from services.core import outbox

    waiting = await _job("enqueued")
    canceled = await control.cancel_job(waiting.id)
    assert canceled.status == "canceled" and canceled.finished_at is not None
    assert await outbox.claim(waiting.id) is None  # the message on its way does nothing
    for status in ("running", "succeeded"):
        with pytest.raises(NotAllowed):
            await control.cancel_job((await _job(status)).id)


async def test_the_commands_as_an_operator_runs_them():
    failed = await _job("failed", attempts=3, last_error="ValueError: broken")
    pending = await _job("pending")

    listed = _cli("list", "--status", "failed")
    assert listed.returncode == 0, listed.stderr
    assert [json.loads(line)["id"] for line in listed.stdout.splitlines()] == [failed.id]

    shown = json.loads(_cli("show", failed.id).stdout)
    assert (shown["status"], shown["attempts"], shown["last_error"], shown["args"]) == (
        "failed", 3, "ValueError: broken", ["failed"])

    assert json.loads(_cli("retry", failed.id).stdout)["status"] == "pending"
    assert json.loads(_cli("cancel", pending.id).stdout)["status"] == "canceled"

    refused = _cli("cancel", pending.id)
    assert refused.returncode != 0 and "not_allowed" in refused.stderr and "Traceback" not in refused.stderr
    assert "not_found" in _cli("show", "job_missing").stderr

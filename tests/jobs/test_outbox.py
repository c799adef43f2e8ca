"""The outbox: a job is a row written with the change that asks for it, sent after commit, run
once by a worker even when its message arrives twice, and re-sent when it never got through."""

from datetime import datetime, timedelta, timezone

import dramatiq
import pytest

from services.core import outbox
from models import Job
from services.core.db import atomic
from tests.conftest import BROKER, count_queries, idle, wait_for
from workers.embedded import start_embedded_worker, stop_embedded_worker
from workers.scheduler import sweep_outbox
from tests.conftest import SETTINGS

RUNS: list[str] = []


@dramatiq.actor(queue_name="default", max_retries=1, min_backoff=10, max_backoff=20)
async def flaky_for_test(token: str) -> dict:
    """A test double: fails on its first run, succeeds on the second."""
    RUNS.append(token)
    if RUNS.count(token) == 1:
        raise RuntimeError("first run fails")
    return {"runs": RUNS.count(token)}


@dramatiq.actor(queue_name="default", max_retries=1, min_backoff=10, max_backoff=20)
async def always_fails_for_test() -> None:
    raise ValueError("broken for good")


@pytest.fixture
async def worker():
    import asyncio

    RUNS.clear()
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    yield w
    await stop_embedded_worker(w)


async def _status(job_id: str, *wanted: str):
    job = await Job.get(id=job_id)
    return job if job.status in wanted else None


async def test_a_job_asked_for_in_a_committed_transaction_runs_once(worker):
    # Given a change that asks for a job
    async with atomic():
        job = await outbox.enqueue("ping", "hello", queue_name="maintenance")
        # while the transaction is open, nothing has been handed to the broker
        assert (await Job.get(id=job.id)).status == "pending"
    # When it commits, a worker runs it
    done = await wait_for(lambda: _status(job.id, "succeeded"))
    # I expect one attempt and the actor's result on the row
    assert done.attempts == 1 and done.result == {"pong": "hello"}
    assert done.started_at and done.finished_at


async def test_a_rolled_back_change_leaves_no_job_and_sends_nothing(worker):
    class Abort(Exception):
        pass

    with pytest.raises(Abort):
        async with atomic():
            await outbox.enqueue("ping", "never", queue_name="maintenance")
            raise Abort()
    assert await Job.all().count() == 0
    assert BROKER.__class__.__name__ != "StubBroker" or BROKER.queues["maintenance"].qsize() == 0


async def test_a_message_delivered_twice_runs_once(worker):
    job = await outbox.enqueue("ping", "dup", queue_name="maintenance")
    await wait_for(lambda: _status(job.id, "succeeded"))
    # When the same job's message arrives again (at-least-once delivery)
    assert await outbox.send(job)
    assert await outbox.send(job)
    await idle(worker)
    # I expect it not to run again
    again = await Job.get(id=job.id)
    assert again.status == "succeeded" and again.attempts == 1


async def test_sending_a_job_after_its_commit_writes_nothing_more(monkeypatch):
    sent, real = [], BROKER.enqueue
    monkeypatch.setattr(BROKER, "enqueue", lambda message, **kw: sent.append(message.options["job_id"]) or real(
        message, **kw))
    # When a change asks for a job and commits (no worker running)
    async with count_queries() as statements:
        async with atomic():
            job = await outbox.enqueue("ping", "quiet", queue_name="maintenance")
    # I expect one statement, the job's row: the send is not written back (no mark, no commit of
    # its own), the row stays pending until a worker claims it, and the broker has its message
    assert len(statements) == 1 and statements[0].startswith('INSERT INTO "job"'), statements
    assert (await Job.get(id=job.id)).status == "pending"
    assert sent == [job.id]


async def test_a_job_sent_again_by_the_sweep_while_its_message_waits_runs_once(worker):
    # Given a job sent after its commit, and the sweep finding it still pending (a backlog)
    job = await outbox.enqueue("ping", "twice", queue_name="maintenance")
    await outbox.resend_stale(grace_seconds=0, lease_seconds=3600)
    # When the worker has taken every message
    done = await wait_for(lambda: _status(job.id, "succeeded"))
    await idle(worker)
    # I expect it to have run once
    assert (await Job.get(id=job.id)).attempts == 1 and done.result == {"pong": "twice"}


async def test_a_job_the_broker_refused_stays_pending_and_the_sweep_sends_it(worker, monkeypatch):
    def refuse(message, *, delay=None):
        raise ConnectionError("broker unreachable")

    # Given the broker cannot be reached when the job is asked for
    monkeypatch.setattr(BROKER, "enqueue", refuse)
    job = await outbox.enqueue("ping", "late", queue_name="maintenance")
    assert (await Job.get(id=job.id)).status == "pending"
    monkeypatch.undo()
    # When the scheduler's sweep runs after the broker is back
    assert await sweep_outbox(SETTINGS) == 1
    done = await wait_for(lambda: _status(job.id, "succeeded"))
    # I expect it to have run exactly once, and a second sweep to send nothing more
    assert done.attempts == 1
    assert await sweep_outbox(SETTINGS) == 0
    assert (await Job.get(id=job.id)).attempts == 1


async def test_a_failing_job_is_retried_and_records_its_error(worker):
    job = await outbox.enqueue("flaky_for_test", "t1")
    done = await wait_for(lambda: _status(job.id, "succeeded"))
    assert done.attempts == 2 and done.result == {"runs": 2} and done.last_error is None


async def test_a_job_that_keeps_failing_ends_failed_with_its_last_error(worker):
    job = await outbox.enqueue("always_fails_for_test")
    done = await wait_for(lambda: _status(job.id, "failed"))
    assert done.attempts == 2
    assert done.last_error == "ValueError: broken for good"


async def test_the_sweep_resends_jobs_whose_worker_died_or_whose_message_was_lost(worker):
    long_ago = datetime.now(timezone.utc) - timedelta(hours=2)
    # Given a job claimed by a worker that died, and one whose message vanished from the broker
    dead = await Job.create(actor_name="ping", queue_name="maintenance", args=["dead"], status="running",
                            attempts=1, started_at=long_ago)
    lost = await Job.create(actor_name="ping", queue_name="maintenance", args=["lost"], status="enqueued")
    await Job.filter(id=lost.id).update(updated_at=long_ago)
    # When the sweep runs
    assert await outbox.resend_stale(grace_seconds=0, lease_seconds=3600) == 2
    # I expect both to finish, each with one more attempt
    assert (await wait_for(lambda: _status(dead.id, "succeeded"))).attempts == 2
    assert (await wait_for(lambda: _status(lost.id, "succeeded"))).attempts == 1


async def test_recent_jobs_are_left_alone_by_the_sweep():
    await Job.create(actor_name="ping", queue_name="maintenance", args=["x"], status="enqueued")
    await Job.create(actor_name="ping", queue_name="maintenance", args=["y"], status="running",
                     started_at=datetime.now(timezone.utc))
    assert await outbox.resend_stale(grace_seconds=60, lease_seconds=3600) == 0


async def test_finished_jobs_are_purged_after_retention_but_others_are_kept():
    old = datetime.now(timezone.utc) - timedelta(days=8)
    await Job.create(actor_name="ping", status="succeeded", finished_at=old)
    kept_failed = await Job.create(actor_name="ping", status="failed", finished_at=old)
    kept_recent = await Job.create(actor_name="ping", status="succeeded", finished_at=datetime.now(timezone.utc))
    assert await outbox.purge_finished(7 * 24 * 3600) == 1
    assert {j.id for j in await Job.all()} == {kept_failed.id, kept_recent.id}


# ---------------------------------------------------------------- heartbeats and takeover

async def _running(beat_seconds_ago: float) -> Job:
    beat = datetime.now(timezone.utc) - timedelta(seconds=beat_seconds_ago)
    return await Job.create(actor_name="ping", queue_name="maintenance", args=["x"], status="running",
                            attempts=1, started_at=beat, heartbeat_at=beat)


async def test_a_running_job_with_a_live_heartbeat_is_not_claimed_again():
    job = await _running(beat_seconds_ago=1)
    assert await outbox.claim(job.id, takeover_seconds=15) is None
    assert await outbox.resend_stale(grace_seconds=0, lease_seconds=3600, takeover_seconds=15) == 0
    assert (await Job.get(id=job.id)).attempts == 1


async def test_a_retry_that_arrives_before_the_failed_attempt_is_recorded_takes_the_job():
    # Given attempt 1 failed and Dramatiq sent its retry (after the actor ended), but the row
    # still says running because the failure is not written yet (a short backoff, a busy database)
    job = await _running(beat_seconds_ago=0)
    # When a message that is not that retry arrives, I expect it skipped, as a duplicate
    assert await outbox.claim(job.id, takeover_seconds=15) is None
    assert await outbox.claim(job.id, takeover_seconds=15, retry_of=2) is None
    # and the retry of attempt 1 to claim it (else it would be dropped and wait for the sweep)
    assert await outbox.claim(job.id, takeover_seconds=15, retry_of=1) == 2
    # and the late record of attempt 1 fenced out
    assert not await outbox.fail(job.id, "RuntimeError: first run fails", final=False, attempt=1)
    assert (await Job.get(id=job.id)).status == "running"


async def test_a_silent_running_job_is_taken_over_and_the_old_run_can_no_longer_write():
    # Given a job whose worker stopped beating 20 s ago
    job = await _running(beat_seconds_ago=20)
    # When its message arrives again
    attempt = await outbox.claim(job.id, takeover_seconds=15)
    # I expect a new claim, and the old one (attempt 1) fenced out of the row
    assert attempt == 2
    assert not await outbox.beat(job.id, 1)
    assert not await outbox.finish(job.id, {"late": True}, attempt=1)
    assert await outbox.beat(job.id, 2)
    assert await outbox.finish(job.id, {"pong": "x"}, attempt=2)
    done = await Job.get(id=job.id)
    assert (done.status, done.attempts, done.result) == ("succeeded", 2, {"pong": "x"})


async def test_the_sweep_takes_over_a_silent_running_job_and_leaves_a_beating_one(worker):
    silent, beating = await _running(beat_seconds_ago=20), await _running(beat_seconds_ago=1)
    assert await outbox.resend_stale(grace_seconds=0, lease_seconds=3600, takeover_seconds=15) == 1
    assert (await wait_for(lambda: _status(silent.id, "succeeded"))).attempts == 2
    assert (await Job.get(id=beating.id)).status == "running"


async def test_a_job_given_back_by_a_stopping_worker_runs_again(worker):
    job = await _running(beat_seconds_ago=0)
    assert await outbox.give_back(job.id, 1, "the worker stopped before the job finished")
    done = await wait_for(lambda: _status(job.id, "succeeded"))
    assert done.attempts == 2 and done.last_error is None
    assert not await outbox.give_back(job.id, 1, "too late")  # no longer that claim's


@dramatiq.actor(queue_name="default", max_retries=0)
async def slow_for_test() -> dict:
    import asyncio

    await asyncio.sleep(0.4)
    return {"slept": True}


async def test_a_running_job_beats_its_heartbeat(worker, monkeypatch):
    from workers.tracking import JobTracking

    tracking = next(m for m in BROKER.middleware if isinstance(m, JobTracking))
    monkeypatch.setattr(tracking, "heartbeat_seconds", 0.05)
    job = await outbox.enqueue("slow_for_test")
    done = await wait_for(lambda: _status(job.id, "succeeded"))
    assert done.heartbeat_at > done.started_at + timedelta(seconds=0.1)


async def test_a_claim_is_one_statement_and_answers_the_attempt():
    # Given a job asked for, and one silent for 20 s (its worker died)
    fresh, silent = await outbox.enqueue("ping", "x", queue_name="maintenance"), await _running(beat_seconds_ago=20)
    # When a worker claims each (it claims every job it runs)
    async with count_queries() as queries:
        attempts = [await outbox.claim(job.id, takeover_seconds=15) for job in (fresh, silent)]
    # I expect one statement each, answering the claim's attempt
    assert attempts == [1, 2] and len(queries) == 2
    # and none for a job running with a live heartbeat
    assert await outbox.claim(fresh.id, takeover_seconds=15) is None

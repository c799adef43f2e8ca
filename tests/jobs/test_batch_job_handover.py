"""A batch job given back by a stopping worker is resumed at once by the next worker thread, and
runs its work there: the run that was stopped may not have unwound and released its lease yet
(the worker gives the job back first), and must not make the next run skip it until the takeover
time; nor must a run whose coroutine unwound slowly be taken for a failure. On an in-process
worker (PostgreSQL + Redis and SQLite + the in-memory broker)."""

import asyncio

import pytest
from dramatiq import Message, MessageProxy
from dramatiq.middleware import Shutdown

from models import BatchJob, Job, Product, ProductVariant
from services.batch_jobs.lifecycle import create_batch_job
from tests.conftest import BROKER, PATIENCE, wait_for
from tests.services.batch_jobs.test_product_import import csv_bytes, files, upload  # noqa: F401 (fixture)
from workers.embedded import start_embedded_worker, stop_embedded_worker
from workers.tracking import JobTracking

RUNS, MUGS = 10, 30


@pytest.fixture
async def worker():
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    yield w
    await stop_embedded_worker(w)


def _mugs(run: int) -> bytes:
    header = ["Product Handle", "Product Title", "Variant Title", "Variant SKU", "Price USD"]
    return csv_bytes([{"Product Handle": f"mug-{run}-{i}", "Product Title": f"Mug {i}", "Variant Title": "One",
                       "Variant SKU": f"MUG-{run}-{i}", "Price USD": "8"} for i in range(MUGS)], header=header)


async def test_a_given_back_import_is_taken_over_by_the_resent_message_every_time(files, admin, worker):
    tracking = next(m for m in BROKER.middleware if isinstance(m, JobTracking))
    for run in range(RUNS):
        # Given an import under way on a worker (one line a chunk, so it is still going)
        key = await upload(_mugs(run), key=f"uploads/mugs-{run}.csv")
        job = await create_batch_job(admin.id, "product-import", {"fileKey": key, "chunk_size": 1})

        async def under_way():
            j = await BatchJob.get(id=job.id)
            return j.status == "processing" and (j.result or {}).get("advancement_count", 0) >= 2

        await wait_for(under_way, timeout=PATIENCE, interval=0.01)
        # When the worker gives the job back, its run not yet unwound (it still holds its lease and
        # keeps its heartbeat fresh, so no takeover by silence can happen); with it, whatever the
        # other thread runs then (an event the earlier imports sent)
        assert await asyncio.to_thread(tracking.give_back_unfinished) >= 1, run

        # I expect the message it re-sent to take the import over from the run still holding it
        # (skipped, it would leave the import to that run, or to the sweep)
        async def done():
            j = await BatchJob.get(id=job.id)
            return j if j.status in ("completed", "failed") else None

        finished = await wait_for(done, timeout=PATIENCE, interval=0.05)
        assert finished.attempts == 2, (run, finished.attempts)
        # and to finish it, every line once
        assert finished.status == "completed", (run, finished.result)
        assert finished.result["advancement_count"] == finished.result["count"] == 2 * MUGS, run
        assert await Product.filter(handle__startswith=f"mug-{run}-").count() == MUGS, run
        assert await ProductVariant.filter(sku__startswith=f"MUG-{run}-").count() == MUGS, run

        # by the run that took it over (its job recorded once that run returns)
        async def recorded():
            j = await Job.get(actor_name="process_batch_job", args=[job.id])
            return j if j.status != "running" else None

        process = await wait_for(recorded, timeout=PATIENCE)
        assert process.status == "succeeded" and process.result == {"status": "completed"}, (run, process.result)


async def test_a_run_that_unwound_slowly_after_a_stop_is_given_back_at_once(worker):
    tracking = next(m for m in BROKER.middleware if isinstance(m, JobTracking))
    # Given a job claimed by a worker thread (written, not sent: the test plays the thread)
    job = await Job.create(actor_name="ping", queue_name="maintenance", args=["slow"], kwargs={})
    message = MessageProxy(Message(queue_name="maintenance", actor_name="ping", args=("slow",), kwargs={},
                                   options={"job_id": job.id}))
    await asyncio.to_thread(tracking.before_process_message, BROKER, message)
    # When its run ends as Dramatiq ends one whose coroutine took over a second to unwind after the
    # worker's Shutdown: a RuntimeError raised from it
    error = RuntimeError("Timed out while waiting for coroutine.")
    error.__cause__ = Shutdown()
    await asyncio.to_thread(tracking.after_process_message, BROKER, message, exception=error)
    # I expect the job given back as interrupted (or already run again), not failed for a retry
    # after a backoff
    given = await Job.get(id=job.id)
    assert given.status == "succeeded" or (given.last_error or "").startswith("interrupted"), given.last_error

    # and re-sent at once: the worker runs it, a second claim
    async def ran():
        j = await Job.get(id=job.id)
        return j if j.status == "succeeded" else None

    assert (await wait_for(ran, timeout=PATIENCE)).attempts == 2

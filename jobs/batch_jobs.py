"""Batch-job runs as actors: pre-processing right after creation, processing after confirmation.
Each message may arrive twice or after a worker died; the service checks the job's state and
lease first, so a duplicate does nothing and a re-sent one resumes after the last checkpoint."""

import dramatiq

from services.batch_jobs import lifecycle as batch_jobs, takeover_seconds

# Domain errors fail the job at once inside the service; what escapes is unexpected (the
# database went away) and is retried. Imports of millions of lines outlive the default limit.
# A stopping worker interrupts a run at once (notify_shutdown): it resumes from its last chunk.
_OPTIONS = {"queue_name": "default", "max_retries": 3, "min_backoff": 1_000, "max_backoff": 60_000,
            "time_limit": 6 * 3600 * 1000, "notify_shutdown": True}


# The takeover is this process's JOB_TAKEOVER_SECONDS, handed over by services/setup.py at start-up.
@dramatiq.actor(actor_name=batch_jobs.PRE_PROCESS_ACTOR, **_OPTIONS)
async def pre_process_batch_job(job_id: str) -> dict:
    return await batch_jobs.run_pre_processing(job_id, takeover_seconds=takeover_seconds())


@dramatiq.actor(actor_name=batch_jobs.PROCESS_ACTOR, **_OPTIONS)
async def process_batch_job(job_id: str) -> dict:
    return await batch_jobs.run_processing(job_id, takeover_seconds=takeover_seconds())

"""Job start latency benchmark (not a test): asks for `ping` jobs one at a time through the outbox,
as the API asks for jobs, and times each from the request to its row reading `succeeded`. The
workers are idle between jobs (the case a shop is in most of the time), so this is the time a
job waits to be noticed, plus its claim and its finish.

    DATABASE_URL=postgres://... REDIS_URL=redis://... REDIS_NAMESPACE=... \\
        .venv/bin/python -m bench.job_latency --jobs 15

Run it beside the production processes (`commerce worker`, `commerce serve`) of that store.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from app.config import Settings
from workers.broker import load_actors, setup_broker
from workers.cli import with_db


async def _run(jobs: int, pause: float) -> list[float]:
    settings = Settings.from_env()
    if settings.embedded:
        raise SystemExit("set REDIS_URL (and the store's DATABASE_URL): this measures the worker processes")
    setup_broker(settings)
    load_actors()

    async def timed() -> list[float]:
        from services.core import outbox
        from models import Job

        took = []
        for _ in range(jobs):
            await asyncio.sleep(pause)  # the consumers go idle
            started = time.perf_counter()
            job = await outbox.enqueue("ping", "latency", queue_name="maintenance")
            while (await Job.get(id=job.id)).status not in ("succeeded", "failed"):
                await asyncio.sleep(0.002)
            took.append((time.perf_counter() - started) * 1000)
        return took

    return await with_db(settings, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=15)
    parser.add_argument("--pause", type=float, default=1.3, help="seconds idle before each job")
    args = parser.parse_args()
    took = sorted(asyncio.run(_run(args.jobs, args.pause)))
    print(f"{len(took)} jobs: median {statistics.median(took):.1f} ms, min {took[0]:.1f}, max {took[-1]:.1f}")


if __name__ == "__main__":
    main()

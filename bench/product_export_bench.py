"""Product export benchmark (not a test): exports every product of the configured database
through the batch-job runs the workers use, and prints lines (variants) per second, the
process's CPU seconds and its peak memory before and after the export.

    .venv/bin/python -m bench.big_shop --orders 10000 --products 20000 --database bigshop_export
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bigshop_export .venv/bin/python -m bench.product_export_bench

The big shop's catalogue (20,000 products with 100,000 variants, prices in two currencies and a
region, options, images, tags, collections, the sales channel) is exported as it is: nothing is
added (`--batch-size N`: only the newest N products). Peak memory should not move with the
number exported: the export holds one page of products at a time. The file's MD5 is printed, so two versions of the code can be shown to
write the same file. The runs are called directly, as an actor would; the broker is the
in-memory one.
"""

from __future__ import annotations

import argparse
import hashlib
import time

from app.config import Settings
from bench.in_process import load_average, open_store, peak_rss_mb, run_and_print


async def run(settings: Settings, batch_size: int | None) -> dict:
    from app.shapes.completion import ApiAnswers
    from models import BatchJob
    from services import files, setup
    from services.batch_jobs.lifecycle import create_batch_job, run_pre_processing, run_processing

    async with open_store(settings):
        setup.configure(settings, answers=ApiAnswers())  # as the worker process starts
        rss_before = peak_rss_mb()
        job = await create_batch_job("bench", "product-export", {"batch_size": batch_size} if batch_size else {})
        started, cpu = time.perf_counter(), time.process_time()
        await run_pre_processing(job.id)
        pre_seconds = time.perf_counter() - started
        await run_processing(job.id)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        job = await BatchJob.get(id=job.id)
        digest, lines = hashlib.md5(), 0
        with files.storage().open_read(job.result["file_key"]) as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
                lines += block.count(b"\r\n")
        lines -= 1  # the header
        return {
            "products": job.result.get("count"), "lines": lines, "status": job.status,
            "file_mb": round((job.result.get("file_size") or 0) / 1e6, 1), "file_md5": digest.hexdigest(),
            "pre_processing_s": round(pre_seconds, 2), "export_s": round(seconds, 2),
            "lines_per_s": round(lines / seconds),
            # This process's CPU time (not the database's): what the figure is on a machine others share
            "export_cpu_s": round(cpu, 2), "lines_per_cpu_s": round(lines / cpu),
            "load_average_1_5_15": load_average(),
            "peak_rss_mb_before_export": round(rss_before, 1), "peak_rss_mb": round(peak_rss_mb(), 1),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, help="export only the newest N products (memory should not move with N)")
    args = parser.parse_args()
    run_and_print(lambda settings: run(settings, args.batch_size), "export-bench-")


if __name__ == "__main__":
    main()

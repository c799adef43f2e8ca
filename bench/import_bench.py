"""Product import benchmark (not a test): writes a Medusa v1 product CSV of N lines, imports it
into the configured database through the batch-job runs the workers use, and prints lines/s
and the process's peak memory. The machine is shared, so wall-clock rates swing with the load:
it also prints the CPU seconds the processing took (this process, plus on a local PostgreSQL the
server processes serving the bench's connections), which the load hardly moves.

    createdb -h 127.0.0.1 -U postgres import_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/import_bench .venv/bin/python -m bench.import_bench --rows 100000

Each product has 4 variants (a Size option), a currency and a region price, a collection, a
type, two tags and an image. The database should be empty of products (a second run imports
the same handles again: a run of updates, also worth timing). The runs are called directly,
as an actor would; the broker is the in-memory one, so nothing else picks the job up.
"""

from __future__ import annotations

import argparse
import csv
import os
import time

from app.config import Settings
from bench.in_process import open_store, run_and_print, run_batch_job

HEADER = [
    "Product Handle", "Product Title", "Product Description", "Product Status", "Product Collection Title",
    "Product Collection Handle", "Product Type", "Product Tags", "Variant Title", "Variant SKU",
    "Variant Inventory Quantity", "Price USD", "Price Bench [EUR]", "Option 1 Name", "Option 1 Value", "Image 1 Url",
]
SIZES = ("S", "M", "L", "XL")


def write_csv(path: str, rows: int) -> None:
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(HEADER)
        for i in range(rows):
            product, size = divmod(i, len(SIZES))
            out.writerow([
                f"bench-{product}", f"Bench product {product}", f"Description of product {product}; soft, warm",
                "published", f"Collection {product % 50}", f"collection-{product % 50}", f"Type {product % 10}",
                f"tag-{product % 100},bench", SIZES[size], f"BENCH-{product}-{SIZES[size]}", "100",
                f"{10 + product % 90}.99", f"{9 + product % 90}.50", "Size", SIZES[size],
                f"https://img.example/bench-{product}.png",
            ])


async def run(settings: Settings, rows: int, chunk_size: int) -> dict:
    from app.shapes.completion import ApiAnswers
    from models import BatchJob, Product, Region
    from services import files, setup
    from services.batch_jobs.lifecycle import create_batch_job

    async with open_store(settings):
        if not await Region.filter(name="Bench", deleted_at=None).exists():
            await Region.create(name="Bench", currency_code="eur")
        setup.configure(settings, answers=ApiAnswers())  # as the worker process starts
        storage = files.storage()
        path = os.path.join(settings.file_storage_dir, "bench.csv")
        started = time.perf_counter()
        write_csv(path, rows)
        print(f"wrote {rows} lines ({os.path.getsize(path) / 1e6:.1f} MB) in {time.perf_counter() - started:.1f}s")
        products_before = await Product.all().count()

        job = await create_batch_job("bench", "product-import", {"fileKey": "bench.csv", "chunk_size": chunk_size})
        timing = await run_batch_job(job.id)
        job = await BatchJob.get(id=job.id)
        await storage.delete("bench.csv")
        return {
            "rows": rows, "status": job.status, "chunk_size": chunk_size,
            "applied": job.result.get("applied"), "errors": job.result.get("error_count"),
            "products_before": products_before, "products_after": await Product.all().count(),
            **timing.figures(rows, "rows"),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--chunk-size", type=int, default=1000)
    args = parser.parse_args()
    run_and_print(lambda settings: run(settings, args.rows, args.chunk_size), "import-bench-")


if __name__ == "__main__":
    main()

"""Price-list import benchmark (not a test): writes a price-list CSV of N prices for the variants of
the configured database, imports it into a price list through the batch-job runs the workers use,
and prints prices and lines per second, the CPU seconds the processing took (this process, plus on
a local PostgreSQL the server processes serving the bench's connections) and the process's peak
memory.

    .venv/bin/python -m bench.big_shop --orders 10000 --products 20000 --database bigshop_prices
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bigshop_prices .venv/bin/python -m bench.price_list_import_bench --prices 100000

Each line prices one variant in two columns, `Price USD` and the first live region's price, so
N prices are N/2 lines over the store's variants in turn (the big shop has 100,000); half the
lines name the variant by id, half by SKU. The list is the bench's own ("Bench prices"), made once;
a run replaces its prices, as the import does. The runs are called directly, as an actor would;
the broker is the in-memory one.
"""

from __future__ import annotations

import argparse
import csv
import os
import time

from app.config import Settings
from bench.in_process import open_store, run_and_print, run_batch_job


async def _variants():
    """The store's live variants' (id, sku) in id order, round and round, a page at a time (the
    bench's own memory stays out of the import's peak)."""
    from models import ProductVariant

    while True:
        last, seen = "", False
        while page := await ProductVariant.filter(deleted_at=None, id__gt=last).order_by("id").limit(5000).values_list(
            "id", "sku"
        ):
            seen, last = True, page[-1][0]
            for row in page:
                yield row
        if not seen:
            raise SystemExit("the store has no variants (bench.big_shop makes them)")


async def write_csv(path: str, prices: int) -> int:
    """The file for `prices` prices; how many lines it has."""
    from models import Region

    region = await Region.filter(deleted_at=None).order_by("created_at").first()
    if region is None:
        raise SystemExit("the store needs a region (bench.big_shop makes them)")
    column = f"Price {region.name} [{region.currency_code.upper()}]"
    lines, variants = prices // 2, _variants()
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["Product Variant ID", "SKU", "Price USD", column])
        for i in range(lines):
            variant_id, sku = await anext(variants)
            by_id = i % 2 == 0 or not sku
            out.writerow([variant_id if by_id else "", "" if by_id else sku, f"{10 + i % 90}.99", f"{9 + i % 90}.50"])
    await variants.aclose()
    return lines


async def run(settings: Settings, prices: int, chunk_size: int) -> dict:
    from app.shapes.completion import ApiAnswers
    from models import BatchJob, MoneyAmount, PriceList
    from services import files, setup
    from services.batch_jobs.lifecycle import create_batch_job

    async with open_store(settings):
        setup.configure(settings, answers=ApiAnswers())  # as the worker process starts
        price_list = await PriceList.filter(name="Bench prices", deleted_at=None).first() or await PriceList.create(
            name="Bench prices", description="bench.price_list_import_bench", type="sale")
        path = os.path.join(settings.file_storage_dir, "prices.csv")
        started = time.perf_counter()
        lines = await write_csv(path, prices)
        print(f"wrote {lines} lines ({os.path.getsize(path) / 1e6:.1f} MB) in {time.perf_counter() - started:.1f}s")

        job = await create_batch_job("bench", "price-list-import", {
            "price_list_id": price_list.id, "fileKey": "prices.csv", "chunk_size": chunk_size})
        timing = await run_batch_job(job.id)
        job = await BatchJob.get(id=job.id)
        await files.storage().delete("prices.csv")
        written = await MoneyAmount.filter(price_list_id=price_list.id).count()
        return {
            "prices": prices, "lines": lines, "status": job.status, "chunk_size": chunk_size,
            "applied": job.result.get("applied"), "errors": job.result.get("error_count"),
            "prices_in_list": written,
            **timing.figures(written, "prices"),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prices", type=int, default=100_000)
    parser.add_argument("--chunk-size", type=int, default=1000)
    args = parser.parse_args()
    run_and_print(lambda settings: run(settings, args.prices, args.chunk_size), "price-import-bench-")


if __name__ == "__main__":
    main()

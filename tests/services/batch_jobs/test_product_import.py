"""Product import: a CSV streamed, checked line by line, counted in
pre-processing, then applied in chunks that each commit. The runs here call the same service
functions the actors call; tests/jobs/test_batch_jobs.py runs them through real workers."""

import asyncio
import contextvars
import csv
import io
from datetime import datetime, timedelta, timezone

import pytest
from tortoise.exceptions import IntegrityError

from models import (
    BatchJob, Image, Job, MoneyAmount, Product, ProductCollection, ProductOption, ProductOptionValue, ProductTag,
    ProductVariant, Region, SalesChannel,
)
from services.batch_jobs.product_import import strategy as product_import
from services.core import outbox
from services.batch_jobs.lifecycle import (
    PROCESS_ACTOR, cancel_batch_job, create_batch_job, resume_stalled, run_pre_processing, run_processing,
)
from services.files import configure, storage
from services.store.defaults import get_store
from tests.conftest import SETTINGS, settings

COLUMNS = [
    "Product Id", "Product Handle", "Product Title", "Product Subtitle", "Product Description", "Product Status",
    "Product Weight", "Product Collection Title", "Product Collection Handle", "Product Type",
    "Product Tags", "Product Discountable", "Variant Id", "Variant Title", "Variant SKU", "Variant Barcode",
    "Variant Inventory Quantity", "Variant Allow Backorder", "Variant Manage Inventory", "Price USD",
    "Price EU [EUR]", "Option 1 Name", "Option 1 Value", "Option 2 Name", "Option 2 Value", "Image 1 Url",
    "Image 2 Url",
]


@pytest.fixture
def files(tmp_path):
    """File storage in a directory of the test's own; the session's again afterwards."""
    yield configure(settings(file_storage_dir=str(tmp_path / "files")))
    configure(SETTINGS)


@pytest.fixture
async def eu():
    return await Region.create(name="EU", currency_code="eur", tax_rate=25)


def csv_bytes(rows: list[dict], header: list[str] | None = None, delimiter: str = ",") -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    header = header or COLUMNS
    writer.writerow(header)
    for row in rows:
        writer.writerow([row.get(h, "") for h in header])
    return out.getvalue().encode()


def shirt(size: str, sku: str, usd: str = "20", **more) -> dict:
    return {
        "Product Handle": "t-shirt", "Product Title": "Medusa T-Shirt", "Product Status": "published",
        "Product Collection Title": "Summer", "Product Collection Handle": "summer", "Product Type": "Shirts",
        "Product Tags": "cotton,summer", "Variant Title": size, "Variant SKU": sku,
        "Variant Inventory Quantity": "10", "Price USD": usd, "Price EU [EUR]": "18.5", "Option 1 Name": "Size",
        "Option 1 Value": size, "Option 2 Name": "Color", "Option 2 Value": "Black",
        "Image 1 Url": "https://img.test/shirt-front.png", "Image 2 Url": "https://img.test/shirt-back.png", **more,
    }


async def upload(data: bytes, key: str = "uploads/products.csv") -> str:
    await storage().put(key, data)
    return key


async def import_job(user_id: str, data: bytes, dry_run: bool = False, **context) -> BatchJob:
    key = await upload(data)
    return await create_batch_job(user_id, "product-import", {"fileKey": key, **context}, dry_run)


async def run_to_the_end(job_id: str) -> BatchJob:
    """What the workers do: pre-process, then (confirmed) process."""
    await run_pre_processing(job_id)
    if (await BatchJob.get(id=job_id)).status == "confirmed":
        await run_processing(job_id)
    return await BatchJob.get(id=job_id)


# ---------------------------------------------------------------- pre-processing and dry run

async def test_dry_run_counts_what_would_change_and_writes_nothing(files, admin, eu):
    # Given a file of two shirts and a mug, one of them already in the store
    await Product.create(title="Old mug", handle="mug", status="draft")
    data = csv_bytes([shirt("S", "TS-S"), shirt("M", "TS-M"), {"Product Handle": "mug", "Product Title": "Mug",
                                                               "Variant Title": "One", "Price USD": "8"}])
    job = await import_job(admin.id, data, dry_run=True)
    # When it is pre-processed
    await run_pre_processing(job.id)
    # I expect it to wait for confirmation, with Medusa's counts and message
    job = await BatchJob.get(id=job.id)
    assert job.status == "pre_processed"
    assert job.result["operations"] == {"PRODUCT_CREATE": 1, "PRODUCT_UPDATE": 1, "VARIANT_CREATE": 3, "VARIANT_UPDATE": 0}
    assert job.result["count"] == 5 and job.result["advancement_count"] == 0
    assert job.result["stat_descriptors"] == [{
        "key": "product-import-count", "name": "Products/variants to import",
        "message": "There will be 1 products created (1  updated).\n             3 variants will be created and 0 updated",
    }]
    # and nothing written: no product, variant, collection, tag, image or price
    assert await Product.all().values_list("handle", "title") == [("mug", "Old mug")]
    assert (await ProductVariant.all().count(), await ProductCollection.all().count()) == (0, 0)
    assert (await ProductTag.all().count(), await Image.all().count(), await MoneyAmount.all().count()) == (0, 0, 0)


async def test_a_file_that_cannot_be_read_fails_pre_processing_with_medusas_message(files, admin):
    data = csv_bytes([{"Product Handle": "x"}], header=["Product Handle", "non-descript-column"])
    job = await run_to_the_end((await import_job(admin.id, data)).id)
    assert job.status == "failed"
    assert job.result == {"errors": [
        "The csv file parsing failed due to: Unable to treat column non-descript-column from the csv file. "
        "No target column found in the provided schema"
    ]}


@pytest.mark.parametrize("header, reason", [
    (["Product Title"], 'Missing column(s) "Product Handle" from the given csv file'),
    (["Product Handle", "Price Atlantis [EUR]"], "Trying to set a price for a region Atlantis that doesn't exist"),
    (["Product Handle", "Price XYZ"], "Currency with code xyz does not exist"),
    (["Product Handle", "Product handle"], "Columns Product Handle and Product handle say the same thing"),
])
async def test_a_header_the_store_cannot_use_fails_the_job_before_anything_is_written(files, admin, header, reason):
    job = await run_to_the_end((await import_job(admin.id, csv_bytes([], header=header))).id)
    assert (job.status, job.result["errors"]) == ("failed", [f"The csv file parsing failed due to: {reason}"])


# ---------------------------------------------------------------- processing

async def test_an_import_creates_products_with_variants_options_prices_images_tags_and_collection(files, admin, eu):
    data = csv_bytes([shirt("S", "TS-S"), shirt("M", "TS-M", usd="21.5")])
    job = await run_to_the_end((await import_job(admin.id, data)).id)
    assert job.status == "completed"
    assert job.result["advancement_count"] == job.result["count"] == 3 and job.result["progress"] == 1
    assert job.result["applied"] == {"PRODUCT_CREATE": 1, "PRODUCT_UPDATE": 0, "VARIANT_CREATE": 2, "VARIANT_UPDATE": 0}

    product = await Product.get(handle="t-shirt").prefetch_related(
        "options", "variants__prices", "variants__options", "images", "tags", "collection", "type", "sales_channels"
    )
    assert (product.title, product.status, product.discountable) == ("Medusa T-Shirt", "published", True)
    assert product.thumbnail == "https://img.test/shirt-front.png"
    assert (product.collection.handle, product.collection.title, product.type.value) == ("summer", "Summer", "Shirts")
    assert sorted(t.value for t in product.tags) == ["cotton", "summer"]
    assert [i.url for i in await product.images.all().order_by("created_at")] == [
        "https://img.test/shirt-front.png", "https://img.test/shirt-back.png"]
    assert [c.id for c in product.sales_channels] == [(await get_store()).default_sales_channel_id]
    assert [o.title for o in await ProductOption.filter(product_id=product.id).order_by("created_at")] == ["Size", "Color"]
    variants = sorted(product.variants, key=lambda v: v.variant_rank)
    assert [(v.title, v.sku, v.inventory_quantity, v.variant_rank) for v in variants] == [
        ("S", "TS-S", 10, 0), ("M", "TS-M", 10, 1)]
    assert sorted((p.currency_code, p.region_id, p.amount) for p in variants[1].prices) == [
        ("eur", eu.id, 1850), ("usd", None, 2150)]
    assert sorted(v.value for v in variants[0].options) == ["Black", "S"]


async def test_bad_lines_are_listed_with_their_line_numbers_and_the_good_ones_are_imported(files, admin, eu):
    # Given a file where lines 3, 4, 6 and 7 are wrong in different ways
    data = csv_bytes([
        shirt("S", "TS-S"),
        shirt("M", "TS-M", **{"Variant Inventory Quantity": "lots"}),
        {**shirt("L", "TS-L"), "Product Handle": ""},
        shirt("XL", "TS-XL"),
        {"Product Handle": "cap", "Product Title": "Cap", "Variant Title": "One", "Variant SKU": "TS-S"},
        {"Product Handle": "mug", "Product Title": "Mug", "Variant Title": "One", "Price USD": "-3"},
    ])
    job = await run_to_the_end((await import_job(admin.id, data)).id)
    # I expect the job to complete, with exactly those lines listed and why
    assert job.status == "completed"
    assert [(e["line"], e["message"]) for e in job.result["errors"]] == [
        (3, "Line 3: Variant Inventory Quantity must be a whole number"),
        (4, 'Line 4: No value found for target column "Product Handle"'),
        (6, "Line 6: Variant SKU TS-S is already used by another product"),
        (7, "Line 7: Price USD must be a non-negative amount"),
    ]
    assert job.result["error_count"] == 4
    # and the good lines imported
    assert sorted(await ProductVariant.all().values_list("sku", flat=True)) == ["TS-S", "TS-XL"]
    assert await Product.all().values_list("handle", flat=True) == ["t-shirt"]


async def test_importing_the_same_file_again_updates_instead_of_duplicating(files, admin, eu):
    data = csv_bytes([shirt("S", "TS-S"), shirt("M", "TS-M")])
    await run_to_the_end((await import_job(admin.id, data)).id)
    changed = csv_bytes([shirt("S", "TS-S", usd="25", **{"Product Title": "Better Shirt"}), shirt("M", "TS-M")])
    job = await run_to_the_end((await import_job(admin.id, changed)).id)
    assert job.result["applied"] == {"PRODUCT_CREATE": 0, "PRODUCT_UPDATE": 1, "VARIANT_CREATE": 0, "VARIANT_UPDATE": 2}
    assert await Product.all().values_list("title", flat=True) == ["Better Shirt"]
    assert await ProductVariant.all().count() == 2 and await ProductOptionValue.all().count() == 4
    small = await ProductVariant.get(sku="TS-S")
    assert sorted(await MoneyAmount.filter(variant_id=small.id).values_list("currency_code", "amount")) == [
        ("eur", 1850), ("usd", 2500)]
    assert await ProductTag.all().count() == 2 and await Image.all().count() == 2


async def test_lines_without_ids_or_skus_update_the_variant_with_the_same_options(files, admin, eu):
    line = {"Product Handle": "mug", "Product Title": "Mug", "Variant Title": "Big", "Option 1 Name": "Size",
            "Option 1 Value": "Big", "Variant Inventory Quantity": "5"}
    await run_to_the_end((await import_job(admin.id, csv_bytes([line]))).id)
    job = await run_to_the_end((await import_job(admin.id, csv_bytes([{**line, "Variant Inventory Quantity": "9"}]))).id)
    assert job.status == "completed", job.result
    assert job.result["applied"]["VARIANT_UPDATE"] == 1
    assert await ProductVariant.all().values_list("inventory_quantity", flat=True) == [9]


async def test_a_semicolon_file_with_decimal_commas_and_unknown_ids_keeps_the_ids(files, admin, eu):
    # Medusa's exports are `;`-separated; an id this store does not have is kept for the new row
    rows = [{"Product Id": "prod_keep", "Product Handle": "mug", "Product Title": "Mug", "Variant Id": "variant_keep",
             "Variant Title": "One", "Price USD": "12,50"}]
    await run_to_the_end((await import_job(admin.id, csv_bytes(rows, delimiter=";"))).id)
    variant = await ProductVariant.get(id="variant_keep")
    assert variant.product_id == "prod_keep"
    assert await MoneyAmount.filter(variant_id="variant_keep").values_list("amount", flat=True) == [1250]


async def test_sales_channels_are_found_by_id_or_name_and_made_when_named(files, admin):
    web = await SalesChannel.create(name="Web")
    header = ["Product Handle", "Product Title", "Sales Channel 1 Id", "Sales Channel 2 Name", "Sales Channel 3 Id"]
    rows = [
        {"Product Handle": "a", "Product Title": "A", "Sales Channel 1 Id": web.id, "Sales Channel 2 Name": "Shop"},
        {"Product Handle": "b", "Product Title": "B", "Sales Channel 3 Id": "sc_missing"},
    ]
    job = await run_to_the_end((await import_job(admin.id, csv_bytes(rows, header=header))).id)
    a = await Product.get(handle="a").prefetch_related("sales_channels")
    assert sorted(c.name for c in a.sales_channels) == ["Shop", "Web"]
    assert [e["message"] for e in job.result["errors"]] == ["Line 3: Sales channel sc_missing was not found"]


# ---------------------------------------------------------------- chunks, cancel, crash

def many_mugs(n: int) -> bytes:
    header = ["Product Handle", "Product Title", "Variant Title", "Variant SKU", "Price USD"]
    return csv_bytes([{"Product Handle": f"mug-{i}", "Product Title": f"Mug {i}", "Variant Title": "One",
                       "Variant SKU": f"MUG-{i}", "Price USD": "8"} for i in range(n)], header=header)


async def test_progress_is_committed_chunk_by_chunk(files, admin, monkeypatch):
    job = await import_job(admin.id, many_mugs(6), chunk_size=2)
    await run_pre_processing(job.id)
    seen = []
    write = product_import.write_plan

    async def watching(plan, connection):
        seen.append((await BatchJob.get(id=job.id)).result["advancement_count"])
        await write(plan, connection)

    monkeypatch.setattr(product_import, "write_plan", watching)
    await run_processing(job.id)
    # Each chunk saw the previous ones' progress committed: 2 lines = 4 operations per chunk
    assert seen == [0, 4, 8]
    assert (await BatchJob.get(id=job.id)).checkpoint == {"line": 7}


async def test_cancel_during_processing_stops_before_the_next_chunk(files, admin, monkeypatch):
    job = await import_job(admin.id, many_mugs(10), chunk_size=2)
    await run_pre_processing(job.id)
    write, calls, cancels = product_import.write_plan, 0, []

    async def cancel_after_second_chunk(plan, connection):
        nonlocal calls
        calls += 1
        await write(plan, connection)
        if calls == 2:  # an admin cancels while the second chunk is being written (from a request of its own)
            cancels.append(asyncio.get_running_loop().create_task(
                cancel_batch_job(job.id, admin.id), context=contextvars.Context()))

    monkeypatch.setattr(product_import, "write_plan", cancel_after_second_chunk)
    outcome = await run_processing(job.id)
    await asyncio.gather(*cancels)
    job = await BatchJob.get(id=job.id)
    assert outcome == {"stopped": True} and job.status == "canceled"
    # The chunk in flight committed; none after the cancel
    assert calls in (2, 3)
    assert await Product.all().count() == 2 * calls == job.result["advancement_count"] / 2


class WorkerDied(BaseException):
    """Stands for the process being killed: nothing of ours catches it."""


async def test_a_process_message_run_the_instant_it_is_sent_finds_the_job_free(files, admin, monkeypatch):
    # Given an import whose pre-processing sends the "process" message as it commits
    job = await import_job(admin.id, many_mugs(4), chunk_size=2)
    outcomes = []

    async def run_at_once(sent: Job, **options) -> bool:  # a worker that takes the message the instant it is sent
        if sent.actor_name == PROCESS_ACTOR:
            outcomes.append(await run_processing(*sent.args))
        return True

    monkeypatch.setattr(outbox, "send", run_at_once)
    # When that message runs before the pre-processing run has returned
    await run_pre_processing(job.id)
    # Then it processes the job rather than finding it still held and doing nothing
    assert outcomes == [{"status": "completed"}]
    job = await BatchJob.get(id=job.id)
    assert job.status == "completed" and job.lease_token is None
    assert await Product.all().count() == 4


async def test_a_run_whose_worker_died_is_resumed_after_its_last_checkpoint_without_duplicates(
    files, admin, monkeypatch
):
    job = await import_job(admin.id, many_mugs(7), chunk_size=2)
    await run_pre_processing(job.id)
    write, calls = product_import.write_plan, 0

    async def dies_in_third_chunk(plan, connection):
        nonlocal calls
        calls += 1
        await write(plan, connection)
        if calls == 3:
            raise WorkerDied()

    monkeypatch.setattr(product_import, "write_plan", dies_in_third_chunk)
    with pytest.raises(WorkerDied):
        await run_processing(job.id)
    monkeypatch.undo()
    # Given what a killed worker leaves: its lease, two chunks committed
    await BatchJob.filter(id=job.id).update(lease_token="dead-worker", heartbeat_at=datetime.now(timezone.utc))
    assert await Product.all().count() == 4
    # a message delivered while the run's heartbeat is fresh finds the job held and does nothing
    assert await run_processing(job.id, takeover_seconds=15) == {"skipped": True}
    # When the heartbeat has been silent longer than the takeover time, and a message for it arrives
    # (redelivered by the broker, or re-sent by the scheduler's sweep)
    await BatchJob.filter(id=job.id).update(heartbeat_at=datetime.now(timezone.utc) - timedelta(seconds=16))
    assert await run_processing(job.id, takeover_seconds=15) == {"status": "completed"}
    # I expect the job completed with every mug once
    job = await BatchJob.get(id=job.id)
    assert job.status == "completed" and job.result["advancement_count"] == job.result["count"] == 14
    assert await Product.all().count() == 7 and await ProductVariant.all().count() == 7
    assert await MoneyAmount.all().count() == 7


async def test_a_job_that_keeps_losing_its_worker_is_failed_by_the_sweep(files, admin):
    job = await import_job(admin.id, many_mugs(1))
    await run_pre_processing(job.id)
    long_ago = datetime.now(timezone.utc) - timedelta(hours=1)
    await BatchJob.filter(id=job.id).update(processing_at=long_ago, attempts=5, heartbeat_at=long_ago,
                                            lease_token="dead")
    assert await resume_stalled(60) == {"resumed": 0, "failed": 1}
    job = await BatchJob.get(id=job.id)
    assert job.status == "failed" and job.result["errors"][-1].startswith("The job stopped reporting progress")


async def test_the_sweep_does_not_pile_up_messages_for_a_job_whose_message_is_still_on_its_way(files, admin):
    # Given a job whose pre-processing message was handed to the broker but no worker took it
    job = await import_job(admin.id, many_mugs(1))
    await BatchJob.filter(id=job.id).update(heartbeat_at=datetime.now(timezone.utc) - timedelta(hours=1))
    # When the sweep finds it silent
    assert await resume_stalled(60) == {"resumed": 1, "failed": 0}
    # I expect the outbox's one row to stay the only one (the outbox re-sends it if it was lost)
    assert await Job.filter(actor_name="pre_process_batch_job", args=[job.id]).count() == 1


async def test_lines_the_database_refuses_are_retried_one_by_one_and_only_they_are_listed(files, admin, monkeypatch):
    # Given a store that refuses anything about mug-2 (as a concurrent edit would, after planning)
    job = await import_job(admin.id, many_mugs(5), chunk_size=2)
    await run_pre_processing(job.id)
    write = product_import.write_plan

    async def refusing_mug_2(plan, connection):
        if any(p["handle"] == "mug-2" for p in plan.product_inserts):
            raise IntegrityError("duplicate key value violates unique constraint \"product_handle_live\"")
        await write(plan, connection)

    monkeypatch.setattr(product_import, "write_plan", refusing_mug_2)
    await run_processing(job.id)
    # I expect its chunk retried line by line: mug-3 imported, mug-2 listed with the reason
    job = await BatchJob.get(id=job.id)
    assert job.status == "completed"
    assert sorted(await Product.all().values_list("handle", flat=True)) == ["mug-0", "mug-1", "mug-3", "mug-4"]
    assert [e["message"] for e in job.result["errors"]] == [
        'Line 4: could not be saved (duplicate key value violates unique constraint "product_handle_live")']
    assert job.checkpoint == {"line": 6}


# ---------------------------------------------------------------- inventory locations


async def test_with_inventory_locations_on_imported_variants_are_stocked_at_the_default_location(files, admin, eu):
    from models import InventoryLevel, ProductVariantInventoryItem
    from tests.inventory_factories import switched_on

    with switched_on():
        job = await run_to_the_end((await import_job(admin.id, csv_bytes([shirt("S", "TS-S")]))).id)
    assert job.status == "completed"
    variant = await ProductVariant.get(sku="TS-S")
    link = await ProductVariantInventoryItem.get(variant_id=variant.id)
    level = await InventoryLevel.get(inventory_item_id=link.inventory_item_id)
    assert (level.location_id, level.stocked_quantity) == ((await get_store()).default_location_id, 10)
    assert variant.inventory_quantity == 10

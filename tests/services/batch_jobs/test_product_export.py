"""Product export: Medusa's CSV written to the file storage page by
page, its key and size in the result."""

import csv
import io

import pytest

from models import BatchJob, MoneyAmount, Product, ProductVariant, Region
from services.batch_jobs import product_export
from services.batch_jobs.lifecycle import cancel_batch_job, confirm_batch_job, create_batch_job, run_pre_processing, run_processing
from services.core.errors import InvalidData
from services.files import storage
from services.batch_jobs.product_import.columns import STATIC_COLUMNS
from tests.services.batch_jobs.test_product_import import files, run_to_the_end  # noqa: F401 (fixture)

STATIC = [c.header for c in STATIC_COLUMNS]


async def export(user_id: str, **context) -> BatchJob:
    job = await create_batch_job(user_id, "product-export", context)
    return await run_to_the_end(job.id)


async def read(key: str) -> tuple[bytes, list[list[str]]]:
    with storage().open_read(key) as f:
        data = f.read()
    return data, list(csv.reader(io.StringIO(data.decode(), newline=""), delimiter=";"))


async def test_the_seeded_catalogue_exports_one_line_per_variant_in_medusas_format(files, admin, seeded):
    job = await export(admin.id)
    assert job.status == "completed"
    assert job.result["file_key"] == f"exports/products/product-export-{job.id}.csv"
    data, lines = await read(job.result["file_key"])
    # `;`-separated, CRLF-ended, its size recorded
    assert data.count(b"\r\n") == 27 and job.result["file_size"] == len(data)
    header, rows = lines[0], lines[1:]
    assert header == STATIC + ["Price EUR", "Price USD", "Option 1 Name", "Option 1 Value",
                               "Sales Channel 1 Id", "Sales Channel 1 Name", "Sales Channel 1 Description"]
    assert len(rows) == 26 == await ProductVariant.all().count()
    assert (job.result["count"], job.result["advancement_count"], job.result["progress"]) == (10, 10, 1)
    small = next(r for r in rows if r[23] == "variant_t_shirt_s")
    cell = dict(zip(header, small))
    assert (cell["Product Id"], cell["Product Handle"], cell["Product Title"]) == ("prod_t_shirt", "t-shirt", "Medusa T-Shirt")
    assert (cell["Variant Title"], cell["Variant SKU"], cell["Variant Inventory Quantity"]) == ("S", "T-SHIRT-S", "100000")
    assert (cell["Price USD"], cell["Price EUR"], cell["Option 1 Name"], cell["Option 1 Value"]) == ("20", "18", "Size", "S")
    assert (cell["Product Collection Handle"], cell["Product Weight"], cell["Product Discountable"]) == ("summer", "400", "true")
    assert cell["Product Profile Type"] == "default" and cell["Sales Channel 1 Name"] == "Default Sales Channel"
    # newest products first, as Medusa's default order; a product's variants in their rank order
    assert [r[0] for r in rows][-3:] == ["prod_t_shirt"] * 3
    assert [r[24] for r in rows if r[0] == "prod_t_shirt"] == ["S", "M", "L"]


async def test_batch_size_filters_and_order_choose_what_is_exported(files, admin, seeded):
    # Medusa's own test: one product of a collection, oldest first
    job = await export(admin.id, batch_size=1, filterable_fields={"collection_id": "pcol_summer"}, order="created_at")
    _, lines = await read(job.result["file_key"])
    assert job.result["count"] == 1
    assert [r[0] for r in lines[1:]] == ["prod_t_shirt"] * 3


async def test_region_prices_zero_prices_and_awkward_cells_survive_a_spreadsheet(files, admin, seeded):
    eu = await Region.get(name="EU")
    await Product.filter(id="prod_mug").update(description='Holds "coffee";\nor tea, hot')
    variant = await ProductVariant.filter(product_id="prod_mug").order_by("variant_rank").first()
    await MoneyAmount.create(variant_id=variant.id, region_id=eu.id, currency_code="eur", amount=1234)
    await MoneyAmount.filter(variant_id=variant.id, currency_code="usd", region_id=None).update(amount=0)
    job = await export(admin.id, filterable_fields={"id": ["prod_mug"]})
    _, lines = await read(job.result["file_key"])
    cell = dict(zip(lines[0], lines[1]))
    assert cell["Product Description"] == 'Holds "coffee";\nor tea, hot'
    assert (cell["Price EU [EUR]"], cell["Price USD"]) == ("12.34", "0")
    assert dict(zip(lines[0], lines[2]))["Price EU [EUR]"] == ""


async def test_a_dry_run_counts_the_products_and_writes_the_file_only_once_confirmed(files, admin, seeded):
    job = await create_batch_job(admin.id, "product-export", {"filterable_fields": {"collection_id": ["pcol_summer"]}},
                                 dry_run=True)
    await run_pre_processing(job.id)
    job = await BatchJob.get(id=job.id)
    assert job.status == "pre_processed" and job.result["stat_descriptors"] == [{
        "key": "product-export-count", "name": "Product count to export",
        "message": "There will be 4 products exported by this action",
    }]
    assert not await storage().exists(product_export.export_key(job.id))
    await confirm_batch_job(job.id, admin.id)
    await run_processing(job.id)
    assert (await BatchJob.get(id=job.id)).status == "completed"
    assert await storage().exists(product_export.export_key(job.id))


async def test_an_export_canceled_while_it_writes_leaves_no_file(files, admin, seeded, monkeypatch):
    pages = product_export._pages

    async def cancel_after_first_page(context, size, relations):
        async for page in pages(context, 2, relations):
            yield page
            await cancel_batch_job(job.id, admin.id)

    job = await create_batch_job(admin.id, "product-export", {})
    await run_pre_processing(job.id)
    monkeypatch.setattr(product_export, "_pages", cancel_after_first_page)
    assert await run_processing(job.id) == {"stopped": True}
    job = await BatchJob.get(id=job.id)
    assert job.status == "canceled" and "file_key" not in job.result
    assert not await storage().exists(product_export.export_key(job.id))


@pytest.mark.parametrize("context, message", [
    ({"filterable_fields": {"colour": "red"}}, "context.filterable_fields.colour is not a product filter this export knows"),
    ({"order": "price"}, "context.order must be one of created_at, updated_at, id, title (with - for descending)"),
    ({"batch_size": -1}, "context.batch_size must be a positive integer"),
])
async def test_an_export_the_store_cannot_run_is_refused_when_asked_for(admin, context, message):
    with pytest.raises(InvalidData) as refused:
        await create_batch_job(admin.id, "product-export", context)
    assert refused.value.message == message
    assert await BatchJob.all().count() == 0

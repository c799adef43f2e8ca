"""The `price-list-import` batch job through the admin API, as the dashboard's "Import price list"
drives it (Medusa v1's strategies/batch-jobs/price-list/import.ts): upload a CSV, create the job
(a dry run), read its summary, confirm; the workers' two stages are the service calls the actors
make."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta, timezone

import pytest

from models import BatchJob, MoneyAmount, PriceList, Region
from services.batch_jobs import price_list_import
from services.batch_jobs.lifecycle import run_pre_processing, run_processing
from tests.services.batch_jobs.test_product_import import files  # noqa: F401 (fixture)

HEADER = ["Product Variant ID", "SKU", "Price NA [USD]", "Price EUR"]


def csv_upload(rows: list[list[str]], header: list[str] | None = None) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header or HEADER)
    writer.writerows(rows)
    return out.getvalue().encode()


@pytest.fixture
async def sale(seeded):
    """A list that already prices the white mug."""
    price_list = await PriceList.create(name="Winter sale", description="Cold", type="sale")
    await MoneyAmount.create(variant_id="variant_mug_white", currency_code="usd", amount=800, price_list_id=price_list.id)
    return price_list


async def upload(client, headers, data: bytes) -> str:
    r = await client.post("/admin/uploads/protected", headers=headers, files={"files": ("prices.csv", data)})
    assert r.status_code == 200, r.text
    return r.json()["uploads"][0]["key"]


async def start(client, headers, price_list_id: str, data: bytes, dry_run: bool = True) -> dict:
    key = await upload(client, headers, data)
    r = await client.post("/admin/batch-jobs", headers=headers, json={
        "type": "price-list-import", "context": {"price_list_id": price_list_id, "fileKey": key}, "dry_run": dry_run,
    })
    assert r.status_code == 201, r.text
    job_id = r.json()["batch_job"]["id"]
    await run_pre_processing(job_id)
    if (await BatchJob.get(id=job_id)).status == "confirmed":  # not a dry run: the workers go on
        await run_processing(job_id)
    return await job_of(client, headers, job_id)


async def job_of(client, headers, job_id: str) -> dict:
    r = await client.get(f"/admin/batch-jobs/{job_id}", headers=headers)
    assert r.status_code == 200
    return r.json()["batch_job"]


async def confirm(client, headers, job_id: str) -> dict:
    r = await client.post(f"/admin/batch-jobs/{job_id}/confirm", headers=headers)
    assert r.status_code == 200, r.text
    await run_processing(job_id)
    return await job_of(client, headers, job_id)


async def prices_of(client, headers, price_list_id: str) -> list[tuple]:
    r = await client.get(f"/admin/price-lists/{price_list_id}", headers=headers)
    assert r.status_code == 200
    regions = dict(await Region.all().values_list("id", "name"))
    return sorted((p["variant_id"], p["currency_code"], regions.get(p["region_id"]), p["amount"])
                  for p in r.json()["price_list"]["prices"])


async def test_a_confirmed_import_replaces_the_lists_prices_with_the_files(client, admin_headers, files, sale):
    # Given a file pricing a variant by id (a region's price and a currency's) and one by SKU
    data = csv_upload([["variant_t_shirt_s", "", "10.50", "9"], ["", "SWEATSHIRT-M", "12", ""]])
    # When it is pre-processed as a dry run
    job = await start(client, admin_headers, sale.id, data)
    # I expect a summary to confirm, and the list untouched so far
    assert job["status"] == "pre_processed"
    assert job["result"]["count"] == 2 and job["result"]["operations"] == {"PRICE_LIST_PRICE_CREATE": 2}
    assert job["result"]["stat_descriptors"] == [{
        "key": "price-list-import-count", "name": "PriceList to import",
        "message": "3 prices will be added (the list's current prices are replaced)",
    }]
    assert job["result"]["errors"] == [] and job["result"]["error_count"] == 0
    assert await prices_of(client, admin_headers, sale.id) == [("variant_mug_white", "usd", None, 800)]
    # When it is confirmed and processed
    job = await confirm(client, admin_headers, job["id"])
    # I expect the file's prices to be the list's, as Medusa does (its old prices cleared)
    assert job["status"] == "completed", job["result"]
    assert (job["result"]["advancement_count"], job["result"]["progress"]) == (2, 1)
    assert await prices_of(client, admin_headers, sale.id) == [
        ("variant_sweatshirt_m", "usd", "NA", 1200),
        ("variant_t_shirt_s", "eur", None, 900),
        ("variant_t_shirt_s", "usd", "NA", 1050),
    ]


async def test_bad_lines_are_listed_and_the_good_ones_still_imported(client, admin_headers, files, sale):
    data = csv_upload([
        ["variant_nope", "", "5", ""],
        ["", "NO-SUCH-SKU", "5", ""],
        ["", "", "5", ""],
        ["variant_t_shirt_m", "", "cheap", "-3"],
        ["variant_t_shirt_l", "", "7", ""],
        ["", "T-SHIRT\x00S", "5", ""],
    ])
    job = await start(client, admin_headers, sale.id, data)
    expected = [
        {"line": 2, "code": "invalid_data", "message": "Line 2: Variant with id variant_nope was not found"},
        {"line": 3, "code": "invalid_data", "message": "Line 3: Variant with sku NO-SUCH-SKU was not found"},
        {"line": 4, "code": "invalid_data", "message": "Line 4: SKU or ID is required"},
        {"line": 5, "code": "invalid_data",
         "message": "Line 5: Price NA [USD] must be a non-negative amount; Price EUR must be a non-negative amount"},
        {"line": 7, "code": "invalid_data", "message": "Line 7: SKU contains a NUL character; SKU or ID is required"},
    ]
    assert job["status"] == "pre_processed"
    assert (job["result"]["errors"], job["result"]["error_count"], job["result"]["count"]) == (expected, 5, 1)
    assert job["result"]["stat_descriptors"][1] == {
        "key": "price-list-import-errors", "name": "Lines that will not be imported",
        "message": "5 lines have errors and will be skipped (see errors)",
    }
    job = await confirm(client, admin_headers, job["id"])
    assert job["status"] == "completed" and job["result"]["errors"] == expected
    assert await prices_of(client, admin_headers, sale.id) == [("variant_t_shirt_l", "usd", "NA", 700)]


@pytest.mark.parametrize("header, message", [
    (["SKU", "Price Mars [USD]"], "The csv file parsing failed due to: Trying to set a price for a region Mars that doesn't exist"),
    (["SKU", "Price XYZ"], "The csv file parsing failed due to: Currency with code xyz does not exist"),
    (["SKU", "Variant Title"], "The csv file parsing failed due to: Unable to treat column Variant Title from the csv "
                               "file. No target column found in the provided schema"),
])
async def test_an_unknown_region_or_currency_column_fails_the_job_and_writes_nothing(
        client, admin_headers, files, sale, header, message):
    job = await start(client, admin_headers, sale.id, csv_upload([["T-SHIRT-S", "5"]], header), dry_run=False)
    assert job["status"] == "failed" and job["result"]["errors"] == [message]
    assert await prices_of(client, admin_headers, sale.id) == [("variant_mug_white", "usd", None, 800)]


async def test_a_dry_run_writes_nothing_until_confirmed_and_nothing_when_canceled(client, admin_headers, files, sale):
    job = await start(client, admin_headers, sale.id, csv_upload([["variant_t_shirt_s", "", "10", ""]]))
    assert job["status"] == "pre_processed"
    r = await client.post(f"/admin/batch-jobs/{job['id']}/cancel", headers=admin_headers)
    assert r.status_code == 200
    await run_processing(job["id"])
    assert await prices_of(client, admin_headers, sale.id) == [("variant_mug_white", "usd", None, 800)]


@pytest.mark.parametrize("context, status, error", [
    ({"price_list_id": "pl_missing"}, 404, {"type": "not_found", "message": "Price list with id: pl_missing was not found"}),
    ({}, 400, {"type": "invalid_data", "message": "Price list id is required"}),
    ({"price_list_id": 7}, 400, {"type": "invalid_data", "message": "Price list id is required"}),
])
async def test_creation_refuses_a_missing_or_unknown_price_list(client, admin_headers, files, seeded, context, status, error):
    key = await upload(client, admin_headers, csv_upload([["variant_t_shirt_s", "", "10", ""]]))
    r = await client.post("/admin/batch-jobs", headers=admin_headers,
                          json={"type": "price-list-import", "context": {"fileKey": key, **context}})
    assert (r.status_code, r.json()) == (status, error)
    assert await BatchJob.all().count() == 0


async def test_creation_refuses_a_file_that_was_not_uploaded(client, admin_headers, files, sale):
    r = await client.post("/admin/batch-jobs", headers=admin_headers, json={
        "type": "price-list-import", "context": {"price_list_id": sale.id, "fileKey": "uploads/nothing.csv"}})
    assert (r.status_code, r.json()) == (400, {"type": "invalid_data", "message": "File with key uploads/nothing.csv was not found"})


class WorkerDied(BaseException):
    """Stands for the process being killed: nothing of ours catches it."""


async def test_a_run_whose_worker_died_resumes_after_its_last_chunk_without_clearing_again(
        client, admin_headers, files, sale, monkeypatch):
    # Given an import of four lines, one per chunk, whose worker dies while writing the third
    key = await upload(client, admin_headers, csv_upload([[f"variant_t_shirt_{s}", "", "", str(n)]
                                                          for n, s in enumerate("sml", 1)] + [["", "SWEATSHIRT-S", "", "4"]]))
    r = await client.post("/admin/batch-jobs", headers=admin_headers, json={
        "type": "price-list-import", "context": {"price_list_id": sale.id, "fileKey": key, "chunk_size": 1}})
    job_id = r.json()["batch_job"]["id"]
    write, calls = price_list_import.write_prices, []

    async def dies_in_third_chunk(price_list, good):
        calls.append((await BatchJob.get(id=job_id)).result["advancement_count"])
        await write(price_list, good)
        if len(calls) == 3:
            raise WorkerDied()

    monkeypatch.setattr(price_list_import, "write_prices", dies_in_third_chunk)
    await run_pre_processing(job_id)  # not a dry run: the pre-processing confirms
    with pytest.raises(WorkerDied):
        await run_processing(job_id)
    monkeypatch.undo()
    # each chunk saw the previous ones' progress committed; two chunks stayed written
    assert calls == [0, 1, 2]
    assert sorted(a for _, _, _, a in await prices_of(client, admin_headers, sale.id)) == [100, 200]
    # When the run is taken over after its heartbeat went silent
    await BatchJob.filter(id=job_id).update(lease_token="dead", heartbeat_at=datetime.now(timezone.utc) - timedelta(seconds=16))
    assert await run_processing(job_id, takeover_seconds=15) == {"status": "completed"}
    # I expect every price once, the first chunks' prices not cleared again
    assert await prices_of(client, admin_headers, sale.id) == [
        ("variant_sweatshirt_s", "eur", None, 400), ("variant_t_shirt_l", "eur", None, 300),
        ("variant_t_shirt_m", "eur", None, 200), ("variant_t_shirt_s", "eur", None, 100),
    ]
    job = await job_of(client, admin_headers, job_id)
    assert (job["status"], job["result"]["advancement_count"], job["result"]["count"]) == ("completed", 4, 4)


async def test_medusas_own_template_imports_as_in_its_integration_test(client, admin_headers, files, sale):
    # Medusa's integration-tests/api/__tests__/batch-jobs/price-list/price-list-import-template.csv,
    # with our seed's variants: a spaced header, amounts rounded to minor units, JPY without decimals
    await Region.create(name="PL Region", currency_code="eur", tax_rate=0)
    data = (b"Product Variant ID,SKU,Price USD,Price PL Region [EUR], Price JPY\r\n"
            b"variant_t_shirt_s,,11.11,22.22,3333\r\n,SWEATSHIRT-S,44.441,55.55,\r\n")
    job = await start(client, admin_headers, sale.id, data, dry_run=False)
    assert job["status"] == "completed", job["result"]
    assert await prices_of(client, admin_headers, sale.id) == [
        ("variant_sweatshirt_s", "eur", "PL Region", 5555), ("variant_sweatshirt_s", "usd", None, 4444),
        ("variant_t_shirt_s", "eur", "PL Region", 2222), ("variant_t_shirt_s", "jpy", None, 3333),
        ("variant_t_shirt_s", "usd", None, 1111),
    ]

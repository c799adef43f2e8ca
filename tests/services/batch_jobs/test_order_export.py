"""Order export (Medusa's `strategies/batch-jobs/order/export.ts`): the dashboard's
"Export Orders" makes an `order-export` job that writes one line per order, newest first, with the
dashboard's filters, page by page, and leaves the file's key in `result.file_key` for its download."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta, timezone

import pytest

from models import BatchJob, Order
from services.batch_jobs import order_export
from services.batch_jobs.lifecycle import cancel_batch_job, create_batch_job, run_pre_processing, run_processing
from services.core.errors import InvalidData
from services.files import storage
from tests.app.admin.test_uploads import path_of
from tests.conftest import count_queries
from tests.order_factories import ADDRESS, place_order
from tests.services.batch_jobs.test_product_import import files, run_to_the_end  # noqa: F401 (fixture)

MEDUSA_HEADER = (
    "Order_ID;Display_ID;Order status;Date;Customer First name;Customer Last name;Customer Email;Customer ID;"
    "Shipping Address 1;Shipping Address 2;Shipping Country Code;Shipping City;Shipping Postal Code;"
    "Shipping Region ID;Fulfillment Status;Payment Status;Subtotal;Shipping Total;Discount Total;Gift Card Total;"
    "Refunded Total;Tax Total;Total;Currency Code;Sales channel name;Sales channel description\r\n"
)


async def export(user_id: str, **context) -> BatchJob:
    job = await create_batch_job(user_id, "order-export", context)
    return await run_to_the_end(job.id)


async def read(key: str) -> tuple[bytes, list[dict]]:
    with storage().open_read(key) as f:
        data = f.read()
    return data, list(csv.DictReader(io.StringIO(data.decode(), newline=""), delimiter=";"))


async def test_orders_export_one_line_each_newest_first_in_medusas_format(client, files, admin, seeded):
    # Given two orders, the second a shirt and a cap shipped to an address with a semicolon in it
    first = await place_order(client, email="first@example.com")
    second = await place_order(client, items={"variant_t_shirt_s": 2, "variant_cap_black": 1},
                               email="second@example.com", address={**ADDRESS, "address_2": "Flat 2; back door"})
    job = await export(admin.id)
    assert job.status == "completed"
    assert job.result["file_key"] == f"exports/orders/order-export-{job.id}.csv"
    data, rows = await read(job.result["file_key"])
    # `;`-separated with Medusa's header, CRLF-ended, its size recorded
    assert data.decode().startswith(MEDUSA_HEADER) and data.count(b"\r\n") == 3
    assert job.result["file_size"] == len(data)
    assert (job.result["count"], job.result["advancement_count"], job.result["progress"]) == (2, 2, 1)
    assert job.result["stat_descriptors"][0]["message"] == "There will be 2 orders exported by this action"
    assert [r["Order_ID"] for r in rows] == [second.id, first.id]
    row = rows[0]
    order = await Order.get(id=second.id).prefetch_related("customer", "shipping_address", "sales_channel")
    assert (row["Display_ID"], row["Order status"], row["Currency Code"]) == (str(order.display_id), "pending", "usd")
    assert row["Date"] == order.created_at.astimezone(timezone.utc).strftime("%a, %d %b %Y %H:%M:%S GMT")
    assert (row["Customer Email"], row["Customer ID"]) == ("second@example.com", order.customer_id)
    assert (row["Shipping Address 1"], row["Shipping Address 2"], row["Shipping Country Code"], row["Shipping City"],
            row["Shipping Postal Code"], row["Shipping Region ID"]) == (
        "1 Main St", "Flat 2; back door", "us", "Springfield", "SW1A 1AA", order.region_id)
    # Amounts in minor units, as Medusa writes them: 2 × 2000 + 1500, shipping 1000 (NA: no tax)
    assert (row["Subtotal"], row["Shipping Total"], row["Discount Total"], row["Gift Card Total"],
            row["Refunded Total"], row["Tax Total"], row["Total"]) == ("5500", "1000", "0", "0", "0", "0", "6500")
    assert (row["Fulfillment Status"], row["Payment Status"]) == ("not_fulfilled", order.payment_status)
    assert row["Sales channel name"] == order.sales_channel.name


async def test_the_dashboards_filters_choose_what_is_exported(client, files, admin, seeded):
    old = await place_order(client, email="old@example.com")
    await Order.filter(id=old.id).update(created_at=datetime.now(timezone.utc) - timedelta(days=30))
    new = await place_order(client, email="new@example.com")
    canceled = await place_order(client, email="gone@example.com")
    await Order.filter(id=canceled.id).update(status="canceled")
    since = (datetime.now(timezone.utc) - timedelta(days=7)).isoformat().replace("+00:00", "Z")
    # What the dashboard sends (admin-ui orders/utils.ts): status lists and a created_at range
    job = await export(admin.id, filterable_fields={
        "status": ["pending"], "fulfillment_status": ["not_fulfilled"], "region_id": [old.region_id],
        "created_at": {"gt": since},
    })
    _, rows = await read(job.result["file_key"])
    assert [r["Order_ID"] for r in rows] == [new.id] and job.result["count"] == 1
    # An empty range (the dashboard sends `created_at: {}` when no date is chosen) filters nothing
    job = await export(admin.id, filterable_fields={"created_at": {}}, batch_size=2)
    _, rows = await read(job.result["file_key"])
    assert [r["Order_ID"] for r in rows] == [canceled.id, new.id]


async def test_an_order_without_a_shipping_address_still_has_its_line(client, files, admin, seeded):
    order = await place_order(client)
    await Order.filter(id=order.id).update(shipping_address_id=None)
    _, rows = await read((await export(admin.id)).result["file_key"])
    assert (rows[0]["Order_ID"], rows[0]["Shipping Address 1"], rows[0]["Shipping City"]) == (order.id, "", "")


async def test_pages_cost_the_same_statements_whatever_the_number_of_orders(client, files, admin, seeded, monkeypatch):
    monkeypatch.setattr(order_export, "PAGE_SIZE", 2)
    for i in range(6):
        await place_order(client, email=f"s{i}@example.com")

    async def statements(batch_size: int) -> tuple[int, BatchJob]:
        job = await create_batch_job(admin.id, "order-export", {"batch_size": batch_size})
        await run_pre_processing(job.id)
        async with count_queries() as ran:
            await run_processing(job.id)
        return len(ran), await BatchJob.get(id=job.id)

    runs = [await statements(n) for n in (2, 4, 6)]  # one, two and three pages
    assert [job.result["advancement_count"] for _, job in runs] == [2, 4, 6]
    # Each page costs the same few statements (its ids, its orders, their rows, the progress), not one per order
    one, two, three = (n for n, _ in runs)
    assert two - one == three - two <= 6


async def test_an_export_canceled_while_it_writes_leaves_no_file(client, files, admin, seeded, monkeypatch):
    for _ in range(3):
        await place_order(client)
    pages = order_export._pages

    async def cancel_after_first_page(context, size):
        async for page in pages(context, 1):
            yield page
            await cancel_batch_job(job.id, admin.id)

    job = await create_batch_job(admin.id, "order-export", {})
    await run_pre_processing(job.id)
    monkeypatch.setattr(order_export, "_pages", cancel_after_first_page)
    assert await run_processing(job.id) == {"stopped": True}
    job = await BatchJob.get(id=job.id)
    assert job.status == "canceled" and "file_key" not in job.result
    assert not await storage().exists(order_export.export_key(job.id))


@pytest.mark.parametrize("context, message", [
    ({"filterable_fields": {"colour": ["red"]}}, "context.filterable_fields.colour is not an order filter this export knows"),
    ({"filterable_fields": {"status": ["lost"]}},
     "context.filterable_fields.status must be among pending, completed, archived, canceled, requires_action"),
    ({"filterable_fields": {"created_at": {"gt": "yesterday"}}}, "context.filterable_fields.created_at.gt must be a date"),
    ({"filterable_fields": {"created_at": {"near": "2024-01-01"}}},
     "context.filterable_fields.created_at is not an order filter this export knows"),
    ({"filterable_fields": []}, "context.filterable_fields must be an object"),
    ({"batch_size": -1}, "context.batch_size must be a positive integer"),
])
async def test_an_export_the_store_cannot_run_is_refused_when_asked_for(admin, context, message):
    with pytest.raises(InvalidData) as refused:
        await create_batch_job(admin.id, "order-export", context)
    assert refused.value.message == message
    assert await BatchJob.all().count() == 0


async def test_the_dashboards_export_downloads_from_the_activity_drawer(client, admin_headers, admin, seeded):
    order = await place_order(client)
    # "Export Orders", as the dashboard sends it
    r = await client.post("/admin/batch-jobs", headers=admin_headers, json={
        "dry_run": False, "type": "order-export", "context": {"filterable_fields": {"status": ["pending"]}}})
    assert r.status_code == 201, r.text
    job = await run_to_the_end(r.json()["batch_job"]["id"])
    r = await client.get(f"/admin/batch-jobs/{job.id}", headers=admin_headers)
    assert r.json()["batch_job"]["status"] == "completed"
    key = r.json()["batch_job"]["result"]["file_key"]
    # The drawer's Download
    r = await client.post("/admin/uploads/download-url", headers=admin_headers, json={"file_key": key})
    assert r.status_code == 200, r.text
    download = await client.get(path_of(r.json()["download_url"]))
    assert download.status_code == 200 and download.content.decode().startswith(MEDUSA_HEADER)
    assert order.id in download.content.decode()

"""Batch jobs run by real actors on a worker: in-process (embedded mode) for the merchant's
stories through the HTTP API, and a `commerce worker` process on Redis that is killed mid-import
and replaced, with the `commerce scheduler` sweep resuming the job (PostgreSQL leg)."""

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from models import (
    BatchJob, Image, Job, Product, ProductCollection, ProductTag, ProductType, ProductVariant, Region, SalesChannel,
    MoneyAmount, PriceList,
)
from services.batch_jobs.lifecycle import create_batch_job
from tests.conftest import BROKER, PATIENCE, SETTINGS, idle, requires_postgres, wait_for
from tests.jobs.test_broker_outage import private_redis  # noqa: F401 (fixture)
from tests.services.batch_jobs.test_product_import import files, many_mugs, upload  # noqa: F401 (fixture)
from workers.embedded import start_embedded_worker, stop_embedded_worker


@pytest.fixture
async def worker():
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    yield w
    await stop_embedded_worker(w)


async def finished(client, headers, job_id: str, *statuses: str, timeout: float = PATIENCE) -> dict:
    async def poll():
        job = (await client.get(f"/admin/batch-jobs/{job_id}", headers=headers)).json()["batch_job"]
        return job if job["status"] in statuses else None

    return await wait_for(poll, timeout=timeout, interval=0.05)


async def catalogue() -> dict:
    """Everything an import and an export carry, per product handle, without timestamps."""
    out = {}
    products = await Product.filter(deleted_at=None).prefetch_related(
        "options", "variants__prices", "variants__options", "images", "tags", "type", "collection", "sales_channels"
    )
    for p in products:
        options = {o.id: o.title for o in sorted(p.options, key=lambda o: (o.created_at, o.id))}
        out[p.handle] = {
            **{f: getattr(p, f) for f in (
                "id", "title", "subtitle", "description", "status", "thumbnail", "weight", "length", "width",
                "height", "hs_code", "origin_country", "mid_code", "material", "discountable", "external_id",
            )},
            "collection": p.collection and (p.collection.handle, p.collection.title),
            "type": p.type and p.type.value, "tags": sorted(t.value for t in p.tags),
            "images": [i.url for i in sorted(p.images, key=lambda i: (i.created_at, i.id))],
            "channels": sorted(c.id for c in p.sales_channels), "options": list(options.values()),
            "variants": {v.id: {
                **{f: getattr(v, f) for f in (
                    "title", "sku", "barcode", "inventory_quantity", "allow_backorder", "manage_inventory",
                    "variant_rank", "weight", "hs_code", "material",
                )},
                "options": {options[o.option_id]: o.value for o in v.options},
                "prices": sorted((m.currency_code, m.region_id or "", m.amount) for m in v.prices),
            } for v in p.variants},
        }
    return out


async def _enrich_the_seeded_catalogue() -> None:
    """What real catalogues have and the seed lacks: region and zero prices, images, tags, a
    type, awkward text, a second channel, a product without variants."""
    eu = await Region.get(name="EU")
    shirt = await Product.get(id="prod_t_shirt")
    shirt.subtitle, shirt.description, shirt.external_id = "Soft", 'Says "hi";\nwashes, dries', "ext-1"
    shirt.type = await ProductType.create(value="Shirts")
    await shirt.save()
    await shirt.tags.add(await ProductTag.create(value="cotton"), await ProductTag.create(value="summer"))
    await shirt.images.add(await Image.create(url="https://img.test/front.png"))
    await shirt.images.add(await Image.create(url="https://img.test/back.png"))
    await shirt.sales_channels.add(await SalesChannel.create(name="Wholesale", description="B2B"))
    await MoneyAmount.create(variant_id="variant_t_shirt_s", region_id=eu.id, currency_code="eur", amount=1700)
    await MoneyAmount.filter(variant__product_id="prod_mug", currency_code="usd").update(amount=0)
    await Product.create(id="prod_wrap", handle="gift-wrap", title="Gift wrap", status="draft", weight=30)


async def test_export_then_import_into_an_empty_store_reproduces_the_catalogue(client, admin_headers, seeded, worker):
    await _enrich_the_seeded_catalogue()
    before = await catalogue()
    # Given the catalogue exported by a worker and downloaded by the admin
    r = await client.post("/admin/batch-jobs", headers=admin_headers, json={"type": "product-export", "context": {}})
    export = await finished(client, admin_headers, r.json()["batch_job"]["id"], "completed", "failed")
    assert export["status"] == "completed", export["result"]
    url = (await client.post("/admin/uploads/download-url", headers=admin_headers,
                             json={"file_key": export["result"]["file_key"]})).json()["download_url"]
    download = await client.get(url, headers=admin_headers)
    assert download.status_code == 200 and len(download.content) == export["result"]["file_size"]

    # When the store is emptied of products (and of their collections, types, tags and images)
    for model in (Product, ProductCollection, ProductType, ProductTag, Image):
        await model.all().delete()
    assert await ProductVariant.all().count() == 0
    # and the file is uploaded and imported
    uploaded = await client.post("/admin/uploads/protected", headers=admin_headers,
                                 files={"files": ("products.csv", download.content, "text/csv")})
    key = uploaded.json()["uploads"][0]["key"]
    r = await client.post("/admin/batch-jobs", headers=admin_headers,
                          json={"type": "product-import", "context": {"fileKey": key}})
    job = await finished(client, admin_headers, r.json()["batch_job"]["id"], "completed", "failed")

    # I expect the same products, variants, options and prices, with their ids
    assert job["status"] == "completed" and job["result"]["errors"] == [], job["result"]
    assert job["result"]["applied"] == {"PRODUCT_CREATE": 11, "PRODUCT_UPDATE": 0, "VARIANT_CREATE": 26,
                                        "VARIANT_UPDATE": 0}
    assert await catalogue() == before
    # and the admin can see them
    r = await client.get("/admin/products/prod_t_shirt", headers=admin_headers)
    assert r.status_code == 200 and r.json()["product"]["title"] == "Medusa T-Shirt"


async def test_a_dry_run_waits_for_confirmation_and_changes_nothing_until_then(
    client, admin_headers, files, worker
):
    key = await upload(many_mugs(3))
    r = await client.post("/admin/batch-jobs", headers=admin_headers,
                          json={"type": "product-import", "context": {"fileKey": key}, "dry_run": True})
    job_id = r.json()["batch_job"]["id"]
    job = await finished(client, admin_headers, job_id, "pre_processed", "failed")
    assert job["result"]["stat_descriptors"][0]["message"].startswith("There will be 3 products created (0  updated)")
    await idle(worker)  # nothing else happens while it waits
    assert await Product.all().count() == 0 and (await BatchJob.get(id=job_id)).status == "pre_processed"
    r = await client.post(f"/admin/batch-jobs/{job_id}/confirm", headers=admin_headers)
    assert r.json()["batch_job"]["status"] == "confirmed"
    assert (await finished(client, admin_headers, job_id, "completed"))["result"]["advancement_count"] == 6
    assert await Product.all().count() == 3


async def test_the_dashboards_price_list_import_runs_on_the_workers(client, admin_headers, files, seeded, worker):
    # Given a price list and a CSV uploaded as the dashboard does
    price_list = await PriceList.create(name="Sale", description="", type="sale")
    await MoneyAmount.create(variant_id="variant_mug_white", currency_code="usd", amount=800, price_list_id=price_list.id)
    data = b"Product Variant ID,SKU,Price EUR\r\nvariant_t_shirt_s,,9.50\r\nvariant_gone,,1\r\n"
    r = await client.post("/admin/uploads/protected", headers=admin_headers, files={"files": ("p.csv", data)})
    key = r.json()["uploads"][0]["key"]
    # When a dry run is created, it waits with its summary and changes nothing
    r = await client.post("/admin/batch-jobs", headers=admin_headers, json={
        "type": "price-list-import", "context": {"price_list_id": price_list.id, "fileKey": key}, "dry_run": True})
    job_id = r.json()["batch_job"]["id"]
    job = await finished(client, admin_headers, job_id, "pre_processed", "failed")
    assert job["result"]["stat_descriptors"][0]["message"].startswith("1 prices will be added")
    assert job["result"]["errors"][0]["line"] == 3
    await idle(worker)
    assert await MoneyAmount.filter(price_list_id=price_list.id).values_list("amount", flat=True) == [800]
    # and once confirmed, the list holds the file's prices
    await client.post(f"/admin/batch-jobs/{job_id}/confirm", headers=admin_headers)
    assert (await finished(client, admin_headers, job_id, "completed"))["result"]["advancement_count"] == 1
    prices = (await client.get(f"/admin/price-lists/{price_list.id}", headers=admin_headers)).json()["price_list"]["prices"]
    assert [(p["variant_id"], p["currency_code"], p["amount"]) for p in prices] == [("variant_t_shirt_s", "eur", 950)]


async def test_cancel_during_processing_stops_within_one_chunk(client, admin_headers, files, worker):
    key = await upload(many_mugs(400))
    r = await client.post("/admin/batch-jobs", headers=admin_headers,
                          json={"type": "product-import", "context": {"fileKey": key, "chunk_size": 1}})
    job_id = r.json()["batch_job"]["id"]

    # One line a chunk: 400 commits, so the run is still going when the poll sees it under way
    async def under_way():
        job = (await client.get(f"/admin/batch-jobs/{job_id}", headers=admin_headers)).json()["batch_job"]
        return job["status"] == "processing" and job["result"].get("advancement_count", 0) > 0

    await wait_for(under_way, timeout=PATIENCE, interval=0.01)
    canceled = (await client.post(f"/admin/batch-jobs/{job_id}/cancel", headers=admin_headers)).json()["batch_job"]
    assert canceled["status"] == "canceled"
    run = await wait_for(lambda: Job.filter(actor_name="process_batch_job", status="succeeded").first())
    assert run.result == {"stopped": True}
    # Each mug line is 2 operations; at most one chunk (1 line) committed after the cancel was recorded
    done_at_cancel = canceled["result"]["advancement_count"] // 2
    assert done_at_cancel <= await Product.all().count() <= done_at_cancel + 1 < 400
    assert (await BatchJob.get(id=job_id)).status == "canceled"


# ---------------------------------------------------------------- real processes on Redis


def _commerce(*args: str, redis_url: str, **env) -> subprocess.Popen:
    # Heartbeats every 0.5 s, a silent run taken over after 2 s (production: 5 s and 15 s).
    environ = {**os.environ, "DATABASE_URL": SETTINGS.database_url, "REDIS_URL": redis_url,
               "LOG_LEVEL": "WARNING", "JOB_HEARTBEAT_SECONDS": "0.5", "JOB_TAKEOVER_SECONDS": "2", **env}
    # A session of its own: `commerce worker` forks worker processes, and a kill must reach them all.
    return subprocess.Popen([sys.executable, "-m", "workers.cli", *args], env=environ, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _end(proc: subprocess.Popen) -> str:
    """A clean stop (SIGTERM to the command, which stops its own children), else a kill."""
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        return _kill(proc)
    _kill(proc)  # whatever of its group outlived it
    return err.decode(errors="replace")


def _kill(proc: subprocess.Popen) -> str:
    """As a crash or an OOM kill: every process of the command dies at once, mid-work."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:  # all gone already
        pass
    err = proc.communicate()[1]
    return err.decode(errors="replace") if err else ""


@requires_postgres("needs PostgreSQL and Redis: worker processes share the database")
async def test_a_worker_process_killed_mid_import_is_replaced_and_the_job_resumes_without_duplicates(
    files, admin, tmp_path, private_redis
):
    # A Redis of this test's own: no other test session's worker can take its messages.
    storage_dir, url = str(tmp_path / "files"), private_redis.url
    processes = {"worker": _commerce("worker", "--processes", "1", "--threads", "2", redis_url=url,
                                     FILE_STORAGE_DIR=storage_dir)}
    logs = []
    try:
        # Given an import running on a worker process
        key = await upload(many_mugs(600))
        job = await create_batch_job(admin.id, "product-import", {"fileKey": key, "chunk_size": 10})

        async def under_way():
            j = await BatchJob.get(id=job.id)
            return j.status == "processing" and (j.result or {}).get("advancement_count", 0) >= 20

        await wait_for(under_way, timeout=PATIENCE, interval=0.02)
        # When the worker is killed outright
        logs.append(_kill(processes.pop("worker")))
        stopped = await BatchJob.get(id=job.id)
        assert stopped.status == "processing" and stopped.lease_token is not None
        done_before = await Product.all().count()
        assert 0 < done_before < 600
        # and a new worker and the scheduler run, the scheduler taking a job silent for 2 s for dead
        processes["worker"] = _commerce("worker", "--processes", "1", "--threads", "2", redis_url=url,
                                        FILE_STORAGE_DIR=storage_dir)
        processes["scheduler"] = _commerce("scheduler", redis_url=url, SCHEDULER_INTERVAL_SECONDS="0.5")

        async def moving_again():
            j = await BatchJob.get(id=job.id)
            return j.attempts >= 2 and j.result["advancement_count"] > stopped.result["advancement_count"]

        # I expect it to move again (after the takeover time plus a sweep, here seconds)
        await wait_for(moving_again, timeout=PATIENCE, interval=0.1)

        async def done():
            j = await BatchJob.get(id=job.id)
            return j if j.status in ("completed", "failed") else None

        finished_job = await wait_for(done, timeout=PATIENCE, interval=0.1)
    finally:
        logs += [_end(p) for p in processes.values()]
    # I expect the job completed once: every mug exactly once, resumed after its checkpoint
    assert finished_job.status == "completed", finished_job.result
    assert finished_job.result["advancement_count"] == finished_job.result["count"] == 1200
    assert finished_job.attempts >= 2  # on a busy machine a slow chunk may cost the new run its lease too
    assert await Product.all().count() == 600 and await ProductVariant.all().count() == 600
    assert await MoneyAmount.all().count() == 600
    assert "Traceback" not in "".join(logs), "".join(logs)[-3000:]

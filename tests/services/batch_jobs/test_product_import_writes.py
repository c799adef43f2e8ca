"""The product import's writes: a chunk costs the same statements whatever its number of lines,
and a line's price replaces only the variant's own price of that kind."""

import pytest

from models import MoneyAmount, PriceList, Product, ProductVariant, Region
from services.batch_jobs.lifecycle import run_pre_processing, run_processing
from tests.conftest import BACKEND, count_queries
from tests.services.batch_jobs.test_product_import import (  # noqa: F401 (fixtures)
    csv_bytes, eu, files, import_job, run_to_the_end, shirt,
)


def catalogue(name: str, products: int, usd: str = "20") -> bytes:
    """`products` shirts of four sizes each, priced, tagged, with images and a collection."""
    return csv_bytes([shirt(size, f"{name}-{n}-{size}", usd, **{
        "Product Handle": f"{name}-{n}", "Product Tags": f"cotton,tag-{n % 7}",
        "Image 1 Url": f"https://img.test/{name}-{n}.png", "Image 2 Url": "",
    }) for n in range(products) for size in ("S", "M", "L", "XL")])


async def statements_of_processing(admin, data: bytes) -> list[str]:
    """The statements processing `data` in one chunk sends, but the job's own bookkeeping (its
    heartbeat may beat once more on a slow machine)."""
    job = await import_job(admin.id, data, chunk_size=10_000)
    await run_pre_processing(job.id)
    async with count_queries() as ran:
        assert await run_processing(job.id) == {"status": "completed"}
    return [q for q in ran if '"batch_job"' not in q]


@pytest.mark.parametrize("then", ["creates", "updates"])
async def test_a_chunk_costs_the_same_statements_whatever_its_lines(files, admin, eu, then):
    # Given the collection, type and tags in the store already
    await run_to_the_end((await import_job(admin.id, catalogue("warm", 7))).id)
    # When a chunk of 20 lines and one of 400 are written (the bulk writes' two ways: arrays, and COPY from 200 rows)
    counts = []
    for name, products in (("few", 5), ("many", 100)):
        if then == "updates":
            await run_to_the_end((await import_job(admin.id, catalogue(name, products))).id)
        counts.append(len(await statements_of_processing(admin, catalogue(name, products, usd="21"))))
    # I expect as many statements for either
    if BACKEND == "postgres":
        assert counts[0] == counts[1], counts
    else:  # SQLite: as many rows an INSERT as its 999 parameters allow
        assert counts[0] <= counts[1] <= counts[0] + 60, counts


async def test_a_lines_price_replaces_only_the_variants_own_price_of_that_kind(files, admin, eu):
    # Given a shirt priced by the file, then given a price-list price, a tier and another region's price
    await run_to_the_end((await import_job(admin.id, csv_bytes([shirt("S", "TS-S")]))).id)
    small = await ProductVariant.get(sku="TS-S")
    sale = await PriceList.create(name="Sale", description="Sale", type="sale")
    na = await Region.create(name="NA", currency_code="usd", tax_rate=0)
    kept = [await MoneyAmount.create(variant_id=small.id, currency_code="usd", amount=5, price_list_id=sale.id),
            await MoneyAmount.create(variant_id=small.id, currency_code="usd", amount=7, min_quantity=10),
            await MoneyAmount.create(variant_id=small.id, currency_code="usd", amount=9, region_id=na.id)]
    # When the file prices it again
    job = await run_to_the_end((await import_job(admin.id, csv_bytes([shirt("S", "TS-S", usd="25")]))).id)
    assert job.status == "completed"
    # I expect its own USD and EU prices replaced, the others as they were
    prices = await MoneyAmount.filter(variant_id=small.id).values_list("id", "currency_code", "region_id", "amount")
    assert sorted((p[1:] for p in prices), key=repr) == sorted([("usd", None, 2500), ("eur", eu.id, 1850)] + [
        (p.currency_code, p.region_id, p.amount) for p in kept], key=repr)
    assert {p.id for p in kept} <= {p[0] for p in prices}


async def test_a_file_imported_again_rewrites_only_the_links_that_changed(files, admin, eu):
    # Given three shirts imported, tagged and pictured
    await run_to_the_end((await import_job(admin.id, catalogue("tee", 3))).id)
    # When the file comes again with the first shirt's tags changed
    again = csv_bytes([shirt(size, f"tee-{n}-{size}", **{
        "Product Handle": f"tee-{n}", "Product Tags": "cotton,silk" if n == 0 else f"cotton,tag-{n % 7}",
        "Image 1 Url": f"https://img.test/tee-{n}.png", "Image 2 Url": "",
    }) for n in range(3) for size in ("S", "M", "L", "XL")])
    ran = await statements_of_processing(admin, again)
    # I expect its tags to be the file's, the others' links untouched: one product's tags rewritten
    tags = {p.handle: sorted(t.value for t in await p.tags.all()) for p in await Product.all()}
    assert tags == {"tee-0": ["cotton", "silk"], "tee-1": ["cotton", "tag-1"], "tee-2": ["cotton", "tag-2"]}
    writes = [q for q in ran if q.startswith(("DELETE", "INSERT", "COPY"))
              and ('"product_tags"' in q or '"product_images"' in q)]
    assert [w.split(" (")[0].split(" WHERE")[0] for w in writes] == [
        'DELETE FROM "product_tags"', 'INSERT INTO "product_tags"']
    assert (await Product.get(handle="tee-0")).id in writes[0]

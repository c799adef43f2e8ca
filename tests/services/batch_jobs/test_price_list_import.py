"""The price-list import's write: a chunk's prices as rows in a few statements, not as model
instances, holding what a MoneyAmount created one by one would hold (the admin API's own story is
tests/app/admin/test_price_list_import.py)."""

import pytest

from models import MoneyAmount, PriceList, ProductVariant, Region
from services.batch_jobs.price_list_import import _Price, _Row, write_prices
from services.core.db import atomic
from tests.conftest import BACKEND, count_queries


async def written(price_list: PriceList, lines: int) -> list[str]:
    """`lines` lines of two prices each (a currency's, a region's) over the seeded variants, written
    in one transaction; the statements it took."""
    eu = await Region.get(name="EU")
    usd, region = _Price("Price USD", "usd"), _Price("Price EU [EUR]", "eur", eu.id)
    variants = await ProductVariant.all().order_by("id").values_list("id", flat=True)
    good = [(_Row(n + 2, prices=[(usd, 100 + n), (region, 2**40 + n)]), variants[n % len(variants)])
            for n in range(lines)]
    async with atomic():
        async with count_queries() as ran:
            await write_prices(price_list, good)
    return ran


async def test_the_prices_are_written_as_the_model_writes_them_in_the_files_order(seeded):
    price_list = await PriceList.create(name="Sale", description="Sale", type="sale")
    await written(price_list, 3)
    prices = await MoneyAmount.filter(price_list_id=price_list.id).order_by("created_at", "id")
    eu = await Region.get(name="EU")
    assert [(p.currency_code, p.region_id, p.amount) for p in prices] == [
        ("usd", None, 100), ("eur", eu.id, 2**40), ("usd", None, 101), ("eur", eu.id, 2**40 + 1),
        ("usd", None, 102), ("eur", eu.id, 2**40 + 2)]
    assert [p.id for p in prices] == sorted(p.id for p in prices) and all(p.id.startswith("ma_") for p in prices)
    assert all((p.min_quantity, p.max_quantity, p.deleted_at, p.metadata) == (None,) * 4 for p in prices)
    touched = (await PriceList.get(id=price_list.id)).updated_at
    assert all(p.created_at == p.updated_at <= touched for p in prices)


@pytest.mark.parametrize("lines", [150, 1500])
async def test_a_chunk_costs_the_same_statements_whatever_its_prices(seeded, lines):
    price_list = await PriceList.create(name="Sale", description="Sale", type="sale")
    ran = await written(price_list, lines)
    assert await MoneyAmount.filter(price_list_id=price_list.id).count() == 2 * lines
    if BACKEND == "postgres":  # the prices in one statement (unnest, or COPY from 200 rows), the list's updated_at
        assert len(ran) == 2, ran
    else:  # SQLite: as many rows a statement as its 999 parameters allow
        assert len(ran) == -(-2 * lines // (999 // 8)) + 1, ran

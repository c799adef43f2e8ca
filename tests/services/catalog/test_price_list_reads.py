"""The prices of price lists read by hand (services/catalog/price_list_reads.py: one statement, built
without the ORM) are what the ORM's `select_related` read builds, on both backends."""

from __future__ import annotations

from models import MoneyAmount, PriceList, ProductVariant
from services.catalog.price_list_reads import prices_by_list
from services.core.clock import now
from tests.row_values import all_column_values as _all, column_values as _values


def _orm(ids: list[str]):
    return (MoneyAmount.filter(price_list_id__in=ids, deleted_at=None).select_related("variant")
            .order_by("created_at", "id"))


async def test_a_lists_prices_read_by_hand_are_those_the_orm_reads(seeded):
    # Given two lists with prices (one soft-deleted, one of a soft-deleted variant, one with
    # metadata), a list without prices, and a base price of the same variant
    variants = list(await ProductVariant.filter(deleted_at=None).order_by("id").limit(3))
    sale, vip, empty = [await PriceList.create(name=n, type="sale") for n in ("Sale", "VIP", "Empty")]
    for i, variant in enumerate(variants):
        await MoneyAmount.create(variant_id=variant.id, price_list_id=sale.id, currency_code="usd", amount=100 + i,
                                 min_quantity=i or None, metadata={"n": i} if i else None)
        await MoneyAmount.create(variant_id=variant.id, price_list_id=vip.id, currency_code="eur", amount=50 + i)
    await MoneyAmount.create(variant_id=variants[0].id, price_list_id=sale.id, currency_code="eur", amount=1,
                             deleted_at=now())
    await ProductVariant.filter(id=variants[2].id).update(deleted_at=now())
    ids = [sale.id, vip.id, empty.id]
    # When they are read by hand
    mine = await prices_by_list(ids)
    # I expect the ORM's read: the live prices by list in creation order, each with its variant
    theirs: dict[str, list] = {}
    for price in await _orm(ids):
        theirs.setdefault(price.price_list_id, []).append(price)
    assert set(mine) == set(theirs) == {sale.id, vip.id}
    for list_id, prices in theirs.items():
        assert _all(mine[list_id]) == _all(prices) and len(prices) == 3
        assert [_values(p.variant) for p in mine[list_id]] == [_values(p.variant) for p in prices]
    assert mine[sale.id][2].variant.deleted_at is not None
    assert await prices_by_list([]) == {}

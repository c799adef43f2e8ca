"""Price selection (services/catalog/pricing.py): Medusa v1.20's strategy with price lists
(Medusa's `strategies/price-selection.ts`)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from models import Customer, CustomerGroup, MoneyAmount, PriceList, ProductVariant, Region
from services.catalog.pricing import PriceContext, decorate_variants, price_context, unit_price
from services.core.clock import now
from tests.conftest import count_queries

NA = Region(id="reg_na", name="NA", currency_code="usd")
SALE = PriceList(id="pl_sale", name="Sale", type="sale", status="active")
OVERRIDE = PriceList(id="pl_override", name="Override", type="override", status="active")


def price(amount: int, *, currency: str = "usd", region: str | None = None, lst: str | None = None,
          low: int | None = None, high: int | None = None) -> MoneyAmount:
    row = MoneyAmount(currency_code=currency, amount=amount, price_list_id=lst, min_quantity=low, max_quantity=high)
    row.region_id = region
    return row


class _Prefetched:
    def __init__(self, rows):
        self.related_objects = rows


def variant_with(prices: list[MoneyAmount]) -> ProductVariant:
    variant = ProductVariant(id="variant_1", title="One")
    variant.__dict__["_prices"] = _Prefetched(prices)  # what a prefetch leaves
    return variant


def shown(prices: list[MoneyAmount], ctx: PriceContext) -> tuple:
    keys = decorate_variants([variant_with(prices)], ctx, None)["variant_1"]
    return keys["original_price"], keys["calculated_price"], keys.get("calculated_price_type")


LISTS = {"pl_sale": SALE, "pl_override": OVERRIDE}


@pytest.mark.parametrize("case,prices,lists,expected", [
    ("a lower sale price wins", [price(1000), price(800, lst="pl_sale")], LISTS, (1000, 800, "sale")),
    ("a higher sale price loses", [price(1000), price(1200, lst="pl_sale")], LISTS, (1000, 1000, "default")),
    # Medusa v1.20 compares an override list like a sale: the lowest price wins either way.
    ("a lower override price wins", [price(1000), price(700, lst="pl_override")], LISTS, (1000, 700, "override")),
    ("a higher override price loses", [price(1000), price(1100, lst="pl_override")], LISTS,
     (1000, 1000, "default")),
    ("a list that does not apply is ignored", [price(1000), price(1, lst="pl_draft")], LISTS,
     (1000, 1000, "default")),
    ("a list price with a minimum does not count without a quantity",
     [price(1000), price(500, lst="pl_sale", low=5)], LISTS, (1000, 1000, "default")),
    ("a list price with only a maximum counts without a quantity",
     [price(1000), price(600, lst="pl_sale", high=5)], LISTS, (1000, 600, "sale")),
    ("the region's price is the original, over the currency's",
     [price(1000), price(1500, region="reg_na")], {}, (1500, 1000, "default")),
    ("another currency never counts", [price(1000), price(10, currency="eur", lst="pl_sale")], LISTS,
     (1000, 1000, "default")),
    ("a sale price for the region counts", [price(1000), price(900, region="reg_na", lst="pl_sale")], LISTS,
     (1000, 900, "sale")),
    ("no plain price: no original, the list price is calculated", [price(900, lst="pl_sale")], LISTS,
     (None, 900, "sale")),
])
def test_the_calculated_price_is_the_lowest_that_applies(case, prices, lists, expected):
    assert shown(prices, PriceContext(region=NA, price_lists=lists)) == expected, case


def test_without_region_or_currency_nothing_is_chosen_and_only_applicable_list_prices_are_shown():
    prices = [price(1000), price(900, currency="eur"), price(800, lst="pl_sale"), price(1, lst="pl_draft")]
    keys = decorate_variants([variant_with(prices)], PriceContext(price_lists=LISTS), None)["variant_1"]
    assert (keys["original_price"], keys["calculated_price"]) == (None, None)
    assert "calculated_price_type" not in keys
    assert [p.amount for p in keys["prices"]] == [1000, 900, 800]
    assert [p.price_list for p in keys["prices"]] == [None, None, SALE]


def test_quantity_tiers_of_a_list_follow_the_quantity():
    prices = [price(1000), price(900, lst="pl_sale", low=1, high=9), price(700, lst="pl_sale", low=10),
              price(1, lst="pl_draft", low=1)]
    ctx = PriceContext(region=NA, price_lists=LISTS)
    assert [unit_price(prices, ctx, q).amount for q in (1, 9, 10, 1000)] == [900, 900, 700, 700]
    assert unit_price(prices, PriceContext(currency_code="eur"), 1) is None
    assert unit_price(prices, PriceContext(), 1) is None


# ---------------------------------------------------------------- which lists apply (database)


async def list_with_price(list_id: str, amount: int, *, groups: list[CustomerGroup] = (), **columns) -> None:
    pl = await PriceList.create(id=list_id, name=list_id, type=columns.pop("type", "sale"), **columns)
    if groups:
        await pl.customer_groups.add(*groups)
    await MoneyAmount.create(variant_id="variant_mug_white", currency_code="usd", amount=amount, price_list_id=pl.id)


async def mug() -> ProductVariant:
    return await ProductVariant.filter(id="variant_mug_white").prefetch_related("prices").first()


async def test_only_active_lists_inside_their_window_and_open_to_the_customer_apply(seeded):
    # Given lists of every kind pricing the white mug, and a VIP customer
    vip, other = await CustomerGroup.create(name="VIP"), await CustomerGroup.create(name="Other")
    gone = await CustomerGroup.create(name="Gone")
    member = await Customer.create(email="vip@example.com")
    await member.groups.add(vip, gone)
    await gone.update_from_dict({"deleted_at": now()}).save()
    hour = timedelta(hours=1)
    await list_with_price("pl_public", 9001, status="active")
    await list_with_price("pl_draft", 9002, status="draft")
    await list_with_price("pl_expired", 9003, status="active", ends_at=now() - hour)
    await list_with_price("pl_future", 9004, status="active", starts_at=now() + hour)
    await list_with_price("pl_window", 9005, status="active", starts_at=now() - hour, ends_at=now() + hour)
    await list_with_price("pl_vip", 9006, status="active", groups=[vip])
    await list_with_price("pl_other", 9007, status="active", groups=[other])
    await list_with_price("pl_gone", 9008, status="active", groups=[gone])
    await list_with_price("pl_deleted", 9009, status="active", deleted_at=now())
    variant = await mug()
    # When a guest and the member are priced
    guest = await price_context([variant], currency_code="usd")
    member_ctx = await price_context([variant], currency_code="usd", customer_id=member.id)
    # I expect the public lists for both, the VIP list for the member only
    assert set(guest.price_lists) == {"pl_public", "pl_window"}
    assert set(member_ctx.price_lists) == {"pl_public", "pl_window", "pl_vip"}
    assert member_ctx.customer_group_ids == {vip.id}  # a deleted group opens nothing


async def test_the_context_costs_two_queries_whatever_the_number_of_variants(seeded):
    group = await CustomerGroup.create(name="VIP")
    member = await Customer.create(email="vip@example.com")
    await member.groups.add(group)
    ids = [v.id for v in await ProductVariant.filter(deleted_at=None)]
    for i, variant_id in enumerate(ids):
        pl = await PriceList.create(name=f"L{i}", type="sale", status="active")
        await pl.customer_groups.add(group)
        await MoneyAmount.create(variant_id=variant_id, currency_code="usd", amount=1, price_list_id=pl.id)
    variants = await ProductVariant.filter(id__in=ids).prefetch_related("prices")
    async with count_queries() as queries:
        ctx = await price_context(variants, currency_code="usd", customer_id=member.id)
    assert len(queries) == 2 and len(ctx.price_lists) == len(ids) > 10
    # Without a list price, no query at all
    plain = await ProductVariant.filter(id__in=ids).prefetch_related("prices")
    for v in plain:
        v.prices.related_objects[:] = [p for p in v.prices.related_objects if p.price_list_id is None]
    async with count_queries() as queries:
        await price_context(plain, currency_code="usd", customer_id=member.id)
    assert queries == []

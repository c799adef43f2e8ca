"""Loading discounts by code for a cart, and redeeming them: the usage count is raised by one
conditional UPDATE inside the transaction that places the order, so parallel checkouts cannot
take a code past its limit."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest

from models import Customer, CustomerGroup, Discount, Product, Region
from services.core.db import atomic
from services.discounts.conditions import ConditionInput
from services.discounts.engine import Shopper, load_offers, redeem, refusal
from services.discounts.discounts import RuleInput, create_discount, create_dynamic_code
from services.core.errors import NotAllowed, NotFound


@pytest.fixture
async def region():
    return await Region.create(name="EU", currency_code="eur", tax_rate=0)


async def a_discount(region: Region, code: str = "SAVE", **changes) -> Discount:
    rule = changes.pop("rule", RuleInput(type="percentage", value=10, allocation="total"))
    return await create_discount(code=code, rule=rule, regions=[region.id], **changes)


async def place_order_with(discount_id: str, buyer: int, hold: float) -> str:
    """What checkout does with a discount: write the order, count the use, commit. The order
    here is a guest customer row; `hold` keeps the transaction open so the others pile up."""
    async with atomic():
        await Customer.create(email=f"buyer{buyer}@example.com")
        await redeem([discount_id])
        await asyncio.sleep(hold)
    return "placed"


@pytest.mark.parametrize("limit, buyers", [(1, 20), (3, 12)])
async def test_parallel_redemptions_place_exactly_the_limit(region, limit, buyers):
    discount = await a_discount(region, usage_limit=limit)
    results = await asyncio.gather(
        *(place_order_with(discount.id, n, hold=0.05) for n in range(buyers)), return_exceptions=True
    )
    placed = [r for r in results if r == "placed"]
    refused = [r for r in results if isinstance(r, NotAllowed)]
    assert len(placed) == limit and len(refused) == buyers - limit, results
    assert all(str(e) == "Discount SAVE has been used maximum allowed times" for e in refused)
    assert (await Discount.get(id=discount.id)).usage_count == limit
    assert await Customer.all().count() == limit  # the refused checkouts left nothing behind


async def test_unlimited_discount_counts_every_use(region):
    discount = await a_discount(region)
    await asyncio.gather(*(place_order_with(discount.id, n, hold=0) for n in range(5)))
    assert (await Discount.get(id=discount.id)).usage_count == 5


async def test_a_rolled_back_checkout_gives_the_use_back(region):
    discount = await a_discount(region, usage_limit=1)
    with pytest.raises(RuntimeError):
        async with atomic():
            await redeem([discount.id])
            raise RuntimeError("payment failed")
    assert (await Discount.get(id=discount.id)).usage_count == 0
    await redeem([discount.id])
    assert (await Discount.get(id=discount.id)).usage_count == 1


async def test_load_offers_reads_codes_in_any_case_with_conditions_and_regions(region):
    product = await Product.create(title="Shirt")
    group = await CustomerGroup.create(name="VIP")
    rule = RuleInput(type="fixed", value=500, allocation="total", conditions=[
        ConditionInput(operator="in", resources={"products": [product.id]}),
        ConditionInput(operator="not_in", resources={"customer_groups": [group.id]}),
    ])
    await a_discount(region, "FIVE", rule=rule)
    await a_discount(region, "TEN")
    five, ten = await load_offers([" five", "Ten "])
    assert (five.code, five.type, five.value, five.region_ids) == ("FIVE", "fixed", 500, frozenset({region.id}))
    assert {(c.type, c.operator, c.ids) for c in five.conditions} == {
        ("products", "in", frozenset({product.id})), ("customer_groups", "not_in", frozenset({group.id})),
    }
    assert ten.conditions == ()


@pytest.mark.parametrize("codes", [["SAVE", "NOPE"], ["SAVE", "save"]], ids=["unknown", "twice"])
async def test_load_offers_refuses_unknown_or_repeated_codes(region, codes):
    await a_discount(region)
    with pytest.raises(NotFound, match=r"Discounts with code \[SAVE, .*\] was not found"):
        await load_offers(codes)


async def test_a_dynamic_code_is_valid_where_its_parent_is_and_until_its_own_end(region):
    parent = await a_discount(region, "SUMMER", is_dynamic=True, valid_duration="P1D")
    await create_dynamic_code(parent.id, code="summer-ann")
    (child,) = await load_offers(["SUMMER-ANN"])
    assert child.region_ids == frozenset({region.id}) and child.usage_limit == 1
    assert refusal(child, Shopper(region_id=region.id)) is None
    later = datetime.now(timezone.utc) + timedelta(days=1, minutes=1)
    assert refusal(child, Shopper(region_id=region.id), later).message == "Discount SUMMER-ANN is expired"

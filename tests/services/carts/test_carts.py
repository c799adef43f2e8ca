"""Carts in the service layer: the prices and taxes of their lines,
and the region parts every cart read shows, remembered per process (services/regions/parts.py)."""

from __future__ import annotations

import json
import time

import pytest

from models import LineItem, LineItemTaxLine, MoneyAmount, PaymentProvider, Product, ProductType, Region, TaxRate
from services.regions import parts as region_parts
from services.carts.items import NewLine
from services.carts.view import load_cart_view
from services.carts.carts import NewCart, create_cart, get_cart
from services.core.db import atomic
from services.catalog.pricing import PriceContext, unit_price
from services.regions.parts import touch_region
from services.store.seed import load_seed
from workers.cli import DEMO_SEED


async def a_cart(region: str, lines: dict[str, int]):
    region_id = (await Region.get(name=region)).id
    return await create_cart(NewCart(region_id=region_id, items=[NewLine(v, q) for v, q in lines.items()]))


# ---------------------------------------------------------------- prices


def test_a_unit_price_is_the_lowest_price_whose_quantity_bounds_fit():
    region = Region(id="reg_1", name="NA", currency_code="usd")
    prices = [
        MoneyAmount(currency_code="usd", amount=1000),
        MoneyAmount(currency_code="usd", amount=800, min_quantity=10),
        MoneyAmount(currency_code="usd", amount=900, min_quantity=2, max_quantity=9),
        MoneyAmount(currency_code="eur", amount=1),
        MoneyAmount(currency_code="usd", amount=950, region_id="reg_1"),
    ]
    ctx = PriceContext(region=region)
    assert [unit_price(prices, ctx, q).amount for q in (1, 2, 9, 10)] == [950, 900, 900, 800]
    assert unit_price([p for p in prices if p.currency_code == "eur"], ctx, 1) is None


# ---------------------------------------------------------------- taxes


async def test_a_products_and_its_types_rates_replace_the_regions_and_count_once(seeded):
    # Given EU rates attached to the cap, to its type, and one to both
    eu = await Region.get(name="EU")
    hats = await ProductType.create(value="Hats")
    await Product.filter(id="prod_cap").update(type_id=hats.id)
    cap = await Product.get(id="prod_cap")
    reduced = await TaxRate.create(region_id=eu.id, rate=10, name="Reduced", code="R")
    hat_tax = await TaxRate.create(region_id=eu.id, rate=2.5, name="Hat tax", code="H")
    await reduced.products.add(cap)
    await reduced.product_types.add(hats)
    await hat_tax.product_types.add(hats)
    # When the cart is read
    view = await a_cart("EU", {"variant_cap_black": 1, "variant_mug_white": 1})
    cap_item, mug_item = view.items
    # I expect the cap taxed at its rates (each once), the mug at the region's
    assert [(t.rate, t.name) for t in view.item_tax_lines[cap_item.id]] == [(10, "Reduced"), (2.5, "Hat tax")]
    assert [(t.rate, t.name) for t in view.item_tax_lines[mug_item.id]] == [(25, "default")]
    assert view.totals.items[cap_item.id].tax_total == 140 + 35
    assert view.totals.item_tax_total == 175 + 275


async def test_a_region_without_automatic_taxes_shows_only_stored_tax_lines(seeded):
    await Region.filter(name="EU").update(automatic_taxes=False)
    view = await a_cart("EU", {"variant_cap_black": 1})
    assert view.item_tax_lines[view.items[0].id] == [] and view.totals.tax_total == 0
    # Stored lines (written when a completion starts) are what counts then
    await LineItemTaxLine.create(item_id=view.items[0].id, rate=12, name="Stored", code="S")
    view = await get_cart(view.cart.id)
    assert view.totals.tax_total == 168 and view.totals.total == 1568


async def test_a_custom_line_is_priced_as_stored_and_not_taxed(seeded):
    view = await a_cart("EU", {"variant_cap_black": 1})
    await LineItem.create(cart_id=view.cart.id, title="Gift wrap", unit_price=300, quantity=1)
    view = await get_cart(view.cart.id)
    wrap = next(i for i in view.items if i.title == "Gift wrap")
    assert view.item_tax_lines[wrap.id] == [] and view.totals.items[wrap.id].total == 300
    assert view.totals.subtotal == 1700 and view.totals.tax_total == 350


# ---------------------------------------------------------------- the region's parts, remembered per process


async def providers_of(cart_id: str) -> list[str]:
    return [p.id for p in (await get_cart(cart_id)).region.payment_providers]


async def test_a_region_changed_through_the_application_is_seen_at_the_next_read(seeded):
    # Given a cart in NA, read once (so its region's parts are remembered)
    view = await a_cart("NA", {"variant_cap_black": 1})
    assert await providers_of(view.cart.id) == ["manual"]
    # When the region gets a provider in a transaction that saves the region
    async with atomic():
        region = await Region.get(name="NA")
        await region.payment_providers.add(await PaymentProvider.get(id="system"))
        await touch_region(region.id)
    # I expect the next read to show it
    assert await providers_of(view.cart.id) == ["manual", "system"]


async def test_a_region_reloaded_by_the_seed_is_seen_at_the_next_read(seeded):
    view = await a_cart("NA", {"variant_cap_black": 1})
    assert await providers_of(view.cart.id) == ["manual"]
    data = json.loads(DEMO_SEED.read_text())
    next(r for r in data["regions"] if r["name"] == "NA")["payment_providers"] = ["manual", "system"]
    await load_seed(data)
    assert await providers_of(view.cart.id) == ["manual", "system"]


async def test_a_change_behind_the_applications_back_is_seen_within_the_max_age_in_a_transaction_too(
    seeded, monkeypatch,
):
    # Given a remembered region, changed by hand without saving the region row
    view = await a_cart("NA", {"variant_cap_black": 1})
    await providers_of(view.cart.id)
    region = await Region.get(name="NA")
    await region.payment_providers.add(await PaymentProvider.get(id="system"))
    # I expect a change being decided (in a transaction) to use the entry while it holds,
    async with atomic():
        assert [p.id for p in (await load_cart_view(view.cart.id)).region.payment_providers] == ["manual"]
    # and every read, in a transaction or not, to see the change once the entry is older than the bound
    later = time.monotonic() + region_parts.MAX_AGE_SECONDS + 1
    monkeypatch.setattr(region_parts.time, "monotonic", lambda: later)
    async with atomic():
        assert [p.id for p in (await load_cart_view(view.cart.id)).region.payment_providers] == ["manual", "system"]
    assert await providers_of(view.cart.id) == ["manual", "system"]


async def test_a_transaction_that_changes_a_region_reads_its_parts_and_keeps_none(seeded):
    # Given a remembered region
    view = await a_cart("NA", {"variant_cap_black": 1})
    await providers_of(view.cart.id)
    region = await Region.get(name="NA")
    # When a transaction changes its providers the application's way, reads the cart, then rolls back
    with pytest.raises(RuntimeError):
        async with atomic():
            await region.payment_providers.add(await PaymentProvider.get(id="system"))
            await touch_region(region.id)
            assert [p.id for p in (await load_cart_view(view.cart.id)).region.payment_providers] == ["manual", "system"]
            raise RuntimeError("rolled back")
    # I expect what it read inside to be forgotten: the next read shows the committed providers
    assert await providers_of(view.cart.id) == ["manual"]


async def test_carts_of_two_regions_each_show_their_own_region(seeded):
    na = await a_cart("NA", {"variant_cap_black": 1})
    eu = await a_cart("EU", {"variant_cap_black": 1})
    for _ in range(2):
        for view, countries in ((na, {"us", "ca"}), (eu, None)):
            read = await get_cart(view.cart.id)
            codes = {c.iso_2 for c in read.region.countries}
            assert codes == countries if countries else ("us" not in codes and codes)
            assert all(c.region_id == view.cart.region_id for c in read.region.countries)

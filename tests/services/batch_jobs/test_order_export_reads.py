"""The order export's own reader (services/batch_jobs/order_export_reads.py) against the order
views it replaced: the same totals and, byte for byte, the same file, over real Medusa v1 shops
moved in (gift cards, refunds, returns, swaps, claims, several currencies and regions, canceled
orders; and a tax-inclusive shop), with discounts, an order's own tax rate, a returned line and
cells that must be quoted added here."""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import format_datetime

import pytest

from models import (
    Address, Customer, Discount, DiscountRule, LineItem, LineItemAdjustment, LineItemTaxLine, Order, Region,
    ShippingMethod, ShippingMethodTaxLine,
)
from services.batch_jobs import order_export
from services.batch_jobs.lifecycle import create_batch_job
from services.batch_jobs.order_export_reads import read_page
from services.batch_jobs.product_import.columns import csv_line
from services.files import storage
from services.orders.view import OrderView, load_views, read_orders
from tests.conftest import count_queries
from tests.services.batch_jobs.test_product_import import files, run_to_the_end  # noqa: F401 (fixture)
from tests.services.migration.conftest import (  # noqa: F401 (fixtures)
    imported, imported_inclusive, medusa_inclusive_source, medusa_source,
)


def view_line(view: OrderView) -> str:
    """The export's line as it was built from the order's view, before the export had its reader."""
    order, totals = view.order, view.totals
    customer, address, channel = order.customer, order.shipping_address, order.sales_channel
    cells = [
        order.id, order.display_id, order.status, format_datetime(order.created_at.astimezone(timezone.utc), usegmt=True),
        *((customer.first_name, customer.last_name, customer.email, customer.id) if customer else ("",) * 4),
        *((address.address_1, address.address_2, address.country_code, address.city, address.postal_code)
          if address else ("",) * 5),
        order.region_id, order.fulfillment_status, order.payment_status,
        totals.subtotal, totals.shipping_total, totals.discount_total, totals.gift_card_total, totals.refunded_total,
        totals.tax_total, totals.total, order.currency_code,
        channel.name if channel else "", (channel.description or "") if channel else "",
    ]
    return csv_line(["" if c is None else str(c) for c in cells])


async def vary(ids: list[str]) -> None:
    """What the moved shops lack: amount and free-shipping discounts with their adjustments (the
    second order's lines count only its first amount discount's), an order taxed at its own rate,
    a returned line, a canceled order, cells holding `;`, `"` and a line break, no shipping address,
another region and currency, lines and a shipping method with more than one tax line and a line
with none."""
    with_lines = [o for o in ids if await LineItem.filter(order_id=o).exists()]
    first, second, fixed, returned, canceled, quoted, bare, abroad, taxed, untaxed = [
        await Order.get(id=o) for o in with_lines[:10]]
    for item in await LineItem.filter(order_id=taxed.id):
        await LineItemTaxLine.create(item=item, rate=2.5, name="second")
        await LineItemTaxLine.create(item=item, rate=12.5, name="third")
    for method in await ShippingMethod.filter(order_id=taxed.id):
        await ShippingMethodTaxLine.create(shipping_method=method, rate=7.7, name="second")
    bare_line = await LineItem.filter(order_id=untaxed.id).order_by("id").first()
    await LineItemTaxLine.filter(item_id=bare_line.id).delete()
    now = datetime.now(timezone.utc)
    percent = await Discount.create(code="EXPORT10", starts_at=now,
                                    rule=await DiscountRule.create(type="percentage", value=10))
    free = await Discount.create(code="EXPORTSHIP", starts_at=now,
                                 rule=await DiscountRule.create(type="free_shipping", value=0))
    await first.discounts.add(free)
    await second.discounts.add(percent, free)
    for order, discount in ((first, None), (second, percent), (second, free)):
        for item in await LineItem.filter(order_id=order.id):
            await LineItemAdjustment.create(item=item, description="discount", discount=discount, amount=31)
    await Order.filter(id=fixed.id).update(tax_rate=12.5)
    item = await LineItem.filter(order_id=returned.id).order_by("id").first()
    await LineItem.filter(id=item.id).update(returned_quantity=1)
    await Order.filter(id=canceled.id).update(status="canceled", fulfillment_status="canceled")
    if quoted.shipping_address_id:
        await Address.filter(id=quoted.shipping_address_id).update(address_1='1 "Main"; St', address_2="rear\r\ndoor")
    await Customer.filter(id=quoted.customer_id).update(first_name='Ada "the; first"')
    await Order.filter(id=bare.id).update(shipping_address_id=None)
    # The moved shop sold in dollars only: one order moves to a region of another currency
    region = await Region.exclude(currency_code=abroad.currency_code).order_by("id").first()
    await Order.filter(id=abroad.id).update(region_id=region.id, currency_code=region.currency_code)


async def expected_file(ids: list[str]) -> bytes:
    views = await load_views(await read_orders(ids), line_detail=False, after_sale=False)
    return (csv_line(list(order_export.HEADER)) + "".join(view_line(v) for v in views)).encode()


async def newest_first() -> list[str]:
    return list(await Order.all().order_by("-created_at", "-id").values_list("id", flat=True))


async def exported(admin_id: str) -> bytes:
    job = await run_to_the_end((await create_batch_job(admin_id, "order-export", {})).id)
    assert job.status == "completed"
    with storage().open_read(job.result["file_key"]) as f:
        return f.read()


async def test_the_reader_gives_each_order_the_totals_of_its_view(imported, admin):
    # Given the moved shop, varied
    ids = await newest_first()
    await vary(ids)
    # When the reader reads its orders (and one that does not exist)
    read = await read_page([*ids, "order_missing"])
    views = await load_views(await read_orders(ids), line_detail=False, after_sale=False)
    # I expect every order, in the order asked, with its view's totals: lines, methods, refundable and all
    assert [o.row[0] for o in read] == ids
    assert {o.row[0]: o.totals for o in read} == {v.order.id: v.totals for v in views}
    assert any(o.totals.discount_total for o in read) and any(o.totals.gift_card_total for o in read)
    assert any(o.totals.refunded_total for o in read) and len({o.row[16] for o in read}) > 1  # currencies


@pytest.mark.parametrize("page_size", [1000, 17])
async def test_the_export_is_byte_for_byte_the_file_the_views_made(imported, files, admin, monkeypatch, page_size):
    # Given the moved shop, varied, exported in pages of `page_size`
    ids = await newest_first()
    await vary(ids)
    monkeypatch.setattr(order_export, "PAGE_SIZE", page_size)
    # I expect the file built line by line from the orders' views
    assert await exported(admin.id) == await expected_file(ids)


async def test_a_tax_inclusive_shop_exports_as_its_views_do(imported_inclusive, files, admin):
    ids = await newest_first()
    assert await exported(admin.id) == await expected_file(ids)


async def test_a_page_costs_two_statements_whatever_its_orders(imported, admin):
    ids = await newest_first()
    counts = []
    for n in (1, 10, len(ids)):
        async with count_queries() as ran:
            assert len(await read_page(ids[:n])) == n
        counts.append(len(ran))
    assert counts == [2, 2, 2]

"""Reading returns: newest first, a page at a time, each with its items
(and their reasons), its shipping method and its order; a fixed number of statements a page."""

from __future__ import annotations

from models import Order, Return, ReturnItem, ShippingMethod
from services.core.listing import FindConfig, page_total
from services.orders.view import AfterSale, rows_by

__all__ = ["list_returns", "load_returns"]


async def load_returns(returns: list[Return]) -> tuple[AfterSale, dict[str, Order]]:
    """The returns' items, shipping methods and orders, as the order view holds them."""
    ids = [r.id for r in returns]
    after = AfterSale(returns=returns)
    if not ids:
        return after, {}
    after.return_items = rows_by(
        await ReturnItem.filter(return_id__in=ids).select_related("reason").order_by("id"), "return_id", ids)
    for method in await ShippingMethod.filter(return_id__in=ids).select_related("shipping_option").prefetch_related(
        "tax_lines"
    ):
        after.return_methods[method.return_id] = method
        after.return_method_tax_lines[method.id] = list(method.tax_lines)
    orders = {o.id: o for o in await Order.filter(id__in=list({r.order_id for r in returns if r.order_id}))}
    return after, orders


async def list_returns(limit: int, offset: int) -> tuple[list[Return], int, AfterSale, dict[str, Order]]:
    page = await Return.all().order_by("-created_at", "-id").offset(offset).limit(limit)
    count = await page_total(Return.all(), FindConfig(limit=limit, offset=offset), len(page))
    after, orders = await load_returns(page)
    return page, count, after, orders

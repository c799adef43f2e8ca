"""The `order-export` batch job (Medusa v1.20's `strategies/batch-jobs/order/export.ts`): one line
per order, newest first, with Medusa's columns (its sales-channel pair included: the flag is on
here), streamed page by page into the file storage, its key in `result.file_key`.

As Medusa: `;`-separated, CRLF-ended, amounts in minor units, the date as JavaScript's
`toUTCString`. Better where a client cannot tell: a cell holding `;`, a quote or a line break is
quoted (Medusa writes it raw and breaks the line); pages follow (created_at, id), so an order placed meanwhile is neither
skipped nor repeated; memory holds one page whatever the number of orders. The file appears only
once complete (a canceled export leaves nothing; a resumed run writes it again).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import aclosing
from datetime import datetime, timezone

from tortoise.expressions import Q
from tortoise.queryset import QuerySet

from models import Order
from models.order import FULFILLMENT_STATUSES, ORDER_STATUSES, PAYMENT_STATUSES
from services.batch_jobs.order_export_reads import ExportedOrder, build_page, fetch_page, read_keys
from services.batch_jobs.product_import.columns import cells_text, csv_line
from services.batch_jobs.runs import JobRun
from services.core.collector import rare_young_collections
from services.core.errors import InvalidData
from services.core.sql import timestamp_converter
from services.files import storage
from services.orders.listing import OrderFilter, filtered_orders

__all__ = ["TYPE", "PAGE_SIZE", "HEADER", "prepare", "pre_process", "process", "export_key", "after", "utc_text"]

TYPE = "order-export"
PAGE_SIZE = 1000  # orders read (with the rows their totals need) and written at a time
READ_AHEAD = 2  # pages whose rows are being read while one is built and written
HEADER = (
    "Order_ID", "Display_ID", "Order status", "Date", "Customer First name", "Customer Last name",
    "Customer Email", "Customer ID", "Shipping Address 1", "Shipping Address 2", "Shipping Country Code",
    "Shipping City", "Shipping Postal Code", "Shipping Region ID", "Fulfillment Status", "Payment Status",
    "Subtotal", "Shipping Total", "Discount Total", "Gift Card Total", "Refunded Total", "Tax Total", "Total",
    "Currency Code", "Sales channel name", "Sales channel description",
)
_CHOICES = {"status": ORDER_STATUSES, "fulfillment_status": FULFILLMENT_STATUSES, "payment_status": PAYMENT_STATUSES}
_LISTS = ("id", "status", "fulfillment_status", "payment_status", "region_id", "sales_channel_id")
_STRINGS = ("q", "email", "customer_id", "cart_id", "currency_code")
_DATES = ("created_at", "updated_at", "canceled_at")
_COMPARISONS = ("lt", "gt", "lte", "gte")


def export_key(job_id: str) -> str:
    return f"exports/orders/order-export-{job_id}.csv"


def _natural(context: dict, name: str, default: int | None) -> int | None:
    value = context.get(name, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise InvalidData(f"context.{name} must be a positive integer")
    return value


def _listed(value) -> list:
    return [value] if isinstance(value, str) else value


def _date(name: str, op: str, value) -> str:
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (AttributeError, TypeError, ValueError):
        raise InvalidData(f"context.filterable_fields.{name}.{op} must be a date") from None
    return value


def _checked_filters(filters) -> dict:
    """The dashboard's filters (status, fulfillment, payment, region lists, a `created_at` range of
    ISO dates) and the order list's other filters; anything else is refused before a job exists."""
    if not isinstance(filters, dict):
        raise InvalidData("context.filterable_fields must be an object")
    for name, value in filters.items():
        if name in _LISTS and isinstance(value, (str, list)) and all(isinstance(v, str) for v in _listed(value)):
            bad = [v for v in _listed(value) if name in _CHOICES and v not in _CHOICES[name]]
            if bad:
                raise InvalidData(f"context.filterable_fields.{name} must be among {', '.join(_CHOICES[name])}")
            continue
        if name in _STRINGS and isinstance(value, str) or name == "display_id" and type(value) is int:
            continue
        if name in _DATES and isinstance(value, dict) and set(value) <= set(_COMPARISONS):
            for op, when in value.items():
                _date(name, op, when)
            continue
        raise InvalidData(f"context.filterable_fields.{name} is not an order filter this export knows")
    return filters


async def prepare(context: dict) -> dict:
    """Medusa's rewrite: list keys become `list_config` (newest first, as Medusa always exports);
    filters stay in `filterable_fields`."""
    skip, size = _natural(context, "offset", 0), _natural(context, "batch_size", None)
    filters = _checked_filters({} if context.get("filterable_fields") is None else context["filterable_fields"])
    rest = {k: v for k, v in context.items() if k not in ("limit", "offset", "order", "fields", "expand", "filterable_fields")}
    return {**rest, **({"batch_size": size} if size is not None else {}),
            "list_config": {"skip": skip, "take": PAGE_SIZE, "order": {"created_at": "DESC"}},
            "filterable_fields": filters}


def _order_filter(filters: dict) -> OrderFilter:
    values = {}
    for name, value in filters.items():
        if name in _LISTS:
            values[name] = _listed(value)
        elif name in _DATES:
            values[name] = {op: datetime.fromisoformat(v.replace("Z", "+00:00")) for op, v in value.items()}
        else:
            values[name] = value
    return OrderFilter(**values)


async def _count(context: dict) -> int:
    total = max(0, await filtered_orders(_order_filter(context.get("filterable_fields") or {})).count()
                - context["list_config"].get("skip", 0))
    size = context.get("batch_size")
    return min(total, size) if size else total


async def _pages(context: dict, page_size: int) -> AsyncIterator[list[ExportedOrder]]:
    """The orders to export with their totals, newest first, in pages that follow
    (created_at, id); `list_config.skip` orders are passed over, `batch_size` caps the total.
    The next READ_AHEAD pages' rows are read while this one is built and written: the database's
    work and ours overlap."""
    qs = filtered_orders(_order_filter(context.get("filterable_fields") or {})).order_by("-created_at", "-id")
    remaining = context.get("batch_size") or float("inf")
    skip, last = context["list_config"].get("skip", 0), None
    ahead: deque[tuple[list[str], asyncio.Future]] = deque()
    created = timestamp_converter(Order, "created_at")

    async def read_ahead() -> None:
        nonlocal last, remaining
        while len(ahead) < READ_AHEAD and remaining > 0:
            page = qs
            if last is not None:
                page = after(page, *last)
            elif skip:
                page = page.offset(skip)
            keys = await read_keys(page.limit(int(min(page_size, remaining))))
            if not keys:
                remaining = 0
                break
            ids = [k[0] for k in keys]
            ahead.append((ids, asyncio.ensure_future(fetch_page(ids))))
            last, remaining = (keys[-1][0], created(keys[-1][1])), remaining - len(keys)

    try:
        await read_ahead()
        while ahead:
            ids, fetching = ahead.popleft()
            await read_ahead()
            fetched = await fetching
            await asyncio.sleep(0)  # the next page's statements leave before this page is built
            yield build_page(ids, fetched)
    finally:
        for _, fetching in ahead:
            fetching.cancel()


def after(qs: QuerySet, order_id: str, created_at: datetime) -> QuerySet:
    """The orders of `qs` that come after (`created_at`, `order_id`), newest first. The bound on
    `created_at` alone says nothing new, but lets the database start from the key in its index
    instead of reading past every order already exported (each page cost more than the last)."""
    return qs.filter(Q(created_at__lte=created_at), Q(created_at__lt=created_at) | Q(created_at=created_at, id__lt=order_id))


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def utc_text(when: datetime) -> str:
    """JavaScript's `toUTCString` (RFC 1123, `Tue, 02 Jan 2024 03:04:05 GMT`), as
    `email.utils.format_datetime(..., usegmt=True)` writes it, at half its cost."""
    if when.tzinfo is not timezone.utc:
        when = when.astimezone(timezone.utc)
    return "%s, %02d %s %04d %02d:%02d:%02d GMT" % (
        _DAYS[when.weekday()], when.day, _MONTHS[when.month - 1], when.year, when.hour, when.minute, when.second)


def _line(order: ExportedOrder) -> str:
    """The order's line: its columns as read (services/batch_jobs/order_export_reads.py PRINTED),
    an empty cell for what it lacks (a customer, a shipping address, a channel). The date always
    holds a comma, so it is always quoted; amounts never need it."""
    row, totals = order.row, order.totals
    head = cells_text(["" if c is None else str(c) for c in row[:3]])
    middle = cells_text(["" if c is None else str(c) for c in row[4:16]])
    tail = cells_text(["" if c is None else str(c) for c in row[16:19]])
    return (f'{head};"{utc_text(order.created_at)}";{middle};{totals.subtotal};{totals.shipping_total};'
            f'{totals.discount_total};{totals.gift_card_total};{totals.refunded_total};{totals.tax_total};'
            f'{totals.total};{tail}\r\n')


def _descriptor(count: int) -> list[dict]:
    return [{"key": "order-export-count", "name": "Order count to export",
             "message": f"There will be {count} orders exported by this action"}]


async def pre_process(run: JobRun) -> dict:
    count = await _count(run.job.context)
    return {"count": count, "advancement_count": 0, "progress": 0, "stat_descriptors": _descriptor(count)}


async def process(run: JobRun) -> dict:
    context, key = run.job.context, export_key(run.job.id)
    count = await _count(context)  # again: orders may have been placed since the dry run
    result = {**(run.job.result or {}), "count": count, "advancement_count": 0, "progress": 0,
              "stat_descriptors": _descriptor(count)}
    size = done = 0
    saving: asyncio.Future | None = None  # a page's progress, recorded while the next page is made
    try:
        with rare_young_collections(), storage().open_write(key) as out:
            size += out.write(csv_line(list(HEADER)).encode())
            async with aclosing(_pages(context, PAGE_SIZE)) as pages:
                async for page in pages:
                    size += out.write("".join([_line(order) for order in page]).encode())
                    done += len(page)
                    progress = min(1, round(done / count, 4)) if count else 1
                    if saving is not None:
                        # A canceled job stops here (a page later): leaving the block by an error discards the file.
                        await saving
                    saving = asyncio.ensure_future(
                        run.save({**result, "advancement_count": done, "progress": progress, "file_size": size}))
            if saving is not None:
                await saving
    finally:
        if saving is not None and not saving.done():  # the export failed while a save was under way
            await asyncio.wait([saving])
            if not saving.cancelled():
                saving.exception()  # retrieved: the export's own error is the one that counts
    return {**result, "advancement_count": done, "progress": 1, "file_key": key, "file_size": size}

"""The `product-export` batch job: Medusa's export CSV, one line
per variant, streamed page by page into the file storage, its key in `result.file_key`.

Better than Medusa v1 where a client cannot tell: no file plugin is needed; pages follow a key
(order column, then id), so a product added or edited meanwhile is neither skipped nor repeated;
a zero price is written `0` (Medusa leaves it empty, and a re-import then drops it); a product
without variants still has its line; the Id column of a sales channel holds its id. The file is
written under a key made from the job's id and appears only once complete: a canceled export
leaves nothing, and a run resumed after a worker died writes the same file again.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from tortoise.expressions import Q, Subquery
from tortoise.queryset import QuerySet

from models import Product, Region
from services.batch_jobs.runs import JobRun
from services.core.errors import InvalidData
from services.files import storage
from services.batch_jobs.product_export_reads import PRODUCT_COLUMNS, ProductRows, read_page, read_shape
from services.batch_jobs.product_import.columns import STATIC_COLUMNS, Column, cells_text, csv_line, from_minor

__all__ = ["TYPE", "PAGE_SIZE", "prepare", "pre_process", "process", "export_key"]

TYPE = "product-export"
PAGE_SIZE = 1000  # products read (with the rows below them) and written at a time
_SHAPE_PAGE = 1000
_ORDERS = ("created_at", "updated_at", "id", "title")
_LISTS = ("id", "status", "collection_id", "type_id", "tags", "sales_channel_id")
_STRINGS = ("q", "handle", "title")


def export_key(job_id: str) -> str:
    return f"exports/products/product-export-{job_id}.csv"


def _natural(context: dict, name: str, default: int | None) -> int | None:
    value = context.get(name, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise InvalidData(f"context.{name} must be a positive integer")
    return value


async def prepare(context: dict) -> dict:
    """Medusa's rewrite: list keys become `list_config`; filters stay in `filterable_fields`."""
    skip, take, size = _natural(context, "offset", 0), _natural(context, "limit", 50), _natural(context, "batch_size", None)
    order = context.get("order") or "-created_at"
    if not isinstance(order, str) or order.lstrip("-") not in _ORDERS:
        raise InvalidData(f"context.order must be one of {', '.join(_ORDERS)} (with - for descending)")
    filters = context.get("filterable_fields") or {}
    if not isinstance(filters, dict):
        raise InvalidData("context.filterable_fields must be an object")
    for name, value in filters.items():
        if name in _LISTS and isinstance(value, (str, list)) and all(isinstance(v, str) for v in _listed(value)):
            continue
        if name in _STRINGS and isinstance(value, str) or name == "is_giftcard" and isinstance(value, bool):
            continue
        raise InvalidData(f"context.filterable_fields.{name} is not a product filter this export knows")
    rest = {k: v for k, v in context.items() if k not in ("limit", "offset", "order", "fields", "expand", "filterable_fields")}
    list_config = {"skip": skip, "take": take or 50, "order": {order.lstrip("-"): "DESC" if order[0] == "-" else "ASC"}}
    return {**rest, **({"batch_size": size} if size is not None else {}), "list_config": list_config,
            "filterable_fields": filters}


def _listed(value: str | list) -> list:
    return [value] if isinstance(value, str) else value


def _products(filters: dict) -> QuerySet:
    qs = Product.filter(deleted_at=None)
    for name in ("id", "status", "collection_id", "type_id"):
        if name in filters:
            qs = qs.filter(**{f"{name}__in": _listed(filters[name])})
    for name in ("handle", "title", "is_giftcard"):
        if name in filters:
            qs = qs.filter(**{name: filters[name]})
    joins = False
    if filters.get("tags"):
        qs, joins = qs.filter(tags__id__in=_listed(filters["tags"])), True
    if filters.get("sales_channel_id"):
        qs, joins = qs.filter(sales_channels__id__in=_listed(filters["sales_channel_id"])), True
    if filters.get("q"):
        q = filters["q"]
        qs, joins = qs.filter(
            Q(title__icontains=q) | Q(description__icontains=q) | Q(handle__icontains=q)
            | Q(variants__sku__icontains=q) | Q(variants__title__icontains=q)
        ), True
    # Joins can repeat a product; its id is selected once.
    return Product.filter(id__in=Subquery(qs.values_list("id", flat=True))) if joins else qs


async def _pages(context: dict, page_size: int, columns: tuple[str, ...]) -> AsyncIterator[list[dict]]:
    """The products to export (`columns` of each, and its id), in pages that follow (order
    column, id): stable while the catalogue changes. `list_config.skip` products are passed over,
    `batch_size` caps the total."""
    config = context["list_config"]
    (column, direction), = config["order"].items()
    desc = direction == "DESC"
    remaining = context.get("batch_size") or float("inf")
    qs = _products(context.get("filterable_fields") or {}).order_by(*(f"-{c}" if desc else c for c in (column, "id")))
    selected = list(dict.fromkeys(("id", column, *columns)))
    last: dict | None = None
    while remaining > 0:
        page = qs
        if last is not None:
            op, value = ("lt" if desc else "gt"), last[column]
            page = page.filter(Q(**{f"{column}__{op}": value}) | Q(**{column: value, f"id__{op}": last["id"]}))
        elif config.get("skip"):
            page = page.offset(config["skip"])
        rows = await page.limit(int(min(page_size, remaining))).values(*selected)
        if not rows:
            return
        yield rows
        last, remaining = rows[-1], remaining - len(rows)


@dataclass
class Shape:
    """How many dynamic columns the file needs."""

    options: int = 0
    images: int = 0
    channels: int = 0
    prices: list[tuple[str, Region | None]] = field(default_factory=list)  # (currency, region)
    count: int = 0


async def _shape(context: dict, run: JobRun) -> Shape:
    shape, keys = Shape(), set()
    async for page in _pages(context, _SHAPE_PAGE, ()):
        ids = [p["id"] for p in page]
        shape.count += len(ids)
        (options, images, channels), prices = await read_shape(ids)
        shape.options, shape.images = max(shape.options, options), max(shape.images, images)
        shape.channels = max(shape.channels, channels)
        keys |= prices
        await run.beat()
    regions = {r.id: r for r in await Region.filter(id__in={r for _, r in keys if r}, deleted_at=None)}
    shape.prices = sorted({(c, None) for c, r in keys if r is None}) + sorted(
        ((regions[r].currency_code, regions[r]) for _, r in keys if r in regions), key=lambda p: (p[1].name, p[1].id)
    )
    return shape


def _price_header(currency: str, region: Region | None) -> str:
    return f"Price {region.name} [{currency.upper()}]" if region else f"Price {currency.upper()}"


def _header(shape: Shape) -> list[str]:
    header = [c.header for c in STATIC_COLUMNS] + [_price_header(c, r) for c, r in shape.prices]
    for i in range(1, shape.options + 1):
        header += [f"Option {i} Name", f"Option {i} Value"]
    header += [f"Image {i} Url" for i in range(1, shape.images + 1)]
    for i in range(1, shape.channels + 1):
        header += [f"Sales Channel {i} Id", f"Sales Channel {i} Name", f"Sales Channel {i} Description"]
    return header


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _product_cell(column: Column, rows: ProductRows) -> str:
    attribute = column.attribute
    if column.entity is None:  # Product Profile Name / Type
        profile = rows.profile
        return _text(profile and (profile["name"] if column.header.endswith("Name") else profile["type"]))
    if attribute in ("collection_title", "collection_handle"):
        return _text(rows.collection and rows.collection[attribute.split("_")[1]])
    if attribute == "type":
        return _text(rows.type)
    if attribute == "tags":
        return ",".join(rows.tags)
    return _text(rows.product[attribute])


# Medusa's static columns are the product's, then the variant's (a line is the two parts joined).
_PRODUCT_PART = [c for c in STATIC_COLUMNS if c.entity != "variant"]
_VARIANT_PART = [c.attribute for c in STATIC_COLUMNS if c.entity == "variant"]


def _lines(rows: ProductRows, shape: Shape) -> list[str]:
    """The product's lines, one a variant (one for a product without variants). What does not
    change from one variant to the next (the product's cells, its images and channels) is
    written once."""
    options = rows.options
    head = cells_text([_product_cell(c, rows) for c in _PRODUCT_PART])
    images = [rows.images[i] if i < len(rows.images) else "" for i in range(shape.images)]
    channels = []
    for i in range(shape.channels):
        c = rows.channels[i] if i < len(rows.channels) else None
        channels += [c["id"], c["name"], c["description"] or ""] if c else ["", "", ""]
    tail = ";" + cells_text(images + channels) if images or channels else ""
    out = []
    for variant in rows.variants or [None]:
        cells = [_text(variant.variant[a]) for a in _VARIANT_PART] if variant else [""] * len(_VARIANT_PART)
        prices = variant.prices if variant else {}
        for currency, region in shape.prices:
            amount = prices.get((currency, region.id if region else None))
            cells.append("" if amount is None else from_minor(amount, currency))
        values = variant.values if variant else {}
        for i in range(shape.options):
            cells += [options[i]["title"], values.get(options[i]["id"], "")] if i < len(options) else ["", ""]
        out.append(f"{head};{cells_text(cells)}{tail}\r\n")
    return out


def _descriptor(count: int) -> list[dict]:
    return [{"key": "product-export-count", "name": "Product count to export",
             "message": f"There will be {count} products exported by this action"}]


async def pre_process(run: JobRun) -> dict:
    shape = await _shape(run.job.context, run)
    return {"count": shape.count, "advancement_count": 0, "progress": 0, "stat_descriptors": _descriptor(shape.count)}


async def process(run: JobRun) -> dict:
    context, key = run.job.context, export_key(run.job.id)
    shape = await _shape(context, run)  # again: the catalogue may have changed since the dry run
    result = {**(run.job.result or {}), "count": shape.count, "advancement_count": 0, "progress": 0,
              "stat_descriptors": _descriptor(shape.count)}
    size = done = 0
    with storage().open_write(key) as out:
        size += out.write(csv_line(_header(shape)).encode())
        async for page in _pages(context, PAGE_SIZE, PRODUCT_COLUMNS):
            for rows in await read_page(page):
                size += out.write("".join(_lines(rows, shape)).encode())
            done += len(page)
            progress = min(1, round(done / shape.count, 4)) if shape.count else 1
            # A canceled job stops here: leaving the block by an error discards the file.
            await run.save({**result, "advancement_count": done, "progress": progress, "file_size": size})
            await asyncio.sleep(0)
    return {**result, "advancement_count": done, "progress": 1, "file_key": key, "file_size": size}

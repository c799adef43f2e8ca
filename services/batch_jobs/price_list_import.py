"""The `price-list-import` batch job (Medusa v1's strategies/batch-jobs/price-list/import.ts): a
CSV of prices becomes a price list's prices. As in Medusa, processing first clears the list's
prices, then adds the file's; unlike Medusa, a bad line is listed with its line number (in
pre-processing, so the dry run shows it) and the good ones are imported, the file is streamed,
and the work commits in chunks (progress, cancel before the next chunk, resume after the last).

Columns (Medusa's): `Product Variant ID`, `SKU` (used when the id is empty), `Price <Region
name> [<CUR>]` (a region's price, in the region's currency) and `Price <CUR>` (a currency's
price). Amounts are written as a person reads them (`10.50`) and stored in minor units.

Context: `price_list_id` and `fileKey` (required), `chunk_size` (lines per chunk, optional).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from models import Currency, MoneyAmount, PriceList, ProductVariant, Region
from models.ids import PREFIXES, new_ids
from services.batch_jobs.product_import import strategy as product_import
from services.batch_jobs.product_import.columns import parse_failure, to_minor
from services.batch_jobs.product_import.reads import where_in
from services.batch_jobs.product_import.rows import open_rows
from services.batch_jobs.product_import.write import StampedRows
from services.batch_jobs.runs import JobRun
from services.core.money import MAX_AMOUNT  # prices are BIGINT columns
from services.catalog.price_lists import get_price_list
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.ids import fitting

__all__ = ["TYPE", "prepare", "pre_process", "process"]

TYPE = "price-list-import"
OPERATION = "PRICE_LIST_PRICE_CREATE"  # Medusa's one operation: a line's prices for one variant
_ID, _SKU = "product variant id", "sku"
_NAMES = {_ID: "Product Variant ID", _SKU: "SKU"}
_REGION_PRICE = re.compile(r"^price (.+) \[([a-z]{3})\]$")
_CURRENCY_PRICE = re.compile(r"^price ([a-z]{3})$")


@dataclass(frozen=True)
class _Price:
    header: str
    currency: str
    region_id: str | None = None


@dataclass
class _Row:
    line: int
    variant_id: str = ""
    sku: str = ""
    prices: list[tuple[_Price, int]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def error(self) -> dict:
        return {"line": self.line, "code": "invalid_data", "message": f"Line {self.line}: " + "; ".join(self.errors)}


async def prepare(context: dict) -> dict:
    price_list_id = context.get("price_list_id")
    if not isinstance(price_list_id, str) or not price_list_id:
        raise InvalidData("Price list id is required")
    await get_price_list(price_list_id, ())
    return await product_import.prepare(context)


async def _layout(header: list[str]) -> list[str | _Price]:
    """Each column's meaning: `_ID`, `_SKU` or a price; anything else makes the file unreadable."""
    regions: dict[str, tuple[str, str]] = {}
    for region in await Region.filter(deleted_at=None).order_by("created_at"):
        regions.setdefault(region.name, (region.id, region.currency_code))
        regions.setdefault(region.name.casefold(), (region.id, region.currency_code))
    currencies = set(await Currency.all().values_list("code", flat=True))
    specs: list[str | _Price] = []
    for cell in header:
        words = " ".join(cell.replace("\ufeff", "").split())
        name = words.casefold()
        if name in (_ID, _SKU):
            specs.append(name)
        elif _REGION_PRICE.match(name):
            region_name = words[len("Price "):-len(" [XXX]")]
            found = regions.get(region_name) or regions.get(region_name.casefold())
            if found is None:
                raise parse_failure(f"Trying to set a price for a region {region_name} that doesn't exist")
            specs.append(_Price(cell, found[1], found[0]))
        elif m := _CURRENCY_PRICE.match(name):
            if m.group(1) not in currencies:
                raise parse_failure(f"Currency with code {m.group(1)} does not exist")
            specs.append(_Price(cell, m.group(1)))
        else:
            raise parse_failure(
                f"Unable to treat column {cell} from the csv file. No target column found in the provided schema"
            )
    same = [s if isinstance(s, str) else (s.currency, s.region_id) for s in specs]
    if len(set(same)) != len(same):
        raise parse_failure("Two columns say the same thing")
    return specs


def _parse(specs: list[str | _Price], cells: list[str], line: int) -> _Row:
    row = _Row(line)
    if len(cells) > len(specs) and any(c.strip() for c in cells[len(specs):]):
        row.errors.append(f"has {len(cells)} cells but the header names {len(specs)} columns")
    for spec, raw in zip(specs, cells):
        value = raw.strip()
        if "\x00" in value:  # PostgreSQL refuses it in a query: the line's error, not the job's
            row.errors.append(f"{_NAMES.get(spec) or spec.header} contains a NUL character")
            continue
        if spec == _ID:
            row.variant_id = value
        elif spec == _SKU:
            row.sku = value
        elif value:
            try:
                amount = to_minor(value, spec.currency)
            except ValueError:
                row.errors.append(f"{spec.header} must be a non-negative amount")
                continue
            if amount > MAX_AMOUNT:
                row.errors.append(f"{spec.header} is too large")
            else:
                row.prices.append((spec, amount))
    if not row.variant_id and not row.sku:
        row.errors.append("SKU or ID is required")
    return row


def _chunk_size(context: dict) -> int:
    size = context.get("chunk_size")
    return min(size, product_import.MAX_CHUNK_ROWS) if isinstance(size, int) and size > 0 else product_import.CHUNK_ROWS


def _chunks(header: list[str | _Price], lines: Iterator[tuple[int, list[str]]], size: int) -> Iterator[list[_Row]]:
    chunk: list[_Row] = []
    for line, cells in lines:
        chunk.append(_parse(header, cells, line))
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


async def _resolve(rows: list[_Row]) -> list[tuple[_Row, str]]:
    """The good lines with their variant's id; a line naming no live variant gets its error."""
    good = [r for r in rows if not r.errors]
    ids = {found for found, in await where_in(
        ProductVariant, "id", set(fitting(ProductVariant, [r.variant_id for r in good if r.variant_id])), ("id",))}
    skus = dict(await where_in(ProductVariant, "sku", {r.sku for r in good if not r.variant_id}, ("sku", "id")))
    found = []
    for row in good:
        if row.variant_id and row.variant_id not in ids:
            row.errors.append(f"Variant with id {row.variant_id} was not found")
        elif not row.variant_id and row.sku not in skus:
            row.errors.append(f"Variant with sku {row.sku} was not found")
        else:
            found.append((row, row.variant_id or skus[row.sku]))
    return found


def _tally(result: dict, rows: list[_Row], good: list[tuple[_Row, str]], key: str) -> dict:
    """`result` with the chunk's lines counted under `key` (operations, or applied) and its bad
    lines listed."""
    bad = [r for r in rows if r.errors]
    return {
        **result, key: {OPERATION: result[key][OPERATION] + len(good)},
        "errors": (result["errors"] + [r.error() for r in bad])[: product_import.MAX_LISTED_ERRORS],
        "error_count": result["error_count"] + len(bad),
    }


def _stat_descriptors(result: dict) -> list[dict]:
    descriptors = [{
        "key": "price-list-import-count", "name": "PriceList to import",
        "message": f"{result['prices']} prices will be added (the list's current prices are replaced)",
    }]
    if result["error_count"]:
        descriptors.append({
            "key": "price-list-import-errors", "name": "Lines that will not be imported",
            "message": f"{result['error_count']} lines have errors and will be skipped (see errors)",
        })
    return descriptors


async def pre_process(run: JobRun) -> dict:
    context = run.job.context
    result = {"count": 0, "advancement_count": 0, "progress": 0, "prices": 0, "errors": [], "error_count": 0,
              "operations": {OPERATION: 0}}
    with open_rows(context["fileKey"]) as (header, lines):
        specs = await _layout(header)
        for chunk in _chunks(specs, lines, _chunk_size(context)):
            good = await _resolve(chunk)
            result = _tally(result, chunk, good, "operations")
            result["prices"] += sum(len(row.prices) for row, _ in good)
            await run.beat()
            await asyncio.sleep(0)  # embedded mode shares the web server's loop
    result["count"] = result["operations"][OPERATION]
    result["stat_descriptors"] = _stat_descriptors(result)
    return result


async def _live_list(price_list_id: str) -> PriceList:
    found = await PriceList.filter(id=price_list_id, deleted_at=None).select_for_update().first()
    if found is None:  # deleted since the job was created
        raise NotFound(f"Price list with id: {price_list_id} was not found")
    return found


async def process(run: JobRun) -> dict:
    """Clear the list (its own commit, with the checkpoint at the header line), then add the
    file's prices chunk by chunk; errors are listed afresh, the store may have changed."""
    job, context = run.job, run.job.context
    price_list_id = context["price_list_id"]
    done = (job.checkpoint or {}).get("line", 0)
    result = job.result if done else {**(job.result or {}), "errors": [], "error_count": 0, "advancement_count": 0,
                                      "applied": {OPERATION: 0}}
    if not done:
        async with atomic():
            await run.fence()
            await _live_list(price_list_id)
            await MoneyAmount.filter(price_list_id=price_list_id).delete()
            await run.save(result, {"line": 1})
    with open_rows(context["fileKey"]) as (header, lines):
        specs = await _layout(header)
        for chunk in _chunks(specs, lines, _chunk_size(context)):
            todo = [r for r in chunk if r.line > done]  # lines up to the checkpoint were committed
            if todo:
                result = await _commit(run, result, todo)
                await asyncio.sleep(0)
    return {**result, "progress": 1}


_PRICE_COLUMNS = ("id", "price_list_id", "variant_id", "amount", "currency_code", "region_id")


async def write_prices(price_list: PriceList, good: list[tuple[_Row, str]]) -> None:
    """The lines' prices in the list, in the file's order, a few statements whatever their number
    (rows, not model instances: the columns a MoneyAmount created here would have)."""
    new = [(price_list.id, variant_id, amount, price.currency, price.region_id)
           for row, variant_id in good for price, amount in row.prices]
    if new:
        new = [(id_, *row) for id_, row in zip(new_ids(PREFIXES["money_amount"], len(new)), new)]
        await StampedRows(MoneyAmount._meta.db).insert("money_amount", _PRICE_COLUMNS, new)
        await price_list.save(update_fields=["updated_at"])


async def _commit(run: JobRun, result: dict, rows: list[_Row]) -> dict:
    async with atomic():
        await run.fence()
        price_list = await _live_list(run.job.context["price_list_id"])
        good = await _resolve(rows)
        await write_prices(price_list, good)
        result = _tally(result, rows, good, "applied")
        result["advancement_count"] = result["applied"][OPERATION]
        count = result.get("count") or 0
        result["progress"] = min(1, round(result["advancement_count"] / count, 4)) if count else 0
        await run.save(result, {"line": rows[-1].line})
    return result

"""The `product-import` batch job, without Medusa v1's faults:
the CSV is streamed, not loaded; a bad line is listed with its line number and
the good ones are imported; the work commits in chunks, so progress shows as it goes, a cancel
stops it before the next chunk, and a run that died is resumed after the last committed chunk.

Pre-processing plans every chunk against the store without writing (the dry run's counts and
errors are those the real run will meet, unless the store changes in between); processing
plans each chunk again and writes it in one transaction with its checkpoint.

Context: `fileKey` (an uploaded CSV, required) and `chunk_size` (lines per chunk, optional).
Memory holds one chunk, plus the handles seen so far (which line defines each product).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

from tortoise.exceptions import IntegrityError, OperationalError

from services.batch_jobs.runs import JobRun
from services.core.db import atomic
from services.core.errors import InvalidData
from services.files import storage
from services.batch_jobs.product_import.plan import Plan, plan_chunk
from services.batch_jobs.product_import.rows import ImportRow, Layout, load_layout, open_rows
from services.batch_jobs.product_import.write import refresh_statistics, write_plan
from services.catalog import search_index
from services.catalog.product_rules import shipping_profile_id
from services.store.defaults import get_store

__all__ = ["TYPE", "CHUNK_ROWS", "MAX_LISTED_ERRORS", "prepare", "pre_process", "process"]

TYPE = "product-import"
CHUNK_ROWS = 1000  # lines per committed chunk; a product's consecutive lines are never split
MAX_CHUNK_ROWS = 10_000  # `context.chunk_size` may choose smaller or larger chunks, up to this
MAX_LISTED_ERRORS = 1000  # bad lines listed in result.errors; result.error_count counts them all
_OPERATIONS = ("PRODUCT_CREATE", "PRODUCT_UPDATE", "VARIANT_CREATE", "VARIANT_UPDATE")


async def prepare(context: dict) -> dict:
    key = context.get("fileKey")
    if not isinstance(key, str) or not key.strip():
        raise InvalidData("context.fileKey must be the key of an uploaded CSV file")
    if not await storage().exists(key):
        raise InvalidData(f"File with key {key} was not found")
    return context


def _chunk_size(context: dict) -> int:
    size = context.get("chunk_size")
    return min(size, MAX_CHUNK_ROWS) if isinstance(size, int) and size > 0 else CHUNK_ROWS


def _chunks(lines: Iterator[tuple[int, list[str]]], layout: Layout, size: int) -> Iterator[list[ImportRow]]:
    """Parsed lines in chunks of about `size`; the first good line of each handle defines its
    product. The same file always gives the same chunks, so a resumed run finds its place."""
    seen: set[str] = set()
    chunk: list[ImportRow] = []
    for line, cells in lines:
        row = layout.parse(cells, line)
        if chunk and len(chunk) >= size and row.handle != chunk[-1].handle:
            yield chunk
            chunk = []
        if not row.errors:
            row.defines_product = row.handle not in seen
            seen.add(row.handle)
        chunk.append(row)
    if chunk:
        yield chunk


async def _defaults() -> dict:
    return {"profile_id": await shipping_profile_id(is_giftcard=False),
            "channel_id": (await get_store()).default_sales_channel_id}


class _Tally:
    """The result as it grows: counted operations, listed errors."""

    def __init__(self, result: dict | None = None):
        self.result = {
            "count": 0, "advancement_count": 0, "progress": 0, "errors": [], "error_count": 0,
            "operations": dict.fromkeys(_OPERATIONS, 0), **(result or {}),
        }

    def add(self, plan: Plan, bad: list[ImportRow], key: str = "operations") -> dict:
        result = {**self.result, key: dict(self.result.get(key) or dict.fromkeys(_OPERATIONS, 0))}
        for op, n in plan.counts.items():
            result[key][op] += n
        refused = sorted(bad + plan.errors, key=lambda r: r.line)
        result["errors"] = self.result["errors"] + [r.error() for r in refused][
            : max(0, MAX_LISTED_ERRORS - len(self.result["errors"]))
        ]
        result["error_count"] = self.result["error_count"] + len(refused)
        return result


def _stat_descriptors(result: dict) -> list[dict]:
    ops = result["operations"]
    descriptors = [{
        "key": "product-import-count",
        "name": "Products/variants to import",
        "message": (
            f"There will be {ops['PRODUCT_CREATE']} products created ({ops['PRODUCT_UPDATE']}  updated).\n"
            f"             {ops['VARIANT_CREATE']} variants will be created and {ops['VARIANT_UPDATE']} updated"
        ),
    }]
    if result["error_count"]:
        descriptors.append({
            "key": "product-import-errors",
            "name": "Lines that will not be imported",
            "message": f"{result['error_count']} lines have errors and will be skipped (see errors)",
        })
    return descriptors


async def pre_process(run: JobRun) -> dict:
    context = run.job.context
    tally, carried, defaults = _Tally(), {}, await _defaults()
    with open_rows(context["fileKey"]) as (header, lines):
        layout = await load_layout(header)
        for chunk in _chunks(lines, layout, _chunk_size(context)):
            plan = await plan_chunk([r for r in chunk if not r.errors], defaults, carried)
            carried.update(plan.new_products)
            tally.result = tally.add(plan, [r for r in chunk if r.errors])
            await run.beat()
            await asyncio.sleep(0)  # embedded mode shares the web server's loop
    result = tally.result
    result["count"] = sum(result["operations"].values())
    result["stat_descriptors"] = _stat_descriptors(result)
    return result


async def process(run: JobRun) -> dict:
    """Apply the file chunk by chunk. Errors are listed afresh (the store may have changed since
    pre-processing); `applied` counts what was written, `advancement_count` follows it."""
    job, context = run.job, run.job.context
    done = (job.checkpoint or {}).get("line", 0)
    if done:
        tally = _Tally(job.result)
    else:
        tally = _Tally({**(job.result or {}), "errors": [], "error_count": 0, "advancement_count": 0,
                        "applied": dict.fromkeys(_OPERATIONS, 0)})
    defaults, applied, analyzed = await _defaults(), 0, _created(tally.result)
    with open_rows(context["fileKey"]) as (header, lines):
        layout = await load_layout(header)
        for chunk in _chunks(lines, layout, _chunk_size(context)):
            todo = [r for r in chunk if r.line > done]  # lines up to the checkpoint were committed
            if todo:
                await _apply(run, tally, todo, defaults)
                applied += 1
                # After chunks 1, 2, 4, 8 ...: the tables doubled, unless the file only updates
                # what is there (then the statistics stand, and each analysis costs a table's sample).
                if applied & (applied - 1) == 0 and _created(tally.result) > analyzed:
                    await refresh_statistics()
                    analyzed = _created(tally.result)
                await asyncio.sleep(0)
    return {**tally.result, "progress": 1}


def _created(result: dict) -> int:
    applied = result.get("applied") or {}
    return applied.get("PRODUCT_CREATE", 0) + applied.get("VARIANT_CREATE", 0)


async def _apply(run: JobRun, tally: _Tally, rows: list[ImportRow], defaults: dict) -> None:
    good, bad = [r for r in rows if not r.errors], [r for r in rows if r.errors]
    try:
        await _commit(run, tally, good, bad, defaults, rows[-1].line)
    except (IntegrityError, OperationalError):
        # The store refused something the plan did not foresee (a concurrent edit): line by
        # line, each with its own checkpoint, so that only the offending lines are refused.
        for row in rows:
            try:
                await _commit(run, tally, [] if row.errors else [row], [row] if row.errors else [], defaults, row.line)
            except (IntegrityError, OperationalError) as e:
                row.errors.append(f"could not be saved ({str(e).splitlines()[0][:200]})")
                await _commit(run, tally, [], [row], defaults, row.line)


async def _commit(run: JobRun, tally: _Tally, good: list[ImportRow], bad: list[ImportRow], defaults: dict,
                  line: int) -> None:
    async with atomic() as unit:
        await run.fence()
        plan = await plan_chunk(good, defaults)
        async with search_index.batch(unit.connection):
            await write_plan(plan, unit.connection)
        result = tally.add(plan, bad, key="applied")
        result["advancement_count"] = sum(result["applied"].values())
        count = result.get("count") or 0
        result["progress"] = min(1, round(result["advancement_count"] / count, 4)) if count else 0
        await run.save(result, {"line": line})
    tally.result = result

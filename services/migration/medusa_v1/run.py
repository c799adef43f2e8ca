"""One move: check the source, ready the target, copy every entity in order, account for the rest."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import datetime
from collections.abc import Iterable
from contextlib import aclosing, nullcontext
from operator import itemgetter

from asyncpg.exceptions import IntegrityConstraintViolationError
from tortoise.exceptions import IntegrityError
from tortoise.transactions import in_transaction


from services.catalog import search_index
from services.migration.medusa_v1.collisions import COLLISIONS, OwnRowsCollide
from services.migration.medusa_v1.differences import load_differences
from services.migration.medusa_v1.entities import ENTITIES, JOINED, LEFT_OUT, Entity
from services.migration.medusa_v1.marks import load_marks, save_mark
from services.migration.medusa_v1.money import check_money
from services.migration.medusa_v1.orders import trade_entities
from models import DraftOrder, Order
from services.migration.medusa_v1.progress import Progress
from services.migration.medusa_v1.report import EntityCount, Report
from services.migration.medusa_v1.schema import is_medusas
from services.migration.medusa_v1.source import Source, open_source
from services.migration.medusa_v1.stock import settle_stock
from services.migration.medusa_v1.target import prepare_target
from services.migration.medusa_v1.writer import Target, TargetColumns, quick_commits
from services.orders.display_ids import continue_after

__all__ = ["move"]

BATCH_ROWS = 1000
ANALYZE_AFTER = 10_000  # rows written: a run that wrote more takes the target's statistics again
LINK_COLUMNS_NOT_KEPT = "a link row keeps only the two rows it links"
MEDUSAS_NOT_KEPT = "Medusa's own, not used by this store"


async def move(
    url: str, *, dry_run: bool = False, carts_days: int = 30, batch_rows: int = BATCH_ROWS,
    progress: Progress | None = None, accept: Iterable[str] = (),
) -> Report:
    """Copy the Medusa v1 shop at `url` into our database (nothing written when `dry_run`); carts
    neither ordered nor touched within `carts_days` days stay behind. `accept`: money differences
    the merchant accepts, each a line as a run reported it (differences.py)."""
    progress = progress or Progress()
    started, cpu = time.monotonic(), time.process_time()
    async with open_source(url) as source:
        report = Report(dry_run=dry_run, plugin_migrations=source.plugin_migrations)
        if not dry_run:
            await prepare_target(source)
        used: dict[str, set[str]] = {}
        entities = ENTITIES + trade_entities(carts_days)
        marks = {} if dry_run else await load_marks()  # a dry run reads everything, and not our database
        async with quick_commits() if not dry_run else nullcontext():
            for entity in entities:
                if source.has(entity.source):
                    since = marks.get(entity.name) if source.has(entity.source, "updated_at") else None
                    used[entity.source] = await _copy(source, entity, report, progress, dry_run, batch_rows, since)
        report.copy_seconds, report.copy_cpu_seconds = time.monotonic() - started, time.process_time() - cpu
        if not dry_run:
            await continue_display_ids()
            await settle_stock(source, report)
            if sum(e.written for e in report.entities) >= ANALYZE_AFTER:
                await Target().analyze()
            report.money_checked = True
            again = await load_differences()  # what differed before is checked again, whatever changed
            found, report.money_orders_checked = await check_money(source, since=marks, again=again)
            report.money_differences, report.accepted_differences = await again.settle(found, accept, source.snapshot_at)
            report.check_seconds = time.monotonic() - started - report.copy_seconds
            report.check_cpu_seconds = time.process_time() - cpu - report.copy_cpu_seconds
        _account_for_schema(source, report, used, entities)
    return report


async def _copy(
    source: Source, entity: Entity, report: Report, progress: Progress, dry_run: bool, batch_rows: int, since,
) -> set[str]:
    """Copy the entity's rows (only those changed at or after `since`, when given)."""
    count = EntityCount(entity.name, entity.source, since=since)
    report.entities.append(count)
    every = entity.select(source) if entity.select else f'SELECT * FROM "{entity.source}" ORDER BY id'
    count.in_source = await source.count(f'SELECT 1 FROM "{entity.source}"')
    chosen = count.in_source  # a first run: the rows `select` leaves out are counted once it is read
    sql = every
    if since is not None:
        # The subquery keeps its ORDER BY (parents before their children) under the filter.
        changed = _changed_since(source, entity, since)
        sql = f"SELECT * FROM ({every}) t WHERE {changed}"
        chosen, todo = await source.conn.fetchrow(
            f"SELECT count(*), count(*) FILTER (WHERE {changed}) FROM ({_unordered(every)}) t")
        count.skip(entity.skipped_by_design or "left out", count.in_source - chosen)
        count.unchanged = chosen - todo
    if not dry_run and not Target().postgres:
        sql = await source.as_text(sql)  # read as SQLite keeps it
    columns = TargetColumns(entity.model, entity.target, entity.columns)
    available = set(source.columns[entity.source]) | set(entity.adds)
    names = _columns_to_copy(entity, columns, available)
    target = None if dry_run else Target()
    to_value = None
    held = not dry_run and await Target().holds_rows(entity.target)
    prune = entity.prune and held  # a first run into an empty table has nothing to remove
    # Columns Medusa does not have take our defaults once, when the row arrives.
    insert_only = frozenset(c for c in names if c not in available and c not in entity.derive)
    high_water = None
    read = 0
    writing: asyncio.Future | None = None  # the batch being written while the next one is read
    written = 0  # rows read before that batch: progress once it is in

    async def landed() -> None:
        nonlocal writing
        if writing is not None:
            done, writing = writing, None
            rows, wrote = await done
            count.copied += rows
            count.written += wrote
            progress.advance(written - progress.done)

    progress.start(entity.name, chosen - count.unchanged)
    try:
        async with aclosing(source.stream(sql, batch_rows)) as batches:
            async for rows in batches:
                read += len(rows)
                if entity.skip:
                    kept = []
                    for row in rows:
                        reason = entity.skip(row)
                        if reason:
                            count.skip(reason)
                        else:
                            kept.append(row)
                    rows = kept
                if not rows:
                    await landed()
                    progress.advance(read - progress.done)
                    continue
                if to_value is None:  # the source's column order, known from its first row
                    to_value = _row_values(entity, columns, names, list(rows[0].keys()))
                values = [to_value(row) for row in rows]
                if "updated_at" in available:
                    newest = max((row["updated_at"] for row in rows if row["updated_at"] is not None), default=None)
                    if newest is not None and (high_water is None or newest > high_water):
                        high_water = newest
                await landed()  # batches land in order: parents before their children
                if target is None:
                    count.copied += len(values)
                    progress.advance(read - progress.done)
                    continue
                # Written while the next batch is read and mapped (SQLite writes in its own
                # thread, PostgreSQL in its own process); each batch commits alone, so an
                # interrupted run keeps what it wrote.
                write = _write(target, entity, names, values, report.collisions, source.top_display_id,
                               insert_only=insert_only, check=held)
                writing, written = asyncio.ensure_future(write), read
        await landed()
    finally:
        if writing is not None:  # stopped part-way: the batch under way ends, its outcome unused
            await asyncio.wait([writing])
            if not writing.cancelled():
                writing.exception()
    progress.finish()
    if since is None:
        count.skip(entity.skipped_by_design or "left out", count.in_source - read)
    if prune:
        count.removed = await _prune(source, entity, every, batch_rows, whole=since is None and read)
    if not dry_run and source.has(entity.source, "updated_at"):
        if isinstance(high_water, str):  # read as text: its order is time's (one format, one zone)
            high_water = datetime.fromisoformat(high_water)
        await save_mark(entity.name, entity.source, source.snapshot_at, high_water)
    return set(names) | set(entity.dropped) | set(entity.reads)


async def _prune(source: Source, entity: Entity, every: str, batch_rows: int, whole: int) -> int:
    """Remove our rows of `entity` that the source no longer has (Medusa deleted them outright);
    how many went. `whole`: the rows this run has just read and written, when it read the entity
    whole: each of their keys is here now, so a table holding no more rows than that holds
    nothing else (each key comes once from a prune entity's `select`)."""
    target = Target()
    if whole and not entity.skip and await target.count(entity.target) <= whole:
        return 0
    # What Medusa deleted shows only in the whole key list: it and ours, walked in one order. A
    # table without soft deletes lists the rows that exist in one plain scan (the selection of
    # kept carts' rows cost a probe per row, and a row of a cart that aged out stays, as the cart
    # does); one with them, through the selection, which keeps the live rows where ours are
    # deleted outright (links, stock).
    listed = _unordered(every) if source.has(entity.source, "deleted_at") else f'SELECT * FROM "{entity.source}"'
    return await target.prune(entity.target, entity.key, source.keys(listed, entity.key, batch_rows * 10), batch_rows * 10)


async def _write(
    target: Target, entity: Entity, names: list[str], values: list[list], collided: list[str], source_top: int,
    **upsert,
) -> tuple[int, int]:
    """One batch, committed: how many rows it carried, and how many of them were written (a
    row as it is here already is not). Rows of this store's own that collide with the batch's
    are settled in its transaction (collisions.py), each noted in `collided`."""
    settle = COLLISIONS.get(entity.source)
    try:
        if target.postgres and entity.copy_key and settle is None:
            # One statement, committed alone.
            return len(values), await target.upsert(entity.target, names, entity.key, values, **upsert)
        # The search index rewrites each product a batch touches once, not once per row.
        async with in_transaction() as conn, search_index.batch(conn):
            writer = Target(conn)
            notes, after = await settle(writer, names, values, source_top) if settle else ([], None)
            if entity.copy_key:
                written = await writer.upsert(entity.target, names, entity.key, values, **upsert)
            else:
                written = await writer.update_by_key(entity.target, names, entity.key, values)
            if after is not None:
                await after()
            collided += notes
            return len(values), written
    except (IntegrityError, IntegrityConstraintViolationError, sqlite3.IntegrityError) as exc:
        raise OwnRowsCollide(f"a row this store made itself blocks Medusa's {entity.source} rows"
                             f" ({str(exc).splitlines()[0]}); nothing of that batch was written") from None


def _unordered(select: str) -> str:
    """`select` without the ORDER BY that ends it, for a count or a key list of its own order: the
    order made PostgreSQL walk a large table by its index (a count of the kept carts: 4 s, against
    2.4 s by a plain scan)."""
    head, found, tail = select.rpartition(" ORDER BY ")
    return head if found and not set(tail) & set("()'\"") else select


def _changed_since(source: Source, entity: Entity, since) -> str:
    """The rows changed at or after `since`: updated, or soft-deleted by a write that left
    `updated_at` as it was (TypeORM's soft remove sets both; a plugin's own SQL may not)."""
    stamp = f"'{since.isoformat()}'::timestamptz"
    changed = f"t.updated_at >= {stamp}"
    if source.has(entity.source, "deleted_at"):
        changed += f" OR t.deleted_at >= {stamp}"
    return f"({changed})"


def _row_values(entity: Entity, columns: TargetColumns, names: list[str], read: list[str]):
    """A function from a source row (an asyncpg Record, in the `read` column order) to the values
    of `names`: the columns read pass as they are, in one C call; only derived columns, json
    columns and those with our defaults go through Python."""
    at = {name: i for i, name in enumerate(read)}
    plain = [c for c in names if c in at and c not in entity.derive]
    rest = [c for c in names if c not in plain]
    order = [names.index(c) for c in plain + rest]
    if order != list(range(len(names))):  # write the columns in the order the values come
        names[:] = plain + rest
    pick = itemgetter(*(at[c] for c in plain)) if plain else (lambda row: ())
    single = len(plain) == 1
    derive = [entity.derive.get(c) for c in rest]
    convert = [(i, c) for i, c in enumerate(names) if c in columns.json or c in columns.defaults]

    def to_value(row) -> list:
        value = [pick(row)] if single else list(pick(row))
        value += [d(row) if d is not None else None for d in derive]
        for i, c in convert:
            value[i] = columns.value(c, value[i])
        return value

    return to_value


def _columns_to_copy(entity: Entity, columns: TargetColumns, sample: set[str]) -> list[str]:
    if entity.only is not None:
        return list(entity.key) + [c for c in entity.only if c not in entity.key]
    # A column the source lacks is written with our default (a database default does not exist).
    return [c for c in columns.names if c in sample or c in entity.derive or c in columns.defaults]


async def continue_display_ids() -> None:
    """The next order (or draft order) takes the number after the highest one moved in."""
    highest = 0
    for model in (Order, DraftOrder):
        top = await model.all().order_by("-display_id").first().values_list("display_id", flat=True)
        highest = max(highest, top or 0)
    await continue_after(highest)


def _account_for_schema(source: Source, report: Report, used: dict[str, set[str]], entities) -> None:
    links = {e.source for e in entities if e.model is None}
    dropped = {e.source: e.dropped for e in entities}
    for table, columns in source.columns.items():
        if table in LEFT_OUT:
            report.left_out[table] = LEFT_OUT[table]
        elif table in JOINED:
            continue
        elif table not in used:
            if is_medusas(table):
                report.left_out[table] = MEDUSAS_NOT_KEPT
            else:
                report.unknown_tables.append(table)
        else:
            for column in columns:
                if column in dropped.get(table, {}):
                    report.columns_not_kept[f"{table}.{column}"] = dropped[table][column]
                elif column in used[table]:
                    continue
                elif table in links:
                    report.columns_not_kept[f"{table}.{column}"] = LINK_COLUMNS_NOT_KEPT
                elif is_medusas(table, column):
                    report.columns_not_kept[f"{table}.{column}"] = MEDUSAS_NOT_KEPT
                else:
                    report.unknown_columns.append(f"{table}.{column}")

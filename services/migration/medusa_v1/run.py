"""One move: check the source, ready the target, copy every entity in order, account for the rest."""

from __future__ import annotations

import time
from contextlib import aclosing, nullcontext
from operator import itemgetter

from tortoise.transactions import in_transaction


from services.catalog import search_index
from services.migration.medusa_v1.entities import ENTITIES, JOINED, LEFT_OUT, Entity
from services.migration.medusa_v1.marks import load_marks, save_mark
from services.migration.medusa_v1.money import check_money
from services.migration.medusa_v1.orders import trade_entities
from models import DisplaySequence, DraftOrder, Order
from services.migration.medusa_v1.progress import Progress
from services.migration.medusa_v1.report import EntityCount, Report
from services.migration.medusa_v1.source import Source, open_source
from services.migration.medusa_v1.stock import settle_stock
from services.migration.medusa_v1.target import prepare_target
from services.migration.medusa_v1.writer import Target, TargetColumns, quick_commits
from services.orders.display_ids import ORDER_SEQUENCE, ensure_sequence

__all__ = ["move"]

BATCH_ROWS = 1000
ANALYZE_AFTER = 10_000  # rows copied: a run that copied more takes the target's statistics again
LINK_COLUMNS_NOT_KEPT = "a link row keeps only the two rows it links"


async def move(
    url: str, *, dry_run: bool = False, carts_days: int = 30, batch_rows: int = BATCH_ROWS,
    progress: Progress | None = None,
) -> Report:
    """Copy the Medusa v1 shop at `url` into our database (nothing written when `dry_run`); carts
    neither ordered nor touched within `carts_days` days stay behind."""
    progress = progress or Progress()
    started = time.monotonic()
    async with open_source(url) as source:
        report = Report(dry_run=dry_run, plugin_migrations=source.plugin_migrations)
        if not dry_run:
            await prepare_target(source)
        used: dict[str, set[str]] = {}
        entities = ENTITIES + trade_entities(carts_days)
        marks = await load_marks()
        async with quick_commits() if not dry_run else nullcontext():
            for entity in entities:
                if source.has(entity.source):
                    since = marks.get(entity.name) if source.has(entity.source, "updated_at") else None
                    used[entity.source] = await _copy(source, entity, report, progress, dry_run, batch_rows, since)
        report.copy_seconds = time.monotonic() - started
        if not dry_run:
            await continue_display_ids()
            await settle_stock(source, report)
            if sum(e.copied for e in report.entities) >= ANALYZE_AFTER:
                await Target().analyze()
            report.money_checked = True
            report.money_differences, report.money_orders_checked = await check_money(source, since=marks)
            report.check_seconds = time.monotonic() - started - report.copy_seconds
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
        chosen, todo = await source.conn.fetchrow(f"SELECT count(*), count(*) FILTER (WHERE {changed}) FROM ({every}) t")
        count.skip(entity.skipped_by_design or "left out", count.in_source - chosen)
        count.unchanged = chosen - todo
    columns = TargetColumns(entity.model, entity.target, entity.columns)
    available = set(source.columns[entity.source]) | set(entity.adds)
    names = _columns_to_copy(entity, columns, available)
    target = None if dry_run else Target()
    to_value = None
    seen: set[tuple] | None = set() if entity.prune and not dry_run else None
    if seen is not None and since is None and not await Target().holds_rows(entity.target):
        seen = None  # a first run into an empty table: nothing to remove, no keys held in memory
    if seen is not None and since is not None:  # what Medusa deleted outright shows only in the whole key list
        seen.update(await source.keys(every, entity.key, batch_rows * 10))
    high_water = None
    read = 0
    progress.start(entity.name, chosen - count.unchanged)
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
                progress.advance(read - progress.done)
                continue
            if to_value is None:  # the source's column order, known from its first row
                to_value = _row_values(entity, columns, names, list(rows[0].keys()))
            values = [to_value(row) for row in rows]
            if seen is not None:
                key = itemgetter(*(list(rows[0].keys()).index(k) for k in entity.key)) if len(entity.key) > 1 else None
                seen.update(key(row) if key else (row[entity.key[0]],) for row in rows)
            if "updated_at" in available:
                newest = max((row["updated_at"] for row in rows if row["updated_at"] is not None), default=None)
                if newest is not None and (high_water is None or newest > high_water):
                    high_water = newest
            if target is not None and target.postgres and entity.copy_key:
                await target.upsert(entity.target, names, entity.key, values)  # one statement, committed alone
            elif target is not None:
                # Each batch commits: an interrupted run keeps what it wrote. The search index
                # rewrites each product a batch touches once, not once per row.
                async with in_transaction() as conn, search_index.batch(conn):
                    writer = Target(conn)
                    if entity.copy_key:
                        await writer.upsert(entity.target, names, entity.key, values)
                    else:
                        await writer.update_by_key(entity.target, names, entity.key, values)
            count.copied += len(values)
            progress.advance(read - progress.done)
    progress.finish()
    if since is None:
        count.skip(entity.skipped_by_design or "left out", count.in_source - read)
    if seen is not None:
        count.removed = await Target().prune(entity.target, entity.key, seen)
    if not dry_run and source.has(entity.source, "updated_at"):
        await save_mark(entity.name, entity.source, source.snapshot_at, high_water)
    return set(names) | set(entity.dropped) | set(entity.reads)


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
    await ensure_sequence()
    await DisplaySequence.filter(name=ORDER_SEQUENCE, value__lt=highest).update(value=highest)


def _account_for_schema(source: Source, report: Report, used: dict[str, set[str]], entities) -> None:
    links = {e.source for e in entities if e.model is None}
    dropped = {e.source: e.dropped for e in entities}
    for table, columns in source.columns.items():
        if table in LEFT_OUT:
            report.left_out[table] = LEFT_OUT[table]
        elif table in JOINED:
            continue
        elif table not in used:
            report.unknown_tables.append(table)
        else:
            for column in columns:
                if column in dropped.get(table, {}):
                    report.columns_not_kept[f"{table}.{column}"] = dropped[table][column]
                elif column in used[table]:
                    continue
                elif table in links:
                    report.columns_not_kept[f"{table}.{column}"] = LINK_COLUMNS_NOT_KEPT
                else:
                    report.unknown_columns.append(f"{table}.{column}")

"""One move: check the source, ready the target, copy every entity in order, account for the rest."""

from __future__ import annotations

import time

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
from services.migration.medusa_v1.target import prepare_target
from services.migration.medusa_v1.writer import Target, TargetColumns
from services.orders.display_ids import ORDER_SEQUENCE, ensure_sequence

__all__ = ["move"]

BATCH_ROWS = 1000
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
        for entity in entities:
            if source.has(entity.source):
                since = marks.get(entity.name) if source.has(entity.source, "updated_at") else None
                used[entity.source] = await _copy(source, entity, report, progress, dry_run, batch_rows, since)
        report.copy_seconds = time.monotonic() - started
        if not dry_run:
            await continue_display_ids()
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
    chosen = await source.count(every)
    count.skip(entity.skipped_by_design or "left out", count.in_source - chosen)
    # The subquery keeps its ORDER BY (parents before their children) under the filter.
    sql = every if since is None else f"SELECT * FROM ({every}) t WHERE t.updated_at >= '{since.isoformat()}'::timestamptz"
    if since is not None:
        changed = await source.count(sql)
        count.unchanged, chosen = chosen - changed, changed
    columns = TargetColumns(entity.model, entity.target, entity.columns)
    names = _columns_to_copy(entity, columns, set(source.columns[entity.source]) | set(entity.adds))
    target = None if dry_run else Target()
    # Only json columns and those with our defaults need converting; the rest pass as read.
    converted = [i for i, c in enumerate(names) if c in columns.json or c in columns.defaults]
    seen: set[tuple] | None = set() if entity.prune and not dry_run else None
    if seen is not None and since is not None:  # what Medusa deleted outright shows only in the whole key list
        seen.update(await source.keys(every, entity.key, batch_rows * 10))
    high_water = None
    progress.start(entity.name, chosen)
    async for rows in source.stream(sql, batch_rows):
        values = []
        for row in rows:
            reason = entity.skip(row) if entity.skip else None
            if reason:
                count.skip(reason)
                continue
            row.update({column: derive(row) for column, derive in entity.derive.items()})  # all from the source's row
            value = [row.get(c) for c in names]
            for i in converted:
                value[i] = columns.value(names[i], value[i])
            values.append(value)
            if seen is not None:
                seen.add(tuple(row[k] for k in entity.key))
            if row.get("updated_at") is not None and (high_water is None or row["updated_at"] > high_water):
                high_water = row["updated_at"]
        if target is not None and values:
            # Each batch commits: an interrupted run keeps what it wrote. The search index rewrites
            # each product a batch touches once, not once per row.
            async with in_transaction() as conn, search_index.batch(conn):
                writer = Target(conn)
                if entity.copy_key:
                    await writer.upsert(entity.target, names, entity.key, values)
                else:
                    await writer.update_by_key(entity.target, names, entity.key, values)
        count.copied += len(values)
        progress.advance(len(rows))
    progress.finish()
    if seen is not None:
        count.removed = await Target().prune(entity.target, entity.key, seen)
    if not dry_run and source.has(entity.source, "updated_at"):
        await save_mark(entity.name, entity.source, source.snapshot_at, high_water)
    return set(names) | set(entity.dropped)


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

"""Writing a planned import chunk with few statements, in the caller's transaction, through
services.core.sql's bulk writes: a few statements per table for new rows, one UPDATE shape per
set of changed columns, the option values, prices and relation links of the lines that set them.
New rows are stamped a microsecond apart, so the file's order is their created order (options,
images, export order)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from itertools import count

from tortoise import connections
from tortoise.backends.base.client import BaseDBAsyncClient

from services.batch_jobs.product_import.plan import PRODUCT_FIELDS, VARIANT_FIELDS, Plan
from services.batch_jobs.product_import.reads import table_rows_in
from services.core.bulk_writes import bulk_update, bulk_upsert
from services.core.sql import numbered, question_marks
from services.inventory.switch_on import variants_changed

__all__ = ["StampedRows", "write_plan", "refresh_statistics"]

_PRODUCT_COLUMNS = ("id", *PRODUCT_FIELDS, "is_giftcard", "collection_id", "type_id", "profile_id")
_VARIANT_COLUMNS = ("id", "product_id", "variant_rank", *VARIANT_FIELDS)
_REF_COLUMNS = {
    "product_collection": ("id", "handle", "title"),
    "product_type": ("id", "value"),
    "product_tag": ("id", "value"),
    "image": ("id", "url"),
    "sales_channel": ("id", "name", "description"),
}
_LINK_COLUMNS = {
    "product_tags": "product_tag_id", "product_images": "image_id", "product_sales_channel": "sales_channel_id",
}


class StampedRows:
    """Bulk writes in the caller's transaction on `connection`; the rows it inserts are stamped
    (`created_at`, `updated_at`) a microsecond apart, in the order they are given."""

    def __init__(self, connection: BaseDBAsyncClient):
        self.connection = connection
        self._start, self._tick = datetime.now(timezone.utc), count()

    def stamp(self) -> datetime:
        return self._start + timedelta(microseconds=next(self._tick))

    async def insert(self, table: str, columns: Sequence[str], rows: Iterable[Sequence], stamped: bool = True):
        values = [[*r, *self._stamps()] if stamped else list(r) for r in rows]
        names = [*columns, *(("created_at", "updated_at") if stamped else ())]
        await bulk_upsert(self.connection, table, names, values)

    def _stamps(self) -> tuple[datetime, datetime]:
        at = self.stamp()
        return at, at

    async def update(self, table: str, changes: list[tuple[str, dict]]) -> None:
        """One UPDATE per set of columns; `updated_at` is set on every row."""
        shapes: dict[tuple[str, ...], list[list]] = {}
        now = datetime.now(timezone.utc)
        for row_id, values in changes:
            columns = tuple(sorted(values))
            shapes.setdefault(columns, []).append([*(values[c] for c in columns), now, row_id])
        for columns, rows in shapes.items():
            await bulk_update(self.connection, table, (*columns, "updated_at", "id"), rows, changed_only=False)

    async def delete(self, table: str, column: str, ids: list[str], where: str = "", values: Sequence = ()) -> None:
        """Delete the rows whose `column` is one of `ids` (and that meet `where`, marked `?`, with
        `values`): one statement written here, not built by the ORM value by value."""
        if ids:
            text = f'DELETE FROM "{table}" WHERE "{column}" IN ({question_marks(len(ids))})'
            text += f" AND {where}" if where else ""
            await self.connection.execute_query(numbered(self.connection.capabilities.dialect, text), [*ids, *values])

    async def delete_links(self, table: str, product_ids: list[str]) -> None:
        await self.delete(table, "product_id", product_ids)


async def write_plan(plan: Plan, connection: BaseDBAsyncClient) -> None:
    sql = StampedRows(connection)
    for table, rows in plan.new_refs.items():
        extra = ("is_disabled",) if table == "sales_channel" else ()
        await sql.insert(table, _REF_COLUMNS[table] + extra, [(*r, *((False,) if extra else ())) for r in rows])
    await sql.insert("product", _PRODUCT_COLUMNS, ([p.get(c) for c in _PRODUCT_COLUMNS] for p in plan.product_inserts))
    await sql.update("product", plan.product_updates)
    await sql.insert("product_option", ("id", "product_id", "title"), plan.option_inserts)
    await sql.insert("product_variant", _VARIANT_COLUMNS, ([v.get(c) for c in _VARIANT_COLUMNS] for v in plan.variant_inserts))
    await sql.update("product_variant", plan.variant_updates)
    await sql.delete("product_option_value", "variant_id", plan.values_replaced)
    await sql.insert("product_option_value", ("id", "option_id", "variant_id", "value"), plan.value_inserts)
    for (currency, region_id), variant_ids in plan.prices_replaced.items():
        # The variant's own price of that kind (not a price list's, not a tier): a region's, or a currency's.
        kind = '"region_id" = ?' if region_id else '"region_id" IS NULL AND "currency_code" = ?'
        await sql.delete("money_amount", "variant_id", variant_ids, f'"price_list_id" IS NULL AND "min_quantity" IS NULL'
                         f' AND "max_quantity" IS NULL AND {kind}', [region_id or currency])
    await sql.insert("money_amount", ("id", "variant_id", "currency_code", "region_id", "amount"), plan.price_inserts)
    created = {p["id"] for p in plan.product_inserts}
    for table, by_product in plan.links.items():
        column = _LINK_COLUMNS[table]
        # A product's links are replaced only where they differ from the line's: rewriting the same
        # links (a re-imported file) would fire their triggers and rebuild the products' search documents.
        have: dict[str, set[str]] = {}
        kept = [p for p in by_product if p not in created]
        for product_id, id_ in await table_rows_in(connection, table, "product_id", kept, ("product_id", column)):
            have.setdefault(product_id, set()).add(id_)
        changed = {p: ids for p, ids in by_product.items() if p in created or have.get(p, set()) != set(ids)}
        await sql.delete_links(table, [p for p in changed if p not in created])
        await sql.insert(
            table, ("product_id", column), [(product_id, id_) for product_id, ids in changed.items() for id_ in ids],
            stamped=False,
        )
    # INVENTORY_LOCATIONS on: the new variants get their items, a new quantity its default-location stock.
    await variants_changed([v["id"] for v in plan.variant_inserts] + [variant_id for variant_id, _ in plan.variant_updates])


# The tables an import looks rows up in, chunk after chunk.
_LOOKED_UP = ("product", "product_variant", "product_option", "product_option_value", "image")


async def refresh_statistics() -> None:
    """PostgreSQL's planner judges a table by statistics that autovacuum refreshes only now and
    then; a bulk load outgrows them within seconds, and lookups by SKU or handle turn into full
    scans. The import asks for fresh ones as the tables grow (a sample: milliseconds)."""
    connection = connections.get("default")
    if connection.capabilities.dialect == "postgres":
        await connection.execute_script("ANALYZE " + ", ".join(f'"{t}"' for t in _LOOKED_UP))

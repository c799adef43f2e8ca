"""The order export's reader: a page of orders as the export prints them, with their totals, in
two statements whatever the page's size, and no model instance built.

What the view (services/orders/view.py `load_views`) reads for a page of 100 orders (every
column of the order, its region, customer, addresses and channel, and every row below it, built as
Tortoise instances) cost about 2 ms an order to print 26 columns. Here:

- one statement for the orders' printed columns, joined to their customer, shipping address and
  channel, and the two region columns their totals read;
- one for the rows their totals read, and the totals of them, by the orders' own lean totals
  reader (services/orders/totals_reads.py), so the export's money is the order routes' money.

A page's keys (`read_keys`) are the ORM's statement (the export's filters, the key it goes on
from), run directly: the ORM converted every order's creation time, and only the last is used.

The page's orders are one parameter (services/core/sql.py `ID_TABLE`), so each statement's text is
the same for every page. tests/services/batch_jobs/test_order_export_reads.py holds the CSV equal
to the one built from the order views on both backends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

from tortoise.queryset import QuerySet

from models import Order
from services.core.sql import ID_TABLE, ids_value, timestamp_converter
from services.orders.totals import OrderTotals
from services.orders.totals_reads import page_totals, read_totals_rows

__all__ = ["PRINTED", "ExportedOrder", "read_keys", "read_page", "fetch_page", "build_page"]

# The columns read for each order, in this order (ExportedOrder.row); the last three are its totals'.
PRINTED = (
    "id", "display_id", "status", "created_at", "customer_first_name", "customer_last_name", "customer_email",
    "customer_id", "address_1", "address_2", "country_code", "city", "postal_code", "region_id",
    "fulfillment_status", "payment_status", "currency_code", "channel_name", "channel_description",
    "tax_rate", "region_gift_cards_taxable", "region_tax_rate",
)
_ORDERS = (
    'SELECT "o"."id", "o"."display_id", "o"."status", "o"."created_at", "cu"."first_name", "cu"."last_name", '
    '"cu"."email", "cu"."id", "sa"."address_1", "sa"."address_2", "sa"."country_code", "sa"."city", '
    '"sa"."postal_code", "o"."region_id", "o"."fulfillment_status", "o"."payment_status", "o"."currency_code", '
    '"sc"."name", "sc"."description", "o"."tax_rate", "r"."gift_cards_taxable", "r"."tax_rate" '
    'FROM {keys} JOIN "orders" "o" ON "o"."id" = "k"."id" LEFT JOIN "customer" "cu" ON "cu"."id" = "o"."customer_id" '
    'LEFT JOIN "address" "sa" ON "sa"."id" = "o"."shipping_address_id" '
    'LEFT JOIN "sales_channel" "sc" ON "sc"."id" = "o"."sales_channel_id" '
    'LEFT JOIN "region" "r" ON "r"."id" = "o"."region_id"'
)
_CREATED: dict[str, Callable] = {}


class ExportedOrder:
    """One order as the export prints it: `row`, its columns in PRINTED's order, and its totals."""

    __slots__ = ("row", "totals", "created_at")

    def __init__(self, row, totals: OrderTotals, created_at: datetime):
        self.row, self.totals, self.created_at = row, totals, created_at


async def read_keys(qs: QuerySet) -> list:
    """The ids and creation times of `qs`'s orders (a page's keys), as the driver reads them: the
    ORM's own read converts every creation time (a tenth of the export's time), and a page needs
    only its last one, the next page's key. The statement is the ORM's (the dashboard's filters,
    the key to go on from), run as services/core/listing.py runs its pages."""
    query = qs.values_list("id", "created_at")
    query._choose_db_if_not_chosen()
    query._make_query()
    return (await query._db.execute_query(*query.query.get_parameterized_sql()))[1]


async def read_page(ids: list[str]) -> list[ExportedOrder]:
    """The orders `ids` that exist, in that order, with their totals (what `load_views` gives each
    as `totals`): two statements whatever the number of ids."""
    return build_page(ids, await fetch_page(ids))


async def fetch_page(ids: list[str]) -> tuple[list, list]:
    """The two statements' rows for the orders `ids` (for `build_page`), read side by side on
    PostgreSQL (two pooled connections; SQLite's one connection takes them in turn)."""
    if not ids:
        return [], []
    db = Order._meta.db
    dialect = db.capabilities.dialect
    (_, orders), rows = await asyncio.gather(
        db.execute_query(_ORDERS.format(keys=ID_TABLE[dialect]), [ids_value(dialect, ids)]), read_totals_rows(ids))
    return orders, rows


def build_page(ids: list[str], fetched: tuple[list, list]) -> list[ExportedOrder]:
    """The orders `ids` from what `fetch_page` read for them, with their totals."""
    orders, rows = fetched
    if not orders:
        return []
    dialect = Order._meta.db.capabilities.dialect
    created = _CREATED.get(dialect)
    if created is None:  # once the ORM knows its database: how a timestamp converts depends on the driver
        created = _CREATED[dialect] = timestamp_converter(Order, "created_at")
    totals = page_totals(((row[0], row[19], row[20], row[21]) for row in orders), rows)
    found = {row[0]: ExportedOrder(row, totals[row[0]], created(row[3])) for row in orders}
    return [found[i] for i in ids if i in found]

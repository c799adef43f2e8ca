"""The order list's lean read: a page of orders whose answer shows only the orders' own columns,
their totals and their one-row relations (Medusa's admin dashboard's order table: its columns,
`total` and the shipping address), in two statements whatever the page's size, read side by side
on PostgreSQL:

- the orders, each joined to the one-row relations the answer shows (of `ORDER_JOINS`) and to
  its region's two columns the totals read, built as `read_orders` builds them;
- the rows below them that their totals read, as lean rows, and the totals of them
  (services/orders/totals_reads.py), as the order export reads its pages.

The full view (services/orders/view.py `load_views`) builds every one-row relation and every row
below each order as a Tortoise instance, which cost a page of 15 orders most of its time.
tests/services/orders/test_list_reads.py holds the answers of both equal on both backends."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from models import Order
from services.core.sql import ID_TABLE, ids_value
from services.orders.order_reads import ORDER_JOINS, joined_order_sql, order_builders
from services.orders.totals import OrderTotals
from services.orders.totals_reads import page_totals, read_totals_rows
from services.orders.view import AfterSale

__all__ = ["LEAN_RELATIONS", "ListedOrder", "reads_lean", "read_listed"]

# What a lean page can show besides the orders' columns and totals: its one-row relations, and the
# order edits, which an order answer shows as an empty list.
LEAN_RELATIONS = frozenset({attr for attr, _, _ in ORDER_JOINS} | {"edits"})


def reads_lean(relations: tuple[str, ...]) -> bool:
    """Whether a list whose answer shows `relations` is read lean (`read_listed`)."""
    return all(r in LEAN_RELATIONS for r in relations)


@dataclass(slots=True)
class ListedOrder:
    """An order as the lean page has it: what an order answer (app/shapes/orders.py `order_json`)
    reads of a view that shows no row below the order."""

    order: Order  # with the one-row relations the page shows
    totals: OrderTotals
    after_sale: AfterSale = field(default_factory=AfterSale)  # none read: the answer shows none


_STATEMENTS: dict[tuple[str, tuple[str, ...]], str] = {}


def _statement(dialect: str, joined: tuple[str, ...]) -> str:
    sql = _STATEMENTS.get((dialect, joined))
    if sql is None:
        columns, tables = joined_order_sql(tuple(j for j in ORDER_JOINS if j[0] in joined))
        if "region" not in joined:  # its two columns the totals read
            columns += ', "r"."gift_cards_taxable" AS "r.gift_cards_taxable", "r"."tax_rate" AS "r.tax_rate"'
            tables += ' LEFT JOIN "region" "r" ON "r"."id" = "o"."region_id"'
        sql = _STATEMENTS[(dialect, joined)] = (
            f'SELECT {columns} FROM {ID_TABLE[dialect]} JOIN "orders" "o" ON "o"."id" = "k"."id" {tables}')
    return sql


async def read_listed(ids: list[str], relations: tuple[str, ...]) -> list[ListedOrder]:
    """The orders `ids` that exist, in that order, each with the one-row relations of `relations`
    (a list that `reads_lean`) and its totals: two statements whatever the number of ids."""
    if not ids:
        return []
    db = Order._meta.db
    dialect = db.capabilities.dialect
    joined = tuple(attr for attr, _, _ in ORDER_JOINS if attr in relations)
    (_, rows), below = await asyncio.gather(
        db.execute_query(_statement(dialect, joined), [ids_value(dialect, ids)]), read_totals_rows(ids))
    order_builder, relation_builders = order_builders(dialect)
    shown = [(attr, relation_builders[attr]) for attr in joined]
    orders = {}
    for row in rows:
        order = order_builder.build(row)
        for attr, builder in shown:
            object.__setattr__(order, f"_{attr}", builder.build(row))
        orders[order.id] = (order, row["r.gift_cards_taxable"], row["r.tax_rate"])
    totals = page_totals(((o.id, o.tax_rate, taxable, rate) for o, taxable, rate in orders.values()), below)
    return [ListedOrder(orders[i][0], totals[i]) for i in ids if i in orders]

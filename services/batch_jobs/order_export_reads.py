"""The order export's reader: a page of orders as the export prints them, with their totals, in
two statements whatever the page's size, and no model instance built.

What the view (services/orders/view.py `load_views`) reads for a page of 100 orders (every
column of the order, its region, customer, addresses and channel, and every row below it, built as
Tortoise instances) cost about 2 ms an order to print 26 columns. Here:

- one statement for the orders' printed columns, joined to their customer, shipping address and
  channel, and the two region columns their totals read;
- one UNION ALL for the rows their totals read (lines, their tax lines and adjustments, shipping
  methods and their tax lines, discounts with their rule's type, gift-card transactions with their
  card's rate, payments), only the columns `compute_totals` reads, as lean rows; a line's or a
  method's tax lines come as its rates in its own row;
- the totals by that same `compute_totals`, so the export's money is the order routes' money.

A page's keys (`read_keys`) are the ORM's statement (the export's filters, the key it goes on
from), run directly: the ORM converted every order's creation time, and only the last is used.

Where the order of rows changes the totals they come in the view's relation order (an order's
gift-card transactions, whose tax is rounded as it accumulates, and its discounts, whose first
amount discount is the one its lines count); the other rows count as sums (services/carts/totals.py),
so they come in no order (services/orders/totals_reads.py reads them the same way).

The page's orders are one parameter (an array on PostgreSQL, a JSON list on SQLite), so each
statement's text is the same for every page. tests/services/batch_jobs/test_order_export_reads.py
holds the CSV equal to the one built from the order views on both backends."""

from __future__ import annotations

import asyncio
import json
from collections import namedtuple
from collections.abc import Callable
from datetime import datetime

from tortoise.queryset import QuerySet

from models import Discount, GiftCardTransaction, Order
from services.core.sql import timestamp_converter
from services.core.union_rows import relation_order
from services.orders.totals import OrderTotals
from services.orders.view import compute_totals

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

# The rows below the orders, one kind a branch, each in the same slots:
# (kind, order id, row id or owner id, text, n1, n2, n3, rate, rate2, flag1, flag2, time, rates).
_ITEM, _ADJUSTMENT, _METHOD, _DISCOUNT, _TRANSACTION, _PAYMENT = range(6)
_TEXT, _INT, _RATE, _FLAG, _TIME = ("CAST(NULL AS TEXT)", "CAST(NULL AS BIGINT)", "CAST(NULL AS DOUBLE PRECISION)",
                                    "CAST(NULL AS BOOLEAN)", "CAST(NULL AS TIMESTAMPTZ)")
# A line's or a method's tax lines come in its own row, as their rates in one value (the rates
# slot; empty: it has none): an array on PostgreSQL, quoted numbers joined by commas on SQLite
# (quote() writes a REAL that reads back exactly). A second tax line as a row of its own cost
# PostgreSQL a look-up for every line, to find the rare line that has one: a third of the
# statement. The rates come in no order: a line's or a method's tax is a sum over its rates, each
# taken exactly (services/carts/totals.py).
_RATES = {
    "postgres": 'ARRAY(SELECT "f"."rate" FROM "{table}" "f" WHERE "f"."{owner}" = "{id}"."id")',
    "sqlite": '(SELECT group_concat(quote("f"."rate")) FROM "{table}" "f" WHERE "f"."{owner}" = "{id}"."id")',
}
_NO_RATES = {"postgres": "CAST(NULL AS DOUBLE PRECISION[])", "sqlite": "NULL"}
_BRANCHES = (
    f'SELECT {_ITEM}, "i"."order_id", "i"."id", {_TEXT}, "i"."unit_price", "i"."quantity", "i"."returned_quantity", '
    f'{_RATE}, {_RATE}, "i"."allow_discounts", "i"."includes_tax", {_TIME}, {{item_rates}} '
    'FROM {keys} JOIN "line_item" "i" ON "i"."order_id" = "k"."id"',
    f'SELECT {_ADJUSTMENT}, "i"."order_id", "x"."item_id", "x"."discount_id", "x"."amount", {_INT}, {_INT}, '
    f'{_RATE}, {_RATE}, {_FLAG}, {_FLAG}, {_TIME}, {{no_rates}} '
    'FROM {keys} JOIN "line_item" "i" ON "i"."order_id" = "k"."id" '
    'JOIN "line_item_adjustment" "x" ON "x"."item_id" = "i"."id"',
    f'SELECT {_METHOD}, "m"."order_id", "m"."id", {_TEXT}, "m"."price", {_INT}, {_INT}, '
    f'{_RATE}, {_RATE}, {_FLAG}, "m"."includes_tax", {_TIME}, {{method_rates}} '
    'FROM {keys} JOIN "shipping_method" "m" ON "m"."order_id" = "k"."id"',
    f'SELECT {_DISCOUNT}, "j"."order_id", "d"."id", "dr"."type", {_INT}, {_INT}, {_INT}, {_RATE}, {_RATE}, '
    f'{_FLAG}, {_FLAG}, "d"."created_at", {{no_rates}} '
    'FROM {keys} JOIN "order_discounts" "j" ON "j"."order_id" = "k"."id" '
    'JOIN "discount" "d" ON "d"."id" = "j"."discount_id" LEFT JOIN "discount_rule" "dr" ON "dr"."id" = "d"."rule_id"',
    f'SELECT {_TRANSACTION}, "x"."order_id", "x"."id", {_TEXT}, "x"."amount", {_INT}, {_INT}, "x"."tax_rate", '
    f'"g"."tax_rate", "x"."is_taxable", {_FLAG}, "x"."created_at", {{no_rates}} '
    'FROM {keys} JOIN "gift_card_transaction" "x" ON "x"."order_id" = "k"."id" '
    'LEFT JOIN "gift_card" "g" ON "g"."id" = "x"."gift_card_id"',
    f'SELECT {_PAYMENT}, "p"."order_id", "p"."id", {_TEXT}, "p"."amount", "p"."amount_refunded", {_INT}, {_RATE}, '
    f'{_RATE}, {_FLAG}, {_FLAG}, "p"."canceled_at", {{no_rates}} '
    'FROM {keys} JOIN "payment" "p" ON "p"."order_id" = "k"."id"',
)
# The page's ids as a table "k"("id"), from one parameter that every branch joins: a join, not
# `order_id = ANY(...)`, which PostgreSQL answers for a page of 2,000 by scanning each whole table.
_KEYS = {"postgres": 'unnest($1::text[]) AS "k"("id")',
         "sqlite": '(SELECT "value" AS "id" FROM json_each(?1)) AS "k"'}
_STATEMENTS: dict[str, tuple[str, str]] = {}


# Lean rows: only the attributes `compute_totals` reads.
_Item = namedtuple("_Item", "id unit_price quantity returned_quantity allow_discounts includes_tax")
_Method = namedtuple("_Method", "id price includes_tax")
_TaxLine = namedtuple("_TaxLine", "rate")
_Adjustment = namedtuple("_Adjustment", "amount discount_id")
_Discount = namedtuple("_Discount", "id rule created_at")
_Rule = namedtuple("_Rule", "type")
_Transaction = namedtuple("_Transaction", "id amount tax_rate is_taxable gift_card created_at")
_Card = namedtuple("_Card", "tax_rate")
_Payment = namedtuple("_Payment", "amount amount_refunded canceled_at")
_Order = namedtuple("_Order", "id tax_rate discounts region")
_Region = namedtuple("_Region", "gift_cards_taxable tax_rate")


class ExportedOrder:
    """One order as the export prints it: `row`, its columns in PRINTED's order, and its totals."""

    __slots__ = ("row", "totals", "created_at")

    def __init__(self, row, totals: OrderTotals, created_at: datetime):
        self.row, self.totals, self.created_at = row, totals, created_at


def _statements(dialect: str) -> tuple[str, str]:
    if dialect not in _STATEMENTS:
        keys, rates = _KEYS[dialect], _RATES[dialect]
        slots = dict(keys=keys, no_rates=_NO_RATES[dialect],
                     item_rates=rates.format(table="line_item_tax_line", owner="item_id", id="i"),
                     method_rates=rates.format(table="shipping_method_tax_line", owner="shipping_method_id", id="m"))
        _STATEMENTS[dialect] = (_ORDERS.format(keys=keys), " UNION ALL ".join(b.format(**slots) for b in _BRANCHES))
    return _STATEMENTS[dialect]


def _parameter(dialect: str, ids: list[str]):
    return list(ids) if dialect == "postgres" else json.dumps(ids)


_CREATED: dict[str, Callable] = {}


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
    orders_sql, rows_sql = _statements(dialect)
    value = [_parameter(dialect, ids)]
    (_, orders), (_, rows) = await asyncio.gather(db.execute_query(orders_sql, value), db.execute_query(rows_sql, value))
    return orders, rows


class _ByRow(dict):
    """Rows by their owner (a line or a shipping method) over a whole page, read as `compute_totals`
    reads its per-order dicts: an owner without rows has none."""

    __slots__ = ()

    def __missing__(self, key):
        return ()


def build_page(ids: list[str], fetched: tuple[list, list]) -> list[ExportedOrder]:
    """The orders `ids` from what `fetch_page` read for them, with their totals."""
    orders, rows = fetched
    if not orders:
        return []
    dialect = Order._meta.db.capabilities.dialect
    created = _CREATED.get(dialect)
    if created is None:  # once the ORM knows its database: how a timestamp converts depends on the driver
        created = _CREATED[dialect] = timestamp_converter(Order, "created_at")

    items: dict[str, list] = {}
    methods: dict[str, list] = {}
    payments: dict[str, list] = {}
    discounts: dict[str, list] = {}
    transactions: dict[str, list] = {}
    adjustments, item_taxes, method_taxes = _ByRow(), _ByRow(), _ByRow()
    # Few rate lists and regions on a page: each is one shared lean row (or tuple of them), not one a line.
    rates_seen: dict = {}
    for kind, order_id, key, text, n1, n2, n3, rate, rate2, flag1, flag2, when, rates in rows:
        if kind == _ITEM or kind == _METHOD:
            if kind == _ITEM:
                lean, listed, taxed = _Item(key, n1, n2, n3, flag1, flag2), items, item_taxes
            else:
                lean, listed, taxed = _Method(key, n1, flag2), methods, method_taxes
            if order_id in listed:
                listed[order_id].append(lean)
            else:
                listed[order_id] = [lean]
            if rates:
                seen = rates if type(rates) is str else tuple(rates)
                lines = rates_seen.get(seen)
                if lines is None:
                    lines = rates_seen[seen] = tuple(
                        [_TaxLine(float(r)) for r in (rates.split(",") if type(rates) is str else rates)])
                taxed[key] = lines
        elif kind == _PAYMENT:
            payments.setdefault(order_id, []).append(_Payment(n1, n2, when))
        elif kind == _ADJUSTMENT:
            adjustments.setdefault(key, []).append(_Adjustment(n1, text))
        elif kind == _DISCOUNT:
            discounts.setdefault(order_id, []).append(_Discount(key, _Rule(text), created(when)))
        else:
            transactions.setdefault(order_id, []).append(
                _Transaction(key, n1, rate, flag1, _Card(rate2), created(when)))
    by_discount, by_transaction = relation_order(Discount), relation_order(GiftCardTransaction)
    regions: dict = {}
    found = {}
    none: tuple = ()
    for row in orders:
        order_id = row[0]
        given = discounts.get(order_id, none)
        region = regions.get((row[20], row[21]))
        if region is None:
            region = regions[row[20], row[21]] = _Region(row[20], row[21])
        spent = transactions.get(order_id, none)
        totals = compute_totals(
            _Order(order_id, row[19], sorted(given, key=by_discount) if given else given, region),
            items.get(order_id, none), adjustments, item_taxes, methods.get(order_id, none), method_taxes,
            sorted(spent, key=by_transaction) if spent else spent, payments.get(order_id, none),
        )
        found[order_id] = ExportedOrder(row, totals, created(row[3]))
    return [found[i] for i in ids if i in found]

"""Orders' totals as their views have them, for readers that need the totals and not the views:
the same `compute_totals` (services/orders/view.py), given lean rows that carry only the columns it
reads.

`read_totals_rows` reads the rows below a page of orders that their totals read, in one UNION ALL
whatever the page's size, and `page_totals` makes each order's totals of them: lines, their tax
lines and adjustments, shipping methods and their tax lines, discounts with their rule's type,
gift-card transactions with their card's rate, payments, only the columns `compute_totals` reads,
as named tuples, no model instance built; a line's or a method's tax lines come as its rates in its
own row. The order export (services/batch_jobs/order_export_reads.py)
reads its pages' totals so.

Where the order of rows changes the totals they come in the view's relation order (an order's
gift-card transactions, whose tax is rounded as it accumulates, and its discounts, whose first
amount discount is the one its lines count); the other rows count as sums
(services/carts/totals.py), so they come in no order.

The page's orders are one parameter (services/core/sql.py `ID_TABLE`), so the statement's text is
the same for every page. tests/services/batch_jobs/test_order_export_reads.py holds the export's
totals equal to the views' on both backends.

`load_totals` gives many orders' totals at once, for a caller that needs only the totals (the
Medusa v1 move's money check): the orders' two columns and their region's that the totals read,
and the rows below them as above; tests/services/migration/test_money.py holds them equal to the
views' over the Medusa fixture's orders."""

from __future__ import annotations

import asyncio
from collections import namedtuple
from collections.abc import Callable, Iterable

from models import Discount, GiftCardTransaction, Order
from services.core.sql import ID_TABLE, ids_value, timestamp_converter
from services.core.union_rows import relation_order
from services.orders.totals import OrderTotals
from services.orders.view import compute_totals

__all__ = ["read_totals_rows", "page_totals", "load_totals"]

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
_STATEMENTS: dict[str, str] = {}
_CREATED: dict[str, Callable] = {}

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


async def read_totals_rows(ids: list[str]) -> list:
    """The rows below the orders `ids` that their totals read (for `page_totals`): one statement."""
    if not ids:
        return []
    db = Order._meta.db
    dialect = db.capabilities.dialect
    sql = _STATEMENTS.get(dialect)
    if sql is None:
        rates = _RATES[dialect]
        slots = dict(keys=ID_TABLE[dialect], no_rates=_NO_RATES[dialect],
                     item_rates=rates.format(table="line_item_tax_line", owner="item_id", id="i"),
                     method_rates=rates.format(table="shipping_method_tax_line", owner="shipping_method_id", id="m"))
        sql = _STATEMENTS[dialect] = " UNION ALL ".join(b.format(**slots) for b in _BRANCHES)
    _, rows = await db.execute_query(sql, [ids_value(dialect, ids)])
    return rows


class _ByRow(dict):
    """Rows by their owner (a line or a shipping method) over a whole page, read as `compute_totals`
    reads its per-order dicts: an owner without rows has none."""

    __slots__ = ()

    def __missing__(self, key):
        return ()


def page_totals(orders: Iterable[tuple], rows: list) -> dict[str, OrderTotals]:
    """The totals of `orders`, each (id, tax_rate, its region's gift_cards_taxable and tax_rate),
    from the rows `read_totals_rows` read for them, by id: what `load_views` gives each as `totals`."""
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
    out = {}
    none: tuple = ()
    for order_id, tax_rate, gift_cards_taxable, region_tax_rate in orders:
        given = discounts.get(order_id, none)
        region = regions.get((gift_cards_taxable, region_tax_rate))
        if region is None:
            region = regions[gift_cards_taxable, region_tax_rate] = _Region(gift_cards_taxable, region_tax_rate)
        spent = transactions.get(order_id, none)
        out[order_id] = compute_totals(
            _Order(order_id, tax_rate, sorted(given, key=by_discount) if given else given, region),
            items.get(order_id, none), adjustments, item_taxes, methods.get(order_id, none), method_taxes,
            sorted(spent, key=by_transaction) if spent else spent, payments.get(order_id, none),
        )
    return out


_ORDERS = ('SELECT "o"."id", "o"."tax_rate", "r"."gift_cards_taxable", "r"."tax_rate" FROM {keys} '
           'JOIN "orders" "o" ON "o"."id" = "k"."id" LEFT JOIN "region" "r" ON "r"."id" = "o"."region_id"')


async def load_totals(order_ids: list[str]) -> dict[str, OrderTotals]:
    """The totals of the orders `order_ids` that exist, by id: what `load_views` gives each as
    `totals`, read with two statements (side by side on PostgreSQL) whatever the number of orders."""
    if not order_ids:
        return {}
    ids = list(dict.fromkeys(order_ids))
    db = Order._meta.db
    dialect = db.capabilities.dialect
    (_, orders), rows = await asyncio.gather(
        db.execute_query(_ORDERS.format(keys=ID_TABLE[dialect]), [ids_value(dialect, ids)]), read_totals_rows(ids))
    return page_totals(orders, rows)

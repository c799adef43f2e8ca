"""Many orders' totals at once, as their views have them, for a caller that needs only the totals
(the Medusa v1 move's money check): the same `compute_totals` (services/orders/view.py), given
lean rows that carry only the columns it reads, one statement per table for the whole batch.
Where the order of rows changes the totals they are in the relation order the view's rows come
in: an order's gift-card transactions (their tax is rounded as it accumulates) and its discounts
(the first amount discount is the one its lines count). Lines, adjustments, tax lines, shipping
methods and payments count as sums of each row's own figures (services/carts/totals.py), so
they are read in no order: taking each one's creation time cost a third of the check on SQLite.

The view builds every column of the order, its region, customer, addresses and channel, and of
every row below it; these rows cost a fraction of that. tests/services/migration/test_money.py
holds them equal over the Medusa fixture's orders."""

from __future__ import annotations

from types import SimpleNamespace

from tortoise.expressions import Subquery

from models import (
    Discount, GiftCardTransaction, LineItem, LineItemAdjustment, LineItemTaxLine, Order, Payment, ShippingMethod,
    ShippingMethodTaxLine,
)
from services.core.sql import placeholders
from services.core.union_rows import relation_order
from services.orders.totals import OrderTotals
from services.orders.view import compute_totals

__all__ = ["load_totals"]


def _ordered(model, rows: list[dict]) -> list[SimpleNamespace]:
    lean = [SimpleNamespace(**row) for row in rows]
    lean.sort(key=relation_order(model))
    return lean


def _by(rows: list[SimpleNamespace], key: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for row in rows:
        out.setdefault(getattr(row, key), []).append(row)
    return out


def _order_fields(model) -> tuple[str, ...]:
    return getattr(model, "RELATION_ORDER", None) or ("created_at", "id")


async def _rows(model, query, *columns: str, ordered: bool = False) -> list[SimpleNamespace]:
    if not ordered:
        return [SimpleNamespace(**row) for row in await query.values(*columns)]
    return _ordered(model, await query.values(*dict.fromkeys((*columns, *_order_fields(model)))))


async def _discounts(order_ids: list[str]) -> dict[str, list[SimpleNamespace]]:
    """Each order's discounts (soft-deleted ones too, as the view has them), with their rule's type."""
    db = Order._meta.db
    marks = ", ".join(placeholders(db.capabilities.dialect, 1, len(order_ids)))
    _, links = await db.execute_query(
        f'SELECT "order_id", "discount_id" FROM "order_discounts" WHERE "order_id" IN ({marks})', list(order_ids))
    if not links:
        return {}
    found = {d.id: d for d in await _rows(
        Discount, Discount.filter(id__in={link["discount_id"] for link in links}), "id", "rule__type", ordered=True)}
    for d in found.values():
        d.rule = SimpleNamespace(type=d.rule__type)
    out: dict[str, list] = {}
    for link in links:
        if link["discount_id"] in found:
            out.setdefault(link["order_id"], []).append(found[link["discount_id"]])
    order = relation_order(Discount)
    return {order_id: sorted(given, key=order) for order_id, given in out.items()}


async def load_totals(order_ids: list[str]) -> dict[str, OrderTotals]:
    """The totals of the orders `order_ids` that exist, by id: what `load_views` gives each as
    `totals`, read with eight statements (nine with a discount) whatever the number of orders."""
    if not order_ids:
        return {}
    ids = list(order_ids)
    orders = await Order.filter(id__in=ids).values("id", "tax_rate", "region__gift_cards_taxable", "region__tax_rate")
    discounts = await _discounts(ids)
    items = _by(await _rows(LineItem, LineItem.filter(order_id__in=ids), "id", "order_id", "unit_price", "quantity",
                            "returned_quantity", "allow_discounts", "includes_tax"), "order_id")
    # By subquery, not a join: the ORM joins LEFT, which SQLite answers by reading the whole table.
    lines = Subquery(LineItem.filter(order_id__in=ids).values("id"))
    adjustments = _by(await _rows(LineItemAdjustment, LineItemAdjustment.filter(item_id__in=lines),
                                  "item_id", "amount", "discount_id"), "item_id")
    item_taxes = _by(await _rows(LineItemTaxLine, LineItemTaxLine.filter(item_id__in=lines), "item_id", "rate"),
                     "item_id")
    methods = _by(await _rows(ShippingMethod, ShippingMethod.filter(order_id__in=ids), "id", "order_id", "price",
                                   "includes_tax"),
                  "order_id")
    method_taxes = _by(await _rows(ShippingMethodTaxLine, ShippingMethodTaxLine.filter(
        shipping_method_id__in=Subquery(ShippingMethod.filter(order_id__in=ids).values("id"))),
                                   "shipping_method_id", "rate"), "shipping_method_id")
    transactions = await _rows(GiftCardTransaction, GiftCardTransaction.filter(order_id__in=ids),
                               "order_id", "amount", "tax_rate", "is_taxable", "gift_card__tax_rate", ordered=True)
    for t in transactions:
        t.gift_card = SimpleNamespace(tax_rate=t.gift_card__tax_rate)
    transactions = _by(transactions, "order_id")
    payments = _by(await _rows(Payment, Payment.filter(order_id__in=ids), "order_id", "amount", "amount_refunded",
                               "canceled_at"), "order_id")
    out = {}
    for row in orders:
        order = SimpleNamespace(
            id=row["id"], tax_rate=row["tax_rate"], discounts=discounts.get(row["id"], []),
            region=SimpleNamespace(gift_cards_taxable=row["region__gift_cards_taxable"],
                                   tax_rate=row["region__tax_rate"]),
        )
        mine, shipped = items.get(order.id, []), methods.get(order.id, [])
        out[order.id] = compute_totals(
            order=order, items=mine, shipping_methods=shipped,
            adjustments={i.id: adjustments.get(i.id, []) for i in mine},
            item_tax_lines={i.id: item_taxes.get(i.id, []) for i in mine},
            method_tax_lines={m.id: method_taxes.get(m.id, []) for m in shipped},
            gift_card_transactions=transactions.get(order.id, []), payments=payments.get(order.id, []),
        )
    return out

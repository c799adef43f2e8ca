"""The move proves itself: each order's total, paid and refunded amounts and each gift card's
balance, as our services compute them, against the source's own figures.

Medusa v1 stores no order totals; its figures are the payments it took (not canceled), the
refunds it made, and the gift cards' balances. An order's total is compared where it equals what
was charged: paid by payments, and untouched by returns, exchanges, claims or edits (our total
counts lines net of what came back; Medusa's does not)."""

from __future__ import annotations

from datetime import datetime

from models import GiftCard
from services.migration.medusa_v1.differences import Differences
from services.migration.medusa_v1.source import Source
from services.orders.totals_reads import load_totals

__all__ = ["check_money", "ORDER_FIGURES", "FIGURES_FROM"]

CHUNK = 1000

# The entities an order's figures come from: when each has a mark, a re-run checks only the orders
# one of them changed since.
FIGURES_FROM = {
    "orders": '"order" x WHERE x.id', "payments": "payment x WHERE x.order_id", "refunds": "refund x WHERE x.order_id",
    "returns": '"return" x WHERE x.order_id', "swaps": "swap x WHERE x.order_id",
    "claims": "claim_order x WHERE x.order_id", "order edits": "order_edit x WHERE x.order_id",
    "line items": "line_item x WHERE x.order_id",
}

ORDER_FIGURES = """
SELECT o.id, o.display_id,
  (SELECT coalesce(sum(p.amount), 0) FROM payment p WHERE p.order_id = o.id AND p.canceled_at IS NULL) AS paid,
  (SELECT coalesce(sum(r.amount), 0) FROM refund r WHERE r.order_id = o.id) AS refunded,
  NOT EXISTS (SELECT 1 FROM return r WHERE r.order_id = o.id)
    AND NOT EXISTS (SELECT 1 FROM swap s WHERE s.order_id = o.id)
    AND NOT EXISTS (SELECT 1 FROM claim_order c WHERE c.order_id = o.id)
    AND NOT EXISTS (SELECT 1 FROM order_edit e WHERE e.order_id = o.id AND e.confirmed_at IS NOT NULL) AS untouched
FROM "order" o {where} ORDER BY o.id
"""


def _changed(since: dict[str, datetime] | None, tables: dict[str, str], alias: str) -> str:
    """The condition (on `alias`) of rows one of `tables` changed since the marks, or that $1
    lists (they differed before); "" on a first (or interrupted) run, which checks everything."""
    if not since or not all(name in since for name in tables):
        return ""
    stamp = "'{}'::timestamptz"
    return "WHERE " + " OR ".join([
        f"EXISTS (SELECT 1 FROM {table} = {alias}.id AND x.updated_at >= {stamp.format(since[name].isoformat())})"
        for name, table in tables.items()
    ] + [f"{alias}.id = ANY($1::text[])"])


async def check_money(
    source: Source, batch_rows: int = CHUNK, since: dict[str, datetime] | None = None,
    again: Differences | None = None,
) -> tuple[list[str], int]:
    """One line per difference (none: the money arrived whole), and how many orders were checked.
    With `since` (the last run's marks), only orders and gift cards changed since are checked,
    and those that differed before (`again`) whatever changed."""
    differences: list[str] = []
    checked = 0
    where = _changed(since, FIGURES_FROM, "o")
    orders = ORDER_FIGURES.format(where=where)
    args = [again.to_check("order") if again else []] if where else []
    async for rows in source.stream(orders, batch_rows, *args):
        checked += len(rows)
        totals = await load_totals([r["id"] for r in rows])
        for row in rows:
            ours = totals.get(row["id"])
            if ours is None:
                differences.append(f"order {row['id']} (#{row['display_id']}) is missing")
                continue
            figures = [("paid", row["paid"], ours.paid_total), ("refunded", row["refunded"], ours.refunded_total)]
            if row["untouched"] and row["paid"]:
                figures.append(("total", row["paid"], ours.total))
            differences += [
                f"order {row['id']} (#{row['display_id']}): {name} {theirs} in Medusa, {mine} here"
                for name, theirs, mine in figures if theirs != mine
            ]
    cards = _changed(since, {"gift cards": "gift_card x WHERE x.id"}, "g")
    args = [again.to_check("gift card") if again else []] if cards else []
    async for rows in source.stream(f"SELECT g.id, g.balance FROM gift_card g {cards} ORDER BY g.id", batch_rows, *args):
        balances = dict(await GiftCard.filter(id__in=[r["id"] for r in rows]).values_list("id", "balance"))
        differences += [
            f"gift card {r['id']}: balance {r['balance']} in Medusa, {balances.get(r['id'], 'missing')} here"
            for r in rows if balances.get(r["id"]) != r["balance"]
        ]
    return differences, checked

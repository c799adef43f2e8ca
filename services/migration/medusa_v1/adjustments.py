"""Medusa's line adjustments in whole minor units, as its own totals read them.

Medusa v1 spreads a fixed discount over a cart's lines in proportion to each line's price, and
stores each share as it computed it: a fraction (`numeric`: 464.6175… and 35.3824… of 500).
Its totals round where they read them (packages/medusa/src/services/new-totals.ts
`getLineItemTotals`, services/order.ts `decorateTotals`): a line's `discount_total` is
`Math.round` of its adjustments' sum, its tax is taken on its price less the unrounded sum, each
tax line rounded, and the order's `discount_total` is `Math.round` of the sum over its lines.

Here an adjustment is whole units, and totals add them up, so the move chooses for each line
whole units within one of its sum that give the order (or cart) Medusa's `discount_total` and,
where one of the two nearest does, each line Medusa's tax: a line takes its sum rounded as
Medusa rounds it, or the other neighbour when only that one keeps the line's tax as Medusa's;
then, where the lines' units do not add up to Medusa's rounded total, as many lines as the units
missing (or over) take their other neighbour, those whose tax stays Medusa's first, then those
nearest their fraction. A line with several adjustments gives each its own rounded amount but
the last, which takes the rest of the line's units.

One statement (an order's lines are seen together); `whole_amount` is the amount to keep.
"""

from __future__ import annotations

__all__ = ["adjustments_select"]


def _taxes(units: str) -> str:
    """A line's tax, each tax line rounded half up, on its price less `units` (Medusa's rate as
    its text: a `real` of 7.7 is 7.69999… as a number)."""
    return f"coalesce(sum(floor((i.subtotal - ({units})) * x.rate::text::numeric / 100 + 0.5)), 0)"


def adjustments_select(kept_line: str) -> str:
    """Every adjustment of a line that `kept_line` (a condition on `li`, the line) keeps, with
    its line's subtotal, the order or cart it counts in, and `whole_amount`."""
    return f"""
WITH a AS (
  SELECT t.*, li.unit_price * li.quantity AS line_subtotal,
         coalesce(li.order_id, li.swap_id, li.claim_order_id, li.cart_id, li.id) AS whole
  FROM line_item_adjustment t JOIN line_item li ON li.id = t.item_id WHERE {kept_line}
), i AS (
  SELECT item_id, min(whole) AS whole, min(line_subtotal) AS subtotal, sum(amount) AS raw,
         floor(sum(amount) + 0.5) AS near
  FROM a GROUP BY item_id
), taxed AS (
  SELECT i.*, i.near + sign(i.raw - i.near) AS other, tx.*
  FROM i LEFT JOIN LATERAL (
    SELECT {_taxes("i.raw")} AS tax_raw, {_taxes("i.near")} AS tax_near,
           {_taxes("i.near + sign(i.raw - i.near)")} AS tax_other
    FROM line_item_tax_line x WHERE x.item_id = i.item_id
  ) tx ON true
), chosen AS (
  SELECT taxed.*,
         CASE WHEN tax_near = tax_raw OR tax_other <> tax_raw THEN near ELSE other END AS units,
         CASE WHEN tax_near = tax_raw OR tax_other <> tax_raw THEN other ELSE near END AS alternative,
         CASE WHEN tax_near = tax_raw OR tax_other <> tax_raw THEN tax_other ELSE tax_near END = tax_raw AS keeps_tax
  FROM taxed
), short AS (
  SELECT chosen.*,
         floor(sum(raw) OVER (PARTITION BY whole) + 0.5) - sum(units) OVER (PARTITION BY whole) AS missing
  FROM chosen
), ranked AS (
  SELECT short.*,
         row_number() OVER (PARTITION BY whole, alternative - units = sign(missing)
                            ORDER BY keeps_tax DESC, abs(raw - alternative), item_id) AS turn
  FROM short
), line AS (
  SELECT item_id,
         CASE WHEN missing <> 0 AND alternative - units = sign(missing) AND turn <= abs(missing)
              THEN alternative ELSE units END AS units
  FROM ranked
)
SELECT a.*, (CASE WHEN row_number() OVER (PARTITION BY a.item_id ORDER BY a.id DESC) = 1
                  THEN line.units - sum(floor(a.amount + 0.5)) OVER (PARTITION BY a.item_id) + floor(a.amount + 0.5)
                  ELSE floor(a.amount + 0.5) END)::bigint AS whole_amount
FROM a JOIN line ON line.item_id = a.item_id ORDER BY a.id"""

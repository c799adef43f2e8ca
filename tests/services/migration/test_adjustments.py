"""Medusa's fractional line adjustments (a fixed discount spread over lines) arrive as whole
units whose order totals are Medusa's, on both backends alike."""

import io
from math import floor

import pytest

from models import LineItemAdjustment
from services.migration.medusa_v1 import Progress, move
from tests.services.migration.conftest import source_fetch
from tests.services.migration.test_orders import _admin


def _js_round(value: float) -> int:
    return floor(value + 0.5)


def _medusa_totals(lines, shipping, value: int) -> dict:
    """Medusa 1.20's order totals (services/order.ts `decorateTotals`) with a fixed discount of
    `value` over the lines (services/discount.ts: each line's share of the subtotal, unrounded),
    and the shares it stores."""
    subtotal = sum(line["subtotal"] for line in lines)
    shares = {line["id"]: value * (line["subtotal"] / subtotal) for line in lines}
    item_tax = sum(_js_round((line["subtotal"] - shares[line["id"]]) * rate / 100)
                   for line in lines for rate in line["rates"])
    shipping_tax = sum(_js_round(method["price"] * rate / 100) for method in shipping for rate in method["rates"])
    shipping_total = sum(method["price"] for method in shipping)
    discount_total = _js_round(sum(shares.values()))
    return {"shares": shares, "subtotal": subtotal, "discount_total": discount_total,
            "tax_total": item_tax + shipping_tax,
            "total": subtotal + shipping_total + item_tax + shipping_tax - discount_total}


async def _give_fixed_discount(url: str, run, display_id: int, value: int) -> tuple[str, dict]:
    """The order `display_id` as Medusa stores it when placed with a fixed discount of `value`
    spread over its lines: the rule, the discount, its link, one adjustment per line, and the
    payment of the total it then charged."""
    order = (await source_fetch(url, 'SELECT id FROM "order" WHERE display_id = $1', display_id))[0]["id"]
    lines = await source_fetch(url, "SELECT li.id, li.unit_price * li.quantity AS subtotal,"
                               " coalesce(array_agg(t.rate::text::float8) FILTER (WHERE t.id IS NOT NULL), '{}') AS rates"
                               " FROM line_item li LEFT JOIN line_item_tax_line t ON t.item_id = li.id"
                               " WHERE li.order_id = $1 GROUP BY li.id ORDER BY li.id", order)
    shipping = await source_fetch(url, "SELECT sm.id, sm.price, coalesce(array_agg(t.rate::text::float8)"
                                  " FILTER (WHERE t.id IS NOT NULL), '{}') AS rates FROM shipping_method sm"
                                  " LEFT JOIN shipping_method_tax_line t ON t.shipping_method_id = sm.id"
                                  " WHERE sm.order_id = $1 GROUP BY sm.id", order)
    medusa = _medusa_totals(lines, shipping, value)
    tag = f"{display_id:04d}"
    sql = [f"INSERT INTO discount_rule (id, type, value, allocation) VALUES ('dru_FIXED{tag}', 'fixed', {value}, 'total')",
           f"INSERT INTO discount (id, code, is_dynamic, rule_id, is_disabled, starts_at) VALUES"
           f" ('disc_FIXED{tag}', 'FIXED{tag}', false, 'dru_FIXED{tag}', false, now())",
           f"INSERT INTO order_discounts (order_id, discount_id) VALUES ('{order}', 'disc_FIXED{tag}')",
           f"UPDATE payment SET amount = {medusa['total']} WHERE order_id = '{order}'"]
    # The share as JavaScript writes the number, which is what Medusa's numeric column holds.
    sql += [f"INSERT INTO line_item_adjustment (id, item_id, description, discount_id, amount) VALUES"
            f" ('lia_FIXED{tag}{i}', '{item}', 'discount', 'disc_FIXED{tag}', {share!r})"
            for i, (item, share) in enumerate(medusa["shares"].items())]
    await run(";".join(sql))
    return order, medusa


async def test_a_fixed_discount_over_three_lines_moves_in_whole_units_with_medusas_totals(medusa_copy, client):
    url, run = medusa_copy
    # Given three orders of three lines each placed with a fixed discount in Medusa: shares
    # whose rounding loses a unit (#120), whose rounding changes a line's tax (#121), and both
    # at once with two tax rates (#119)
    placed = {n: await _give_fixed_discount(url, run, n, value) for n, value in ((120, 700), (121, 500), (119, 1000))}
    assert any(share != int(share) for _, m in placed.values() for share in m["shares"].values())
    # When the shop moves
    report = await move(url, progress=Progress(io.StringIO()))
    # Then every amount is whole and each order's totals are Medusa's
    assert report.money_differences == []
    headers = await _admin(client)
    for order, medusa in placed.values():
        adjustments = await LineItemAdjustment.filter(discount_id__startswith="disc_FIXED", item__order_id=order)
        assert len(adjustments) == 3 and all(type(a.amount) is int for a in adjustments)
        for a in adjustments:
            assert abs(a.amount - medusa["shares"][a.item_id]) < 1
        r = await client.get(f"/admin/orders/{order}", headers=headers)
        assert r.status_code == 200, r.text
        got = r.json()["order"]
        for name in ("subtotal", "discount_total", "tax_total", "total"):
            assert type(got[name]) is int and got[name] == medusa[name], (order, name, got[name], medusa[name])
        assert got["total"] == got["paid_total"]


@pytest.mark.parametrize("shares,rounded", [
    ((464.6175839885632, 35.38241601143685), (465, 35)),  # a shop's pair of 500: rounds as it is
    ((166.66666666666666, 166.66666666666666, 166.66666666666666), (166, 167, 167)),  # one unit over: the first gives it back
])
async def test_shares_without_tax_add_up_to_medusas_rounded_discount(medusa_copy, shares, rounded):
    url, run = medusa_copy
    lines = await source_fetch(url, "SELECT li.id FROM line_item li WHERE li.order_id = (SELECT li2.order_id"
                               " FROM line_item li2 WHERE li2.order_id IS NOT NULL GROUP BY li2.order_id"
                               f" HAVING count(*) = {len(shares)} ORDER BY li2.order_id LIMIT 1) ORDER BY li.id")
    await run(";".join(f"DELETE FROM line_item_tax_line WHERE item_id = '{line['id']}';"
                       f"INSERT INTO line_item_adjustment (id, item_id, description, amount) VALUES"
                       f" ('lia_SHARE{i}', '{line['id']}', 'discount', {share!r})" for i, (line, share) in enumerate(zip(lines, shares))))
    await move(url, progress=Progress(io.StringIO()))
    got = await LineItemAdjustment.filter(id__startswith="lia_SHARE").order_by("id").values_list("amount", flat=True)
    assert tuple(got) == rounded

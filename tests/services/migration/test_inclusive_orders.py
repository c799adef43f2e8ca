"""A tax-inclusive shop moved from Medusa v1.20 (tests/fixtures/medusa_inclusive, made by Medusa
itself with `tax_inclusive_pricing` on) reads through our `GET /admin/orders/{id}` with the money
Medusa's own answered for each order: the order's totals, each line's totals and `refundable`,
each shipping method's, the payments, refunds, returns, exchanges, claims and gift card use
(`order_differences` in tests/medusa_inclusive_factories.py says which, and where ours differs by
design)."""

from __future__ import annotations

import pytest

from tests.medusa_inclusive_factories import ANSWERS, order_differences

ORDERS = {name: spec["order_id"] for name, spec in {**ANSWERS["carts"], **ANSWERS["drafts"]}.items()}


async def _admin(client) -> dict:
    r = await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"})
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


def test_the_recorded_answers_cover_every_kind_of_order():
    kinds = " ".join(ANSWERS["work"].values())
    assert all(kind in kinds for kind in ("returned", "refunded", "exchanged", "claimed", "edited"))
    assert {spec["region"] for spec in ANSWERS["carts"].values()} == {"uk", "eu", "us"}
    assert len(ORDERS) == len(ANSWERS["orders"]) == 20


@pytest.mark.parametrize("name", sorted(ORDERS))
async def test_a_moved_inclusive_shop_order_reads_with_medusas_money(imported_inclusive, client, name):
    # Given the shop Medusa made, moved
    order_id = ORDERS[name]
    # When its order is read through our admin API
    r = await client.get(f"/admin/orders/{order_id}", headers=await _admin(client))
    # I expect Medusa's own figures, field by field
    assert r.status_code == 200, r.text
    differences = order_differences(ANSWERS["orders"][order_id], r.json()["order"], same_ids=True)
    assert not differences, f"{name}: {len(differences)} differ (Medusa's, ours): {differences}"

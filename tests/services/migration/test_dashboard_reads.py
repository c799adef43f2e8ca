"""The moved shop as the dashboard reads it: every list page and every order's page answer
without a failing call."""

import pytest

from tests.app.admin.test_orders import DASHBOARD_EXPAND

LISTS = [
    "/admin/orders", "/admin/products", "/admin/customers", "/admin/customer-groups", "/admin/discounts",
    "/admin/gift-cards", "/admin/draft-orders", "/admin/price-lists", "/admin/collections", "/admin/regions",
    "/admin/sales-channels", "/admin/publishable-api-keys", "/admin/users", "/admin/invites", "/admin/store",
    "/admin/return-reasons", "/admin/shipping-profiles", "/admin/shipping-options", "/admin/tax-rates",
    "/admin/returns", "/admin/swaps", "/admin/order-edits", "/admin/notes", "/admin/notifications",
    "/admin/currencies", "/admin/product-categories", "/admin/variants",
]


@pytest.fixture
async def headers(imported, client):
    r = await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"})
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


async def test_every_list_page_answers(client, headers):
    failing = []
    for path in LISTS:
        r = await client.get(path, headers=headers)
        if r.status_code != 200:
            failing.append((path, r.status_code, r.text[:200]))
    assert failing == []


async def test_every_order_page_answers_with_what_the_dashboard_expands(client, headers):
    listed = await client.get("/admin/orders", params={"limit": 300, "expand": "customer,shipping_address"}, headers=headers)
    assert listed.status_code == 200 and listed.json()["count"] == 223
    failing = []
    for order in listed.json()["orders"]:
        r = await client.get(f"/admin/orders/{order['id']}", params={"expand": DASHBOARD_EXPAND}, headers=headers)
        if r.status_code != 200:
            failing.append((order["id"], r.status_code, r.text[:200]))
    assert failing == []

"""Factories for order edit tests: an order placed through the API (a real cart completed), an
edit of it made by the back office, its line changes, the request, and the shopper's payment of
the amount due."""

from __future__ import annotations

from tests.checkout_factories import complete, ready_cart

__all__ = [
    "place", "new_edit", "add", "set_quantity", "remove", "request", "requested_edit", "pay", "line_of", "TOTALS",
]

TOTALS = (
    "subtotal", "discount_total", "shipping_total", "gift_card_total", "gift_card_tax_total", "tax_total", "total",
    "difference_due",
)


async def place(client, region: str = "EU", items: dict[str, int] | None = None, **changes) -> dict:
    """An order of `{variant_id: quantity}` placed by completing a ready cart (shipping 10.00)."""
    cart = await ready_cart(client, region, items or {"variant_t_shirt_s": 2}, **changes)
    r = await complete(client, cart)
    assert r.status_code == 200, r.text
    return r.json()["data"]


async def _edit_call(client, headers, method: str, path: str, body: dict | None = None) -> dict:
    r = await client.request(method, f"/admin/order-edits{path}", json=body, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["order_edit"]


async def new_edit(client, headers, order: dict, **body) -> dict:
    return await _edit_call(client, headers, "POST", "", {"order_id": order["id"], **body})


async def add(client, headers, edit: dict, variant_id: str, quantity: int = 1) -> dict:
    return await _edit_call(client, headers, "POST", f"/{edit['id']}/items",
                            {"variant_id": variant_id, "quantity": quantity})


def line_of(edit: dict, variant_id: str) -> dict:
    return next(i for i in edit["items"] if i["variant_id"] == variant_id)


async def set_quantity(client, headers, edit: dict, variant_id: str, quantity: int) -> dict:
    item = line_of(edit, variant_id)
    return await _edit_call(client, headers, "POST", f"/{edit['id']}/items/{item['id']}", {"quantity": quantity})


async def remove(client, headers, edit: dict, variant_id: str) -> dict:
    item = line_of(edit, variant_id)
    return await _edit_call(client, headers, "DELETE", f"/{edit['id']}/items/{item['id']}")


async def request(client, headers, edit: dict, **body) -> dict:
    return await _edit_call(client, headers, "POST", f"/{edit['id']}/request", body)


async def requested_edit(client, headers, *, region: str = "EU", items: dict[str, int] | None = None,
                         adding: dict[str, int] | None = None) -> tuple[dict, dict]:
    """(order, edit): an order and a requested edit of it that adds `adding` (a cap by default)."""
    order = await place(client, region, items)
    edit = await new_edit(client, headers, order)
    for variant_id, quantity in (adding or {"variant_cap_black": 1}).items():
        edit = await add(client, headers, edit, variant_id, quantity)
    return order, await request(client, headers, edit)


async def pay(client, collection_id: str, provider_id: str = "manual") -> dict:
    """The shopper pays the collection: a session for the provider, then its authorization."""
    r = await client.post(f"/store/payment-collections/{collection_id}/sessions", json={"provider_id": provider_id})
    assert r.status_code == 200, r.text
    session = r.json()["payment_collection"]["payment_sessions"][0]
    r = await client.post(f"/store/payment-collections/{collection_id}/sessions/{session['id']}/authorize")
    assert r.status_code == 200, r.text
    return r.json()["payment_session"]

"""The order-edit transition table (services/order_edits/edits.TRANSITIONS) is what the routes
enforce: every use case from every status, through the admin routes and the store's complete and
decline. The edit lowers a t-shirt from 2 to 1, so nothing is due and the shopper may complete
it without paying."""

from __future__ import annotations

import pytest

from models import OrderEdit
from services.order_edits.edits import TRANSITIONS
from services.order_edits.totals import edit_status
from tests.order_edit_factories import new_edit, place, request, set_quantity

STATUSES = ("created", "requested", "confirmed", "declined", "canceled")


async def edit_in(client, headers, status: str) -> dict:
    """An edit of a placed order with one change (a t-shirt 2 -> 1), brought to `status`."""
    edit = await set_quantity(client, headers, await new_edit(client, headers, await place(client)),
                              "variant_t_shirt_s", 1)
    if status in ("requested", "declined"):
        edit = await request(client, headers, edit)
    moves = {"confirmed": "/admin/order-edits/{id}/confirm", "canceled": "/admin/order-edits/{id}/cancel",
             "declined": "/store/order-edits/{id}/decline"}
    if status in moves:
        r = await client.post(moves[status].format(id=edit["id"]), json={}, headers=headers)
        assert r.status_code == 200, r.text
        edit = r.json()["order_edit"]
    assert edit["status"] == status
    return edit


async def attempt(client, headers, edit: dict, use_case: str):
    """Ask for `use_case` on the edit through its route."""
    edit_id, item_id = edit["id"], edit["items"][0]["id"]
    method, path, body = {
        "add_item": ("POST", f"/admin/order-edits/{edit_id}/items", {"variant_id": "variant_cap_black", "quantity": 1}),
        "update_item": ("POST", f"/admin/order-edits/{edit_id}/items/{item_id}", {"quantity": 2}),
        "remove_item": ("DELETE", f"/admin/order-edits/{edit_id}/items/{item_id}", None),
        "delete_change": ("DELETE", f"/admin/order-edits/{edit_id}/changes/{edit['changes'][0]['id']}", None),
        "delete": ("DELETE", f"/admin/order-edits/{edit_id}", None),
        "request": ("POST", f"/admin/order-edits/{edit_id}/request", {}),
        "confirm": ("POST", f"/admin/order-edits/{edit_id}/confirm", {}),
        "cancel": ("POST", f"/admin/order-edits/{edit_id}/cancel", {}),
        "complete": ("POST", f"/store/order-edits/{edit_id}/complete", {}),
        "decline": ("POST", f"/store/order-edits/{edit_id}/decline", {}),
    }[use_case]
    return await client.request(method, path, json=body, headers=headers)


async def status_of(edit_id: str) -> str | None:
    row = await OrderEdit.get_or_none(id=edit_id)
    return None if row is None else edit_status(row)


def test_the_table_covers_every_use_case_that_checks_a_status():
    assert set(TRANSITIONS) == {
        "add_item", "update_item", "remove_item", "delete_change", "delete", "request", "confirm", "cancel",
        "complete", "decline",
    }
    for transition in TRANSITIONS.values():
        assert set(transition.allowed) <= set(STATUSES) and transition.to in (*STATUSES, None)


@pytest.mark.parametrize("status", STATUSES)
async def test_a_use_case_not_allowed_from_a_status_is_refused_or_changes_nothing(client, admin_headers, seeded,
                                                                                   status):
    # Given an edit in `status`
    edit = await edit_in(client, admin_headers, status)
    for use_case, transition in TRANSITIONS.items():
        if status in transition.allowed:
            continue
        # When a use case the table does not allow from there is asked for
        r = await attempt(client, admin_headers, edit, use_case)
        if status == transition.to:
            # I expect a repeat of what already happened to answer the edit as it is
            assert r.status_code == 200, (use_case, r.text)
        else:
            # and anything else refused with the table's message
            assert (r.status_code, r.json()["type"]) == (400, "not_allowed"), (use_case, r.text)
            assert r.json()["message"] == transition.refusal.format(id=edit["id"], status=status)
        # and the edit still in its status
        assert await status_of(edit["id"]) == status, use_case


@pytest.mark.parametrize("use_case,status", [
    (use_case, status) for use_case, transition in TRANSITIONS.items() for status in transition.allowed
])
async def test_a_use_case_allowed_from_a_status_leads_where_the_table_says(client, admin_headers, seeded, use_case,
                                                                           status):
    edit = await edit_in(client, admin_headers, status)
    r = await attempt(client, admin_headers, edit, use_case)
    assert r.status_code == 200, r.text
    assert await status_of(edit["id"]) == TRANSITIONS[use_case].to

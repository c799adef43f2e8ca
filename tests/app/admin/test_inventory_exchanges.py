"""Stock per location for what follows an order (INVENTORY_LOCATIONS): a claim's
replacements and a swap's new items are reserved at the order's channel, fulfilled from a
location and released by a cancel; a confirmed order edit carries the lines' reservations over, less what it drops and plus
what it adds."""

from __future__ import annotations

from models import LineItem, ReservationItem
from tests.app.admin.test_claims import claim, na_option
from tests.app.admin.test_returns import line, shipped_order
from tests.app.admin.test_swaps import made, pay_swap_cart
from tests.order_edit_factories import add, new_edit, place, remove, set_quantity
from tests.stock_location_factories import in_step, levels, location, locations_on, reservations, stock_at

__all__ = ["locations_on"]

CAP, SHIRT_S, SHIRT_M = "variant_cap_black", "variant_t_shirt_s", "variant_t_shirt_m"


def replacement(order: dict, option_id: str) -> dict:
    return {"type": "replace", "claim_items": [{"item_id": line(order, SHIRT_S), "quantity": 1,
                                                "reason": "production_failure"}],
            "additional_items": [{"variant_id": SHIRT_M, "quantity": 2}],
            "shipping_methods": [{"option_id": option_id, "price": 0}]}


async def test_a_claims_replacements_are_reserved_fulfilled_from_a_location_and_released(
        client, admin_headers, seeded, locations_on):
    # Given medium shirts at two locations of the default channel, and a shipped order
    shop, warehouse = await location("Shop"), await location("Warehouse")
    item = await stock_at(SHIRT_M, {shop: 1, warehouse: 3})
    order = await shipped_order(client, admin_headers)
    # When two medium shirts replace a small one
    o = (await claim(client, admin_headers, order, **replacement(order, await na_option())))["order"]
    [c] = o["claims"]
    [extra] = c["additional_items"]
    # I expect them held at the warehouse, which has both
    assert await reservations(inventory_item_id=item) == [(extra["id"], warehouse, 2)]
    assert await levels(item) == {shop: (1, 0), warehouse: (3, 2)}
    # and the fulfilment from the warehouse sends them from there
    path = f"/admin/orders/{order['id']}/claims/{c['id']}"
    r = await client.post(f"{path}/fulfillments", headers=admin_headers, json={"location_id": warehouse})
    assert r.status_code == 200, r.text
    assert await levels(item) == {shop: (1, 0), warehouse: (1, 0)}
    assert await ReservationItem.all().count() == 0 and await in_step(SHIRT_M) == 2


async def test_canceling_a_claim_releases_its_replacements(client, admin_headers, seeded, locations_on):
    shop = await location("Shop")
    item = await stock_at(SHIRT_M, {shop: 4})
    order = await shipped_order(client, admin_headers)
    c = (await claim(client, admin_headers, order, **replacement(order, await na_option())))["order"]["claims"][0]
    assert await levels(item) == {shop: (4, 2)}
    r = await client.post(f"/admin/orders/{order['id']}/claims/{c['id']}/cancel", headers=admin_headers)
    assert r.status_code == 200, r.text
    assert await levels(item) == {shop: (4, 0)} and await ReservationItem.all().count() == 0
    assert await in_step(SHIRT_M) == 4


async def confirm(client, admin_headers, edit: dict):
    return await client.post(f"/admin/order-edits/{edit['id']}/confirm", headers=admin_headers)


async def test_a_confirmed_edit_carries_the_reservations_over(client, admin_headers, seeded, locations_on):
    # Given an order of three caps held at the warehouse
    shop, warehouse = await location("Shop"), await location("Warehouse")
    caps = await stock_at(CAP, {shop: 1, warehouse: 5})
    shirts = await stock_at(SHIRT_M, {shop: 2})
    order = await place(client, "NA", {CAP: 3})
    assert await levels(caps) == {shop: (1, 0), warehouse: (5, 3)}
    # When an edit keeps one cap and adds two medium shirts, and is confirmed
    edit = await new_edit(client, admin_headers, order)
    edit = await set_quantity(client, admin_headers, edit, CAP, 1)
    edit = await add(client, admin_headers, edit, SHIRT_M, 2)
    r = await confirm(client, admin_headers, edit)
    assert r.status_code == 200, r.text
    # I expect the order's cap line (the edit's) to hold one cap, and the shirts held at the shop
    lines = {line.variant_id: line.id for line in await LineItem.filter(order_id=order["id"])}
    assert await reservations(inventory_item_id=caps) == [(lines[CAP], warehouse, 1)]
    assert await levels(caps) == {shop: (1, 0), warehouse: (5, 1)}
    assert await reservations(inventory_item_id=shirts) == [(lines[SHIRT_M], shop, 2)]
    assert (await in_step(CAP), await in_step(SHIRT_M)) == (5, 0)
    # and a second edit removing the cap lets it go
    edit = await remove(client, admin_headers, await new_edit(client, admin_headers, {"id": order["id"]}), CAP)
    r = await confirm(client, admin_headers, edit)
    assert r.status_code == 200, r.text
    assert await levels(caps) == {shop: (1, 0), warehouse: (5, 0)}
    assert await reservations(inventory_item_id=caps) == [] and await in_step(CAP) == 6


async def test_an_edit_adding_what_the_channel_cannot_hold_is_refused(client, admin_headers, seeded, locations_on):
    shop, elsewhere = await location("Shop"), await location("Elsewhere", channel_id=None)
    shirts = await stock_at(SHIRT_M, {shop: 1, elsewhere: 5})
    order = await place(client, "NA", {CAP: 1})
    edit = await add(client, admin_headers, await new_edit(client, admin_headers, order), SHIRT_M, 2)
    r = await confirm(client, admin_headers, edit)
    assert r.status_code == 400, r.text  # as a classic shortfall at confirmation
    assert (r.json()["code"], r.json()["message"]) == (
        "insufficient_inventory", f"Variant with id: {SHIRT_M} does not have the required inventory")
    assert await levels(shirts) == {shop: (1, 0), elsewhere: (5, 0)}


async def test_a_swaps_new_items_are_reserved_when_its_cart_completes_then_sent_or_released(
        client, admin_headers, seeded, locations_on):
    # Given medium shirts at two locations, and a swap of a small one for a medium
    shop, warehouse = await location("Shop"), await location("Warehouse")
    item = await stock_at(SHIRT_M, {shop: 2, warehouse: 1})
    o, s = await made(client, admin_headers, allow_backorder=False)
    # When the shopper completes the swap's cart
    assert (await pay_swap_cart(client, s)).status_code == 200
    # I expect the new shirt held where most are, and sent from the warehouse when asked
    [new_line] = [i for i in (await LineItem.filter(swap_id=s["id"], is_return=False))]
    assert await reservations(inventory_item_id=item) == [(new_line.id, shop, 1)]
    assert await levels(item) == {shop: (2, 1), warehouse: (1, 0)} and await in_step(SHIRT_M) == 2
    path = f"/admin/orders/{o['id']}/swaps/{s['id']}"
    r = await client.post(f"{path}/fulfillments", headers=admin_headers, json={"location_id": warehouse})
    assert r.status_code == 200, r.text
    assert await levels(item) == {shop: (2, 0), warehouse: (0, 0)} and await in_step(SHIRT_M) == 2


async def test_canceling_a_confirmed_swap_releases_its_new_items(client, admin_headers, seeded, locations_on):
    shop = await location("Shop")
    item = await stock_at(SHIRT_M, {shop: 3})
    o, s = await made(client, admin_headers, allow_backorder=False)
    assert (await pay_swap_cart(client, s)).status_code == 200
    assert await levels(item) == {shop: (3, 1)}
    await client.post(f"/admin/returns/{s['return_order']['id']}/cancel", headers=admin_headers)
    r = await client.post(f"/admin/orders/{o['id']}/swaps/{s['id']}/cancel", headers=admin_headers)
    assert r.status_code == 200, r.text
    assert await levels(item) == {shop: (3, 0)} and await ReservationItem.all().count() == 0
    assert await in_step(SHIRT_M) == 3

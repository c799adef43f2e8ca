"""Stock per location after placing (INVENTORY_LOCATIONS): a cancel releases the order's
reservations, a fulfilment turns them into a stock decrement at the location it is made from (the
reservation's own without one), and a received return restocks where it was received."""

from __future__ import annotations

from models import Fulfillment, ProductVariant, ReservationItem, ShippingOption, ShippingProfile
from tests.app.admin.test_order_fulfilments import fulfil, items
from tests.app.admin.test_order_operations import post
from tests.checkout_factories import complete, ready_cart
from tests.stock_location_factories import in_step, levels, location, locations_on, reservations, stock_at

__all__ = ["locations_on"]

CAP = "variant_cap_black"


async def ordered(client, quantity: int = 2, variant: str = CAP) -> dict:
    r = await complete(client, await ready_cart(client, items={variant: quantity}))
    assert r.status_code == 200, r.text
    return r.json()["data"]


async def cap_stock() -> int:
    return await in_step(CAP)


async def test_canceling_an_order_releases_its_reservations_once(client, admin_headers, seeded, locations_on):
    # Given an order holding two caps at the warehouse
    shop, warehouse = await location("Shop"), await location("Warehouse")
    item = await stock_at(CAP, {shop: 1, warehouse: 5})
    order = await ordered(client)
    assert await levels(item) == {shop: (1, 0), warehouse: (5, 2)} and await cap_stock() == 4
    # When it is canceled, twice
    for _ in range(2):
        r = await post(client, admin_headers, order["id"], "/cancel")
        assert r.status_code == 200, r.text
    # I expect the reservation gone, the level free again, the variant's total back, once
    assert await ReservationItem.all().count() == 0
    assert await levels(item) == {shop: (1, 0), warehouse: (5, 0)} and await cap_stock() == 6


async def test_a_fulfilment_from_the_reservations_location_takes_the_stock_there(client, admin_headers, seeded,
                                                                                 locations_on):
    shop, warehouse = await location("Shop"), await location("Warehouse")
    item = await stock_at(CAP, {shop: 1, warehouse: 5})
    order = await ordered(client, 3)
    # One cap sent from the warehouse, where the three are held
    await fulfil(client, admin_headers, order["id"], items(order, **{CAP: 1}), location_id=warehouse)
    assert await levels(item) == {shop: (1, 0), warehouse: (4, 2)}
    assert await reservations(inventory_item_id=item) == [(items(order, **{CAP: 1})[0]["item_id"], warehouse, 2)]
    # then the other two without a location: from where they are held, which the fulfilment records
    await fulfil(client, admin_headers, order["id"], items(order, **{CAP: 2}))
    assert await levels(item) == {shop: (1, 0), warehouse: (2, 0)}
    assert await ReservationItem.all().count() == 0
    assert sorted(await Fulfillment.filter(order_id=order["id"]).values_list("location_id", flat=True)) == [
        warehouse, warehouse]
    # the variant's total (what is available everywhere) does not move when held units leave
    assert await cap_stock() == 3


async def test_a_fulfilment_from_another_location_releases_the_hold_and_takes_stock_there(
        client, admin_headers, seeded, locations_on):
    shop, warehouse = await location("Shop"), await location("Warehouse")
    item = await stock_at(CAP, {shop: 2, warehouse: 5})
    order = await ordered(client, 2)  # held at the warehouse
    await fulfil(client, admin_headers, order["id"], items(order, **{CAP: 2}), location_id=shop)
    assert await levels(item) == {shop: (0, 0), warehouse: (5, 0)}
    assert await ReservationItem.all().count() == 0 and await cap_stock() == 5


async def test_a_fulfilment_from_a_location_without_the_stock_is_refused_and_changes_nothing(
        client, admin_headers, seeded, locations_on):
    shop, warehouse, empty = await location("Shop"), await location("Warehouse"), await location("Empty")
    item = await stock_at(CAP, {shop: 1, warehouse: 5})
    order = await ordered(client, 2)
    # one cap at the shop: two cannot leave from there
    body = await fulfil(client, admin_headers, order["id"], items(order, **{CAP: 2}), 400, location_id=shop)
    assert body["message"] == "Insufficient stock for item: Medusa Cap"
    # a location that does not stock the cap at all
    body = await fulfil(client, admin_headers, order["id"], items(order, **{CAP: 1}), 400, location_id=empty)
    assert body["message"] == "Inventory item for Medusa Cap not found at location"
    assert await levels(item) == {shop: (1, 0), warehouse: (5, 2)}
    assert await Fulfillment.filter(order_id=order["id"]).count() == 0
    assert len(await reservations(inventory_item_id=item)) == 1


async def test_units_held_for_other_orders_cannot_leave_for_this_one(client, admin_headers, seeded, locations_on):
    # Given the shop's only two caps held for one order, and another order held at the warehouse
    shop, warehouse = await location("Shop"), await location("Warehouse")
    item = await stock_at(CAP, {shop: 2, warehouse: 1})
    first = await ordered(client, 2)  # at the shop, the one that holds both
    second = await ordered(client, 1)  # at the warehouse
    assert await levels(item) == {shop: (2, 2), warehouse: (1, 1)}
    # When the second is fulfilled from the shop: refused, the shop's caps are promised
    body = await fulfil(client, admin_headers, second["id"], items(second, **{CAP: 1}), 400, location_id=shop)
    assert body["message"] == "Insufficient stock for item: Medusa Cap"
    assert await levels(item) == {shop: (2, 2), warehouse: (1, 1)} and first["id"] != second["id"]


async def return_option() -> ShippingOption:
    profile = await ShippingProfile.get(type="default")
    na = await ShippingOption.get(name="NA Flat Rate")
    return await ShippingOption.create(
        name="NA Returns", region_id=na.region_id, profile_id=profile.id, provider_id="manual",
        price_type="flat_rate", amount=0, is_return=True, data={"id": "manual-fulfillment-return"},
    )


async def test_a_received_return_restocks_at_the_location_it_is_received_into(client, admin_headers, seeded,
                                                                              locations_on):
    # Given an order of two caps sent from the warehouse
    shop, warehouse = await location("Shop"), await location("Warehouse")
    returns_desk = await location("Returns desk")
    item = await stock_at(CAP, {shop: 1, warehouse: 5})
    order = await ordered(client, 2)
    await fulfil(client, admin_headers, order["id"], items(order, **{CAP: 2}), location_id=warehouse)
    assert await levels(item) == {shop: (1, 0), warehouse: (3, 0)} and await cap_stock() == 4
    # When one comes back, received into the returns desk (no level there yet)
    line = items(order, **{CAP: 1})
    r = await post(client, admin_headers, order["id"], "/return", json={"items": line, "refund": 0})
    assert r.status_code == 200, r.text
    ret = r.json()["order"]["returns"][0]
    r = await client.post(f"/admin/returns/{ret['id']}/receive", headers=admin_headers,
                          json={"items": line, "location_id": returns_desk, "refund": 0})
    assert r.status_code == 200, r.text
    # I expect it stocked there, and the variant's total up by one
    assert await levels(item) == {shop: (1, 0), warehouse: (3, 0), returns_desk: (1, 0)}
    assert await cap_stock() == 5
    # and one received without a location goes back where it was sent from
    r = await post(client, admin_headers, order["id"], "/return", json={"items": line, "receive_now": True, "refund": 0})
    assert r.status_code == 200, r.text
    assert await levels(item) == {shop: (1, 0), warehouse: (4, 0), returns_desk: (1, 0)}
    assert await cap_stock() == 6


async def test_with_the_setting_off_fulfilments_and_returns_leave_the_levels_alone(client, admin_headers, seeded):
    shop = await location("Shop")
    item = await stock_at(CAP, {shop: 5})
    order = await ordered(client, 2)
    await fulfil(client, admin_headers, order["id"], items(order, **{CAP: 2}), location_id=shop)
    r = await post(client, admin_headers, order["id"], "/return",
                   json={"items": items(order, **{CAP: 1}), "receive_now": True, "refund": 0})
    assert r.status_code == 200, r.text
    assert await levels(item) == {shop: (5, 0)} and (await ProductVariant.get(id=CAP)).inventory_quantity == 4


async def test_a_fulfilment_called_back_puts_its_units_back_and_holds_them_again(client, admin_headers, seeded,
                                                                                  locations_on):
    # Given two caps sent from the shop though they were held at the warehouse
    shop, warehouse = await location("Shop"), await location("Warehouse")
    item = await stock_at(CAP, {shop: 3, warehouse: 5})
    order = await ordered(client, 2)
    o = await fulfil(client, admin_headers, order["id"], items(order, **{CAP: 2}), location_id=shop)
    assert await levels(item) == {shop: (1, 0), warehouse: (5, 0)}
    # When the fulfilment is canceled before it ships
    [f] = o["order"]["fulfillments"]
    r = await post(client, admin_headers, order["id"], f"/fulfillments/{f['id']}/cancel")
    assert r.status_code == 200, r.text
    # I expect the caps on the shop's shelf again, held there for the order, the total unmoved
    assert await levels(item) == {shop: (3, 2), warehouse: (5, 0)} and await cap_stock() == 6
    assert await reservations(inventory_item_id=item) == [(items(order, **{CAP: 1})[0]["item_id"], shop, 2)]
    # and canceling the order now releases them
    r = await post(client, admin_headers, order["id"], "/cancel")
    assert r.status_code == 200, r.text
    assert await levels(item) == {shop: (3, 0), warehouse: (5, 0)} and await cap_stock() == 8


async def test_a_return_received_into_an_unknown_location_is_refused(client, admin_headers, seeded, locations_on):
    shop = await location("Shop")
    item = await stock_at(CAP, {shop: 5})
    order = await ordered(client, 1)
    await fulfil(client, admin_headers, order["id"], items(order, **{CAP: 1}), location_id=shop)
    r = await post(client, admin_headers, order["id"], "/return", json={
        "items": items(order, **{CAP: 1}), "receive_now": True, "refund": 0, "location_id": "sloc_nope"})
    assert r.status_code == 404, r.text
    assert await levels(item) == {shop: (4, 0)} and await cap_stock() == 4

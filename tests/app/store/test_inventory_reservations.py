"""Stock per location at checkout (INVENTORY_LOCATIONS): completion reserves each line
at a location of the cart's sales channel that has the stock, refuses what those locations cannot
reserve as it refuses a classic shortfall, and the storefront sees the channel's available sum."""

from __future__ import annotations

import asyncio

from models import Cart, InventoryLevel, Order, Payment, Product, ProductVariant, PublishableApiKey, ReservationItem, SalesChannel
from tests.checkout_factories import complete, ready_cart
from tests.conftest import count_queries, requires_postgres
from tests.stock_location_factories import in_step, levels, location, locations_on, reservations, stock_at

__all__ = ["locations_on"]

CAP = "variant_cap_black"


async def line_of(order: dict, variant_id: str = CAP) -> str:
    return next(i["id"] for i in order["items"] if i["variant_id"] == variant_id)


async def test_a_line_is_reserved_at_the_channel_location_that_holds_all_of_it(client, seeded, locations_on):
    # Given caps at two locations of the default channel: one at the first, five at the second
    first, second = await location("Shop"), await location("Warehouse")
    item = await stock_at(CAP, {first: 1, second: 5})
    # When an order for two caps is placed
    r = await complete(client, await ready_cart(client, items={CAP: 2}))
    assert r.status_code == 200, r.text
    order = r.json()["data"]
    # I expect one reservation of both caps at the location that holds them, its level reserved,
    # and the variant's total counted down as before
    assert await reservations(inventory_item_id=item) == [(await line_of(order), second, 2)]
    assert await levels(item) == {first: (1, 0), second: (5, 2)}
    assert await in_step(CAP) == 4


async def test_a_line_no_single_location_holds_is_split_most_available_first(client, seeded, locations_on):
    first, second = await location("Shop"), await location("Warehouse")
    item = await stock_at(CAP, {first: 2, second: 3})
    r = await complete(client, await ready_cart(client, items={CAP: 4}))
    assert r.status_code == 200, r.text
    line = await line_of(r.json()["data"])
    assert await reservations(inventory_item_id=item) == sorted([(line, second, 3), (line, first, 1)],
                                                                  key=lambda r: r[1])
    assert await levels(item) == {first: (2, 1), second: (3, 3)}


async def test_what_the_channels_locations_cannot_reserve_is_refused_as_a_shortfall(client, seeded, locations_on):
    # Given a cart of two caps, when the channel's location had two (ten more at a location of no
    # channel), and one of them sold meanwhile
    shop, elsewhere = await location("Shop"), await location("Elsewhere", channel_id=None)
    item = await stock_at(CAP, {shop: 2, elsewhere: 10})
    cart = await ready_cart(client, items={CAP: 2})
    await InventoryLevel.filter(inventory_item_id=item, location_id=shop).update(stocked_quantity=1)
    await ProductVariant.filter(id=CAP).update(inventory_quantity=11)
    # When two are ordered
    r = await complete(client, cart, "short")
    # I expect today's 409, nothing reserved, no payment left authorized and the cart still open
    assert r.status_code == 409, r.text
    assert r.json() == {"errors": [{
        "message": f"Variant with id: {CAP} does not have the required inventory",
        "type": "not_allowed", "code": "insufficient_inventory",
    }]}
    assert await ReservationItem.all().count() == 0
    assert await levels(item) == {shop: (1, 0), elsewhere: (10, 0)}
    assert await in_step(CAP) == 11
    assert not await Payment.filter(cart_id=cart["id"], canceled_at=None).exists()
    assert (await Cart.get(id=cart["id"])).completed_at is None


async def test_with_the_setting_off_nothing_is_reserved(client, seeded):
    shop = await location("Shop")
    item = await stock_at(CAP, {shop: 5})
    r = await complete(client, await ready_cart(client, items={CAP: 2}))
    assert r.status_code == 200, r.text
    assert await ReservationItem.all().count() == 0 and await levels(item) == {shop: (5, 0)}
    assert (await ProductVariant.get(id=CAP)).inventory_quantity == 3


async def test_lines_that_allow_backorders_or_do_not_track_stock_reserve_nothing(client, seeded, locations_on):
    shop = await location("Shop")
    item = await stock_at(CAP, {shop: 1}, backorder=True)
    r = await complete(client, await ready_cart(client, items={CAP: 3}))
    assert r.status_code == 200, r.text
    assert await ReservationItem.all().count() == 0 and await levels(item) == {shop: (1, 0)}


async def test_completion_with_the_setting_off_takes_no_more_statements_than_without_locations(client, seeded):
    # The hooks ask the setting first and read nothing when it is off
    await ProductVariant.filter(id=CAP).update(manage_inventory=True, allow_backorder=False, inventory_quantity=50)
    plain = await ready_cart(client, items={CAP: 1})
    async with count_queries() as before:
        assert (await complete(client, plain)).status_code == 200
    await stock_at(CAP, {await location("Shop"): 5})
    stocked = await ready_cart(client, items={CAP: 1})
    async with count_queries() as after:
        assert (await complete(client, stocked)).status_code == 200
    assert len(after) == len(before), (len(before), len(after))


# ---------------------------------------------------------------- what the storefront sees


async def variant_stock(client, headers: dict | None = None, product: str = "prod_cap") -> dict[str, int]:
    r = await client.get(f"/store/products/{product}", headers=headers or {})
    assert r.status_code == 200, r.text
    return {v["id"]: v["inventory_quantity"] for v in r.json()["product"]["variants"]}


async def listed_stock(client, headers: dict | None = None) -> dict[str, int]:
    r = await client.get("/store/products", headers=headers or {})
    assert r.status_code == 200, r.text
    return {v["id"]: v["inventory_quantity"] for p in r.json()["products"] for v in p["variants"]}


async def cap_product() -> str:
    return (await ProductVariant.get(id=CAP)).product_id


async def test_the_storefront_sees_what_the_requests_channel_has_available(client, seeded, locations_on):
    # Given caps at two locations of the default channel (one reserved), and at a location of
    # another channel, which a publishable key sells
    shop, warehouse = await location("Shop"), await location("Warehouse")
    other = await SalesChannel.create(name="Outlet")
    outlet = await location("Outlet store", channel_id=other.id)
    item = await stock_at(CAP, {shop: 3, warehouse: 4, outlet: 9})
    await complete(client, await ready_cart(client, items={CAP: 1}))
    key = await PublishableApiKey.create(title="outlet", created_by="test")
    await key.sales_channels.add(other)
    product = await cap_product()
    await other.products.add(await Product.get(id=product))
    # When the storefront reads the cap without a key, and with the outlet's key
    plain = await variant_stock(client, product=product)
    keyed = await variant_stock(client, {"x-publishable-api-key": key.id}, product=product)
    # I expect the default channel's available sum (3 + 4 - 1), and the outlet's
    assert plain[CAP] == 6 and keyed[CAP] == 9
    assert (await listed_stock(client))[CAP] == 6
    assert (await listed_stock(client, {"x-publishable-api-key": key.id}))[CAP] == 9
    assert sum(s - r for s, r in (await levels(item)).values()) == 15


async def test_with_the_setting_off_the_storefront_sees_the_variants_column(client, seeded):
    await stock_at(CAP, {await location("Shop"): 3})
    await ProductVariant.filter(id=CAP).update(inventory_quantity=42)
    assert (await variant_stock(client, product=await cap_product()))[CAP] == 42


# ---------------------------------------------------------------- the race


@requires_postgres("the race needs PostgreSQL's concurrent transactions")
async def test_twenty_checkouts_for_ten_units_at_two_locations_place_ten_orders(client, seeded, locations_on):
    # Given ten caps: six at one location of the channel, four at another; twenty ready carts of one cap
    first, second = await location("Shop"), await location("Warehouse")
    item = await stock_at(CAP, {first: 6, second: 4})
    carts = [await ready_cart(client, items={CAP: 1}) for _ in range(20)]
    # When all twenty complete at once
    answers = await asyncio.gather(*(complete(client, c, f"loc-race-{n}") for n, c in enumerate(carts)))
    # I expect ten orders, ten refusals as a shortfall, ten reservations of one cap, every unit reserved once
    placed = [a for a in answers if a.status_code == 200 and a.json()["type"] == "order"]
    refused = [a for a in answers if a.status_code == 409]
    assert (len(placed), len(refused)) == (10, 10), [a.status_code for a in answers]
    assert {a.json()["errors"][0]["code"] for a in refused} == {"insufficient_inventory"}
    assert await Order.filter(cart_id__in=[c["id"] for c in carts]).count() == 10
    rows = await reservations(inventory_item_id=item)
    assert len(rows) == 10 and {q for _, _, q in rows} == {1}
    assert await levels(item) == {first: (6, 6), second: (4, 4)}
    assert await in_step(CAP) == 0


async def test_a_cart_takes_no_more_than_its_channels_locations_have(client, seeded, locations_on):
    # Given two caps at the default channel's location and ten at a location of no channel
    shop, elsewhere = await location("Shop"), await location("Elsewhere", channel_id=None)
    await stock_at(CAP, {shop: 2, elsewhere: 10})
    cart = await ready_cart(client, items={CAP: 2}, pay=False)
    # When the shopper asks for a third, by adding one or by raising the line
    added = await client.post(f"/store/carts/{cart['id']}/line-items", json={"variant_id": CAP, "quantity": 1})
    line = cart["items"][0]["id"]
    raised = await client.post(f"/store/carts/{cart['id']}/line-items/{line}", json={"quantity": 3})
    # I expect both refused as a shortfall, as the storefront shows two
    assert (added.status_code, added.json()["code"]) == (400, "insufficient_inventory"), added.text
    assert (raised.status_code, raised.json()["code"]) == (400, "insufficient_inventory"), raised.text
    assert (await ProductVariant.get(id=CAP)).inventory_quantity == 12

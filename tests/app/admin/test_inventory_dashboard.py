"""What the dashboard's Inventory and Reservations pages read (@medusajs/admin-ui 2.1.18, with
INVENTORY_LOCATIONS on): each item's variants with their product (the list shows the product's
title and thumbnail), and each reservation's line item with its order (the "Order ID" column is
`line_item.order.display_id`), as Medusa joins them."""

from models import Product
from tests.app.admin.test_inventory_order_flow import CAP, ordered
from tests.inventory_factories import inv, stocked_item  # noqa: F401  (fixture)
from tests.stock_location_factories import location, locations_on, stock_at  # noqa: F401  (fixture)


async def test_the_inventory_list_shows_each_variants_product(inv):
    # Given an item of a product's variant
    loc = await location("Warehouse")
    shirt, item = await stocked_item({loc: 3}, title="Shirt")
    product = await Product.get(id=shirt.product_id)
    # When the dashboard lists the inventory
    r = await inv.get("/admin/inventory-items", params={"location_id": loc})
    assert r.status_code == 200, r.text
    # I expect the variant's product, its title and thumbnail among its columns
    [variant] = r.json()["inventory_items"][0]["variants"]
    assert variant["id"] == shirt.id
    assert variant["product"]["id"] == product.id and variant["product"]["title"] == product.title
    assert "thumbnail" in variant["product"] and "handle" in variant["product"]


async def test_the_inventory_list_may_name_the_relations_it_always_shows(inv):
    loc = await location("Warehouse")
    await stocked_item({loc: 3}, title="Shirt")
    r = await inv.get("/admin/inventory-items", params={"expand": "location_levels,variants,variants.product"})
    assert r.status_code == 200, r.text
    [row] = r.json()["inventory_items"]
    assert row["location_levels"][0]["stocked_quantity"] == 3 and row["variants"][0]["product"]["title"]


async def test_an_unknown_relation_is_refused_naming_it_as_a_relation(inv):
    r = await inv.get("/admin/inventory-items", params={"expand": "warehouse"})
    assert r.status_code == 400
    assert r.json()["message"] == "Requested relations [warehouse] are not valid"


async def test_the_reservations_list_shows_the_order_of_each_line(client, inv, seeded, locations_on):
    # Given an order holding two caps at the warehouse
    warehouse = await location("Warehouse")
    await stock_at(CAP, {warehouse: 5})
    order = await ordered(client)
    # When the dashboard lists the reservations as it does, and as a client naming the order
    for expand in ("line_item,inventory_item", "line_item.order"):
        r = await inv.get("/admin/reservations", params={"location_id": warehouse, "expand": expand})
        assert r.status_code == 200, (expand, r.text)
        # I expect each line item with its order, whose display id the "Order ID" column shows
        [reservation] = r.json()["reservations"]
        assert reservation["line_item"]["order"]["id"] == order["id"], expand
        assert reservation["line_item"]["order"]["display_id"] == order["display_id"], expand

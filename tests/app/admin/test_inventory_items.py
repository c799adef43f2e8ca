"""Admin inventory items and their location levels, reservations, and a variant's inventory,
with INVENTORY_LOCATIONS on. Every change of a level keeps the variant's `inventory_quantity`
equal to what all locations have available."""

from models import InventoryItem, ProductVariant, SalesChannelLocation
from services.store.defaults import get_store
from tests.inventory_factories import inv, item_of, location, stocked_item, variant  # noqa: F401  (fixture)

ITEM_KEYS = {
    "id", "sku", "title", "description", "thumbnail", "origin_country", "hs_code", "requires_shipping", "mid_code",
    "material", "weight", "length", "height", "width", "metadata", "created_at", "updated_at",
}
LEVEL_KEYS = {
    "id", "inventory_item_id", "location_id", "stocked_quantity", "reserved_quantity", "incoming_quantity",
    "metadata", "created_at", "updated_at", "available_quantity",
}
RESERVATION_KEYS = {
    "id", "location_id", "inventory_item_id", "quantity", "line_item_id", "description", "created_by", "metadata",
    "created_at", "updated_at",
}


async def _quantity(variant_id: str) -> int:
    return (await ProductVariant.get(id=variant_id)).inventory_quantity


async def test_an_item_is_created_for_a_variant_and_stocked_at_locations(inv):
    shirt = await variant("Shirt")
    a, b = await location("A"), await location("B")
    r = await inv.post("/admin/inventory-items", json={"variant_id": shirt.id, "sku": "SHIRT-1", "weight": 300})
    assert r.status_code == 200, r.text
    item = r.json()["inventory_item"]
    assert set(item) == ITEM_KEYS and item["id"].startswith("iitem_") and item["sku"] == "SHIRT-1"
    for loc, units in ((a, 4), (b, 6)):
        r = await inv.post(f"/admin/inventory-items/{item['id']}/location-levels",
                           json={"location_id": loc.id, "stocked_quantity": units})
        assert r.status_code == 200, r.text
    assert await _quantity(shirt.id) == 10
    # a level's count is set as counted
    r = await inv.post(f"/admin/inventory-items/{item['id']}/location-levels/{a.id}", json={"stocked_quantity": 1})
    assert r.status_code == 200 and set(r.json()["inventory_item"]) == ITEM_KEYS
    assert await _quantity(shirt.id) == 7
    # the item read shows its levels and their sums
    got = (await inv.get(f"/admin/inventory-items/{item['id']}")).json()["inventory_item"]
    assert (got["stocked_quantity"], got["reserved_quantity"]) == (7, 0)
    assert {lv["location_id"]: lv["available_quantity"] for lv in got["location_levels"]} == {a.id: 1, b.id: 6}
    assert set(got["location_levels"][0]) == LEVEL_KEYS
    levels = (await inv.get(f"/admin/inventory-items/{item['id']}/location-levels",
                            params={"location_id": b.id})).json()["inventory_item"]
    assert levels["id"] == item["id"] and [lv["stocked_quantity"] for lv in levels["location_levels"]] == [6]
    # removing a level takes its stock out of the total
    r = await inv.delete(f"/admin/inventory-items/{item['id']}/location-levels/{b.id}")
    assert r.status_code == 200 and await _quantity(shirt.id) == 1


async def test_the_list_filters_by_location_sku_and_text_and_shows_variants(inv):
    a, b = await location("A"), await location("B")
    shirt, shirt_item = await stocked_item({a.id: 3}, title="Shirt")
    _, mug_item = await stocked_item({b.id: 2}, title="Mug")
    body = (await inv.get("/admin/inventory-items", params={"location_id": a.id})).json()
    assert body["count"] == 1 and body["inventory_items"][0]["id"] == shirt_item.id
    assert [v["id"] for v in body["inventory_items"][0]["variants"]] == [shirt.id]
    assert body["inventory_items"][0]["stocked_quantity"] == 3
    body = (await inv.get("/admin/inventory-items", params={"sku": mug_item.sku})).json()
    assert [i["id"] for i in body["inventory_items"]] == [mug_item.id]
    body = (await inv.get("/admin/inventory-items", params={"q": "mug"})).json()
    assert [i["id"] for i in body["inventory_items"]] == [mug_item.id]
    assert (await inv.get("/admin/inventory-items", params={"colour": "red"})).status_code == 400


async def test_a_product_created_while_on_gets_an_item_per_variant_holding_its_quantity(inv):
    r = await inv.post("/admin/products", json={
        "title": "Cap", "options": [{"title": "Size"}],
        "variants": [{"title": "S", "inventory_quantity": 4, "sku": "CAP-S", "prices": [], "options": [{"value": "S"}]}],
    })
    assert r.status_code == 200, r.text
    variant_id = r.json()["product"]["variants"][0]["id"]
    item = await item_of(variant_id)
    assert item.sku == "CAP-S"
    store = await get_store()
    got = (await inv.get(f"/admin/inventory-items/{item.id}")).json()["inventory_item"]
    assert [(lv["location_id"], lv["stocked_quantity"]) for lv in got["location_levels"]] == [
        (store.default_location_id, 4)]


async def test_reservations_hold_stock_and_cannot_over_reserve(inv):
    a = await location("A")
    shirt, item = await stocked_item({a.id: 3})
    r = await inv.post("/admin/reservations", json={"location_id": a.id, "inventory_item_id": item.id, "quantity": 2,
                                                     "description": "for the window"})
    assert r.status_code == 200, r.text
    held = r.json()["reservation"]
    assert set(held) == RESERVATION_KEYS and held["id"].startswith("resitem_") and held["created_by"].startswith("usr_")
    assert await _quantity(shirt.id) == 1
    r = await inv.post("/admin/reservations", json={"location_id": a.id, "inventory_item_id": item.id, "quantity": 2})
    assert r.status_code == 400 and "only 1 available" in r.json()["message"]
    r = await inv.post(f"/admin/reservations/{held['id']}", json={"quantity": 4})
    assert r.status_code == 400
    r = await inv.post(f"/admin/reservations/{held['id']}", json={"quantity": 3})
    assert r.status_code == 200 and r.json()["reservation"]["quantity"] == 3 and await _quantity(shirt.id) == 0
    body = (await inv.get("/admin/reservations", params={"inventory_item_id": item.id,
                                                         "expand": "inventory_item"})).json()
    assert body["count"] == 1 and body["reservations"][0]["inventory_item"]["id"] == item.id
    assert (await inv.get("/admin/reservations", params={"location_id": "sloc_other"})).json()["count"] == 0
    # the dashboard's filters: a part of the description, a quantity over, who made it
    for params, count in (({"description[contains]": "WINDOW"}, 1), ({"description": "door"}, 0),
                          ({"quantity[gt]": "2"}, 1), ({"quantity[gt]": "3"}, 0),
                          ({"created_by[]": held["created_by"]}, 1)):
        assert (await inv.get("/admin/reservations", params=params)).json()["count"] == count, params
    # a level with reserved units stays
    r = await inv.delete(f"/admin/inventory-items/{item.id}/location-levels/{a.id}")
    assert r.status_code == 400 and "reserved items" in r.json()["message"]
    r = await inv.delete(f"/admin/reservations/{held['id']}")
    assert r.json() == {"id": held["id"], "object": "reservation", "deleted": True}
    assert await _quantity(shirt.id) == 3


async def test_a_variants_inventory_shows_its_items_and_each_channels_availability(inv):
    a, b = await location("A"), await location("B")
    shirt, item = await stocked_item({a.id: 4, b.id: 6})
    channel_id = (await get_store()).default_sales_channel_id
    await SalesChannelLocation.create(sales_channel_id=channel_id, location_id=b.id)
    body = (await inv.get(f"/admin/variants/{shirt.id}/inventory")).json()["variant"]
    assert body["id"] == shirt.id and [i["id"] for i in body["inventory"]] == [item.id]
    assert len(body["inventory"][0]["location_levels"]) == 2
    mine = [c for c in body["sales_channel_availability"] if c["channel_id"] == channel_id]
    assert mine == [{"channel_name": mine[0]["channel_name"], "channel_id": channel_id, "available_quantity": 6}]
    assert (await inv.get("/admin/variants/variant_unknown/inventory")).status_code == 404


async def test_an_item_with_reserved_units_is_not_deleted_and_unknown_ids_are_404(inv):
    a = await location("A")
    _, item = await stocked_item({a.id: 3})
    await inv.post("/admin/reservations", json={"location_id": a.id, "inventory_item_id": item.id, "quantity": 1})
    assert (await inv.delete(f"/admin/inventory-items/{item.id}")).status_code == 400
    assert (await inv.get("/admin/inventory-items/iitem_unknown")).status_code == 404
    assert (await inv.post("/admin/inventory-items", json={"variant_id": "variant_unknown"})).status_code == 404
    assert (await inv.post("/admin/inventory-items", json={})).status_code == 400
    assert (await inv.get("/admin/reservations/resitem_unknown")).status_code == 404
    r = await inv.post("/admin/reservations", json={"location_id": a.id, "inventory_item_id": item.id, "quantity": 0})
    assert r.status_code == 400
    r = await inv.post("/admin/reservations", json={"location_id": "sloc_unknown", "inventory_item_id": item.id,
                                                     "quantity": 1})
    assert r.status_code == 404
    r = await inv.post(f"/admin/inventory-items/{item.id}/location-levels", json={"location_id": a.id,
                                                                                  "stocked_quantity": 1})
    assert r.status_code == 422  # already stocked there
    r = await inv.post(f"/admin/inventory-items/{item.id}/location-levels", json={"location_id": a.id,
                                                                                  "stocked_quantity": -1})
    assert r.status_code == 400


async def test_a_deleted_variant_takes_its_item_along_unless_units_of_it_are_reserved(inv):
    a = await location("A")
    shirt, item = await stocked_item({a.id: 3}, title="Shirt")
    mug, mug_item = await stocked_item({a.id: 3}, title="Mug")
    await inv.post("/admin/reservations", json={"location_id": a.id, "inventory_item_id": mug_item.id, "quantity": 1})
    for v in (shirt, mug):
        r = await inv.delete(f"/admin/products/{v.product_id}/variants/{v.id}")
        assert r.status_code == 200, r.text
    assert (await InventoryItem.get(id=item.id)).deleted_at is not None
    assert (await InventoryItem.get(id=mug_item.id)).deleted_at is None  # an order still waits for it
    assert (await inv.get(f"/admin/inventory-items/{item.id}")).status_code == 404

"""Admin stock locations with INVENTORY_LOCATIONS on (`/admin/stock-locations`, a sales
channel's locations), and the store listing the modules; off, the routes are not there."""

from models import InventoryLevel, SalesChannelLocation, StockLocation
from services.inventory.reservations import reserve
from services.store.defaults import get_store
from tests.inventory_factories import inv, stocked_item  # noqa: F401  (fixture)

LOCATION_KEYS = {"id", "name", "address_id", "metadata", "created_at", "updated_at"}
ADDRESS = {"address_1": "1 Dock Road", "country_code": "DK", "city": "Aarhus", "postal_code": "8000"}


async def create(client, **body) -> dict:
    r = await client.post("/admin/stock-locations", json=body)
    assert r.status_code == 200, r.text
    return r.json()["stock_location"]


async def test_the_store_lists_the_inventory_modules_only_when_the_setting_is_on(inv, client, admin_headers):
    on = (await inv.get("/admin/store")).json()["store"]["modules"]
    assert on == [{"module": "inventoryService", "resolution": False},
                  {"module": "stockLocationService", "resolution": False}]
    assert (await client.get("/admin/store", headers=admin_headers)).json()["store"]["modules"] == []


async def test_with_the_setting_off_the_routes_are_not_there(client, admin_headers):
    for path in ("/admin/stock-locations", "/admin/inventory-items", "/admin/reservations",
                 "/admin/variants/variant_1/inventory"):
        assert (await client.get(path, headers=admin_headers)).status_code == 404, path


async def test_a_location_is_created_with_its_address_and_read_back_expanded(inv):
    made = await create(inv, name="Aarhus", address=ADDRESS, metadata={"dock": "3"})
    assert set(made) == LOCATION_KEYS and made["id"].startswith("sloc_") and made["address_id"].startswith("laddr_")
    r = await inv.get(f"/admin/stock-locations/{made['id']}", params={"expand": "address,sales_channels"})
    got = r.json()["stock_location"]
    assert got["address"]["city"] == "Aarhus" and got["address"]["country_code"] == "dk"
    assert got["sales_channels"] == []


async def test_the_list_finds_by_name_or_address_and_pages(inv):
    await create(inv, name="Aarhus", address=ADDRESS)
    await create(inv, name="Berlin")
    await create(inv, name="Copenhagen")
    r = await inv.get("/admin/stock-locations", params={"q": "dock"})
    assert [loc["name"] for loc in r.json()["stock_locations"]] == ["Aarhus"]
    r = await inv.get("/admin/stock-locations", params={"limit": 2, "offset": 0, "order": "name"})
    body = r.json()
    assert (body["count"], body["limit"], body["offset"]) == (3, 2, 0)
    assert [loc["name"] for loc in body["stock_locations"]] == ["Aarhus", "Berlin"]


async def test_updating_changes_the_name_and_the_locations_own_address(inv):
    made = await create(inv, name="Aarhus", address=ADDRESS)
    r = await inv.post(f"/admin/stock-locations/{made['id']}",
                       json={"name": "Aarhus North", "address": {**ADDRESS, "city": "Risskov"}},
                       params={"expand": "address"})
    got = r.json()["stock_location"]
    assert got["name"] == "Aarhus North" and got["address_id"] == made["address_id"]
    assert got["address"]["city"] == "Risskov"


async def test_a_sales_channel_sells_from_the_locations_linked_to_it(inv):
    made = await create(inv, name="Aarhus")
    channel_id = (await get_store()).default_sales_channel_id
    r = await inv.post(f"/admin/sales-channels/{channel_id}/stock-locations", json={"location_id": made["id"]})
    assert r.status_code == 200 and r.json()["sales_channel"]["id"] == channel_id
    r = await inv.get("/admin/stock-locations", params={"sales_channel_id": channel_id, "expand": "sales_channels"})
    assert [c["id"] for c in r.json()["stock_locations"][0]["sales_channels"]] == [channel_id]
    r = await inv.request("DELETE", f"/admin/sales-channels/{channel_id}/stock-locations",
                          json={"location_id": made["id"]})
    assert r.json() == {"id": channel_id, "object": "stock-location", "deleted": True}
    assert not await SalesChannelLocation.exists()


async def test_a_location_holding_reserved_stock_is_not_deleted(inv):
    made = await create(inv, name="Aarhus")
    _, item = await stocked_item({made["id"]: 5})
    held = await reserve(inventory_item_id=item.id, location_id=made["id"], quantity=2)
    r = await inv.delete(f"/admin/stock-locations/{made['id']}")
    assert r.status_code == 400
    assert r.json()["type"] == "not_allowed" and "2 units are reserved" in r.json()["message"]
    assert await InventoryLevel.filter(location_id=made["id"]).count() == 1
    # once the reservation is gone, the location goes with its stock
    assert (await inv.delete(f"/admin/reservations/{held.id}")).status_code == 200
    r = await inv.delete(f"/admin/stock-locations/{made['id']}")
    assert r.json() == {"id": made["id"], "object": "stock_location", "deleted": True}
    assert (await StockLocation.get(id=made["id"])).deleted_at is not None
    assert not await InventoryLevel.filter(location_id=made["id"]).exists()
    assert (await inv.get(f"/admin/stock-locations/{made['id']}")).status_code == 404


async def test_bad_input_is_a_400_and_unknown_ids_a_404(inv):
    assert (await inv.post("/admin/stock-locations", json={})).status_code == 400
    assert (await inv.post("/admin/stock-locations", json={"name": "X", "address": {"city": "Y"}})).status_code == 400
    assert (await inv.get("/admin/stock-locations/sloc_unknown")).status_code == 404
    assert (await inv.post("/admin/stock-locations/sloc_unknown", json={"name": "X"})).status_code == 404
    channel_id = (await get_store()).default_sales_channel_id
    r = await inv.post(f"/admin/sales-channels/{channel_id}/stock-locations", json={"location_id": "sloc_unknown"})
    assert r.status_code == 404

"""A Medusa 1.20 shop that used its inventory and stock-location modules (multi-warehouse) keeps its
stock per location: the locations with their addresses, the inventory items, their levels, the
open reservations and the variant and sales-channel links come over with their ids, the variants'
`inventory_quantity` (which Medusa leaves stale under those modules) follows the moved levels, and
turning INVENTORY_LOCATIONS on afterwards adds no second default location and no second item.

The fixture shop has no such tables: a copy of it gets them here, made as the modules' own
migrations make them, with a few rows."""

from __future__ import annotations

import io
import subprocess
import uuid

import asyncpg
import pytest

from models import (
    InventoryItem, InventoryLevel, ProductVariant, ProductVariantInventoryItem, SalesChannelLocation, StockLocation, Store,
)
from app.shapes.completion import ApiAnswers
from services import inventory, setup
from services.inventory.switch_on import DEFAULT_LOCATION_NAME, switch_on
from services.migration.medusa_v1 import Progress, move
from tests.services.migration.conftest import _psql, _server, PG_ADMIN_URL

# The modules' tables as Medusa 1.20's migrations leave them (packages/inventory and
# packages/stock-location); the two link tables are Medusa's own and already in the fixture.
MODULE_TABLES = """
CREATE TABLE stock_location_address (
  id varchar PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz, address_1 text NOT NULL, address_2 text, company text, city text,
  country_code text NOT NULL, phone text, province text, postal_code text, metadata jsonb);
CREATE TABLE stock_location (
  id varchar PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz, name text NOT NULL, address_id text, metadata jsonb);
CREATE TABLE inventory_item (
  id varchar PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz, sku text, origin_country text, hs_code text, mid_code text, material text,
  weight integer, length integer, height integer, width integer, requires_shipping boolean NOT NULL DEFAULT true,
  metadata jsonb, title varchar, description varchar, thumbnail varchar);
CREATE UNIQUE INDEX ON inventory_item (sku) WHERE deleted_at IS NULL;
CREATE TABLE reservation_item (
  id varchar PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz, line_item_id text, inventory_item_id text NOT NULL, location_id text NOT NULL,
  quantity integer NOT NULL, metadata jsonb, external_id varchar, description varchar, created_by varchar);
CREATE TABLE inventory_level (
  id varchar PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz, inventory_item_id text NOT NULL, location_id text NOT NULL,
  stocked_quantity integer NOT NULL DEFAULT 0, reserved_quantity integer NOT NULL DEFAULT 0,
  incoming_quantity integer NOT NULL DEFAULT 0, metadata jsonb);
CREATE UNIQUE INDEX ON inventory_level (inventory_item_id, location_id) WHERE deleted_at IS NULL;
INSERT INTO migrations (timestamp, name) VALUES (1665748086258, 'inventorySetup1665748086258'),
  (1675761451145, 'addReservationType1675761451145'), (1682927363119, 'itemDescriptionsAndThumbnail1682927363119'),
  (1697708391459, 'ScopeLevelUnique1697708391459'), (1665749860179, 'setup1665749860179');
"""

MAIN, SHOP, OLD = "sloc_01MOVEMAIN000000000000000", "sloc_01MOVESHOP000000000000000", "sloc_01MOVEOLD0000000000000000"
ITEM_1, ITEM_2, ITEM_GONE = "iitem_01MOVE1000000000000000000", "iitem_01MOVE2000000000000000000", "iitem_01MOVEGONE00000000000000"
LEVEL_1_MAIN = "ilev_01MOVE1MAIN00000000000000"
RESERVATION, RESERVATION_GONE = "resitem_01MOVERES0000000000000000", "resitem_01MOVERESGONE000000000000"


async def _stock(conn) -> dict:
    """Rows of the modules in the source copy: two live locations (one with an address) and a
    deleted one, two items (one made twice into a variant) and a deleted one, levels at both
    locations, a reservation, links; the variants' own quantities stale, as Medusa leaves them."""
    default_channel = await conn.fetchval("SELECT default_sales_channel_id FROM store")
    variants = [r["id"] for r in await conn.fetch(
        "SELECT pv.id FROM product_variant pv JOIN product p ON p.id = pv.product_id"
        " WHERE pv.deleted_at IS NULL AND pv.manage_inventory AND p.deleted_at IS NULL AND p.status = 'published'"
        " AND EXISTS (SELECT 1 FROM product_sales_channel psc WHERE psc.product_id = p.id AND psc.sales_channel_id = $1)"
        " ORDER BY EXISTS (SELECT 1 FROM line_item li WHERE li.variant_id = pv.id AND li.order_id IS NOT NULL) DESC, pv.id"
        " LIMIT 3", default_channel)]
    other_channel = await conn.fetchval(
        "SELECT id FROM sales_channel WHERE deleted_at IS NULL AND id <> $1 ORDER BY id LIMIT 1", default_channel)
    line = await conn.fetchval("SELECT id FROM line_item WHERE variant_id = $1 AND order_id IS NOT NULL ORDER BY id LIMIT 1",
                               variants[0])
    await conn.execute(MODULE_TABLES)
    await conn.execute("""
        INSERT INTO stock_location_address (id, address_1, city, country_code, postal_code)
          VALUES ('laddr_01MOVEDOCK000000000000000', '1 Dock Road', 'Aarhus', 'dk', '8000');
        INSERT INTO stock_location (id, name, address_id, created_at) VALUES
          ('{MAIN}', 'Main warehouse', 'laddr_01MOVEDOCK000000000000000', now() - interval '2 years'),
          ('{SHOP}', 'Shop floor', NULL, now() - interval '1 year');
        INSERT INTO stock_location (id, name, deleted_at) VALUES ('{OLD}', 'Old depot', now() - interval '1 day');
        INSERT INTO inventory_item (id, sku, title) VALUES ('{ITEM_1}', 'MOVE-1', 'First'), ('{ITEM_2}', 'MOVE-2', 'Second');
        INSERT INTO inventory_item (id, sku, deleted_at) VALUES ('{ITEM_GONE}', 'MOVE-GONE', now() - interval '1 day');
        INSERT INTO inventory_level (id, inventory_item_id, location_id, stocked_quantity, reserved_quantity) VALUES
          ('{LEVEL_1_MAIN}', '{ITEM_1}', '{MAIN}', 10, 2),
          ('ilev_01MOVE1SHOP00000000000000', '{ITEM_1}', '{SHOP}', 5, 0),
          ('ilev_01MOVE2MAIN00000000000000', '{ITEM_2}', '{MAIN}', 7, 0);
        INSERT INTO inventory_level (id, inventory_item_id, location_id, stocked_quantity, deleted_at) VALUES
          ('ilev_01MOVE1OLD000000000000000', '{ITEM_1}', '{OLD}', 40, now() - interval '1 day');
        UPDATE store SET default_location_id = '{MAIN}';
    """.format(MAIN=MAIN, SHOP=SHOP, OLD=OLD, ITEM_1=ITEM_1, ITEM_2=ITEM_2, ITEM_GONE=ITEM_GONE,
               LEVEL_1_MAIN=LEVEL_1_MAIN))
    await conn.execute(
        "INSERT INTO product_variant_inventory_item (id, variant_id, inventory_item_id, required_quantity) VALUES"
        " ('pvitem_01MOVE100000000000000000', $1, $3, 1), ('pvitem_01MOVE200000000000000000', $2, $4, 2)",
        variants[0], variants[1], ITEM_1, ITEM_2)
    await conn.execute(
        "INSERT INTO reservation_item (id, line_item_id, inventory_item_id, location_id, quantity, description)"
        " VALUES ($1, $2, $3, $4, 2, 'order'), ($5, NULL, $3, $4, 1, 'by hand')",
        RESERVATION, line, ITEM_1, MAIN, RESERVATION_GONE)
    await conn.execute("UPDATE reservation_item SET deleted_at = now() WHERE id = $1", RESERVATION_GONE)
    await conn.execute(
        "INSERT INTO sales_channel_location (id, sales_channel_id, location_id) VALUES"
        " ('scloc_01MOVEMAIN00000000000000', $1, $3), ('scloc_01MOVESHOP00000000000000', $2, $4)",
        default_channel, other_channel, MAIN, SHOP)
    # Made a day ago, as a shop's rows are: a re-run's window (the last run less a margin) leaves them out.
    for table in ("stock_location_address", "stock_location", "inventory_item", "inventory_level", "reservation_item",
                  "product_variant_inventory_item", "sales_channel_location"):
        await conn.execute(f"UPDATE {table} SET created_at = least(created_at, now() - interval '1 day'),"
                           " updated_at = now() - interval '1 day' WHERE id LIKE '%MOVE%'")
    # Under the modules Medusa no longer keeps the variants' own column: it is stale.
    await conn.execute("UPDATE product_variant SET inventory_quantity = 999 WHERE id = ANY($1)", variants[:2])
    return {"variants": variants, "default_channel": default_channel, "other_channel": other_channel, "line": line}


@pytest.fixture(scope="module")
def stocked_source(medusa_source):
    """A copy of the fixture shop with Medusa's inventory modules in use; dropped afterwards."""
    import asyncio

    name = f"medusa_v1_inv_{uuid.uuid4().hex[:10]}"
    _psql(PG_ADMIN_URL, "-c", f'CREATE DATABASE "{name}" TEMPLATE "{medusa_source.rsplit("/", 1)[1]}"')
    url = f"{_server}/{name}"

    async def fill():
        conn = await asyncpg.connect(url.replace("postgres://", "postgresql://", 1))
        try:
            return await _stock(conn)
        finally:
            await conn.close()

    try:
        yield url, asyncio.run(fill())
    finally:
        _psql(PG_ADMIN_URL, "-c", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def server_on(client):
    """A client of a server with INVENTORY_LOCATIONS on (the shared one has it off)."""
    from app.server import create_app
    from tests.conftest import SETTINGS, running, settings

    app = create_app(settings(inventory_locations=True), manage_orm=False)
    try:
        async with running(app) as on:
            yield on
    finally:
        setup.configure(SETTINGS, answers=ApiAnswers())  # the session's own settings again


async def _sign_in(client) -> None:
    """As the moved shop's admin, with the password they had in Medusa."""
    r = await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"})
    assert r.status_code == 200, r.text
    client.headers["Authorization"] = f"Bearer {r.json()['access_token']}"


async def _storefront_quantities(client, variants: list[str]) -> dict[str, int]:
    from app.web.answer_cache import forget_answers

    forget_answers()  # the kept answers are the process's: the two servers here differ in their setting
    found = {}
    for variant in await ProductVariant.filter(id__in=variants):
        r = await client.get(f"/store/products/{variant.product_id}")
        assert r.status_code == 200, r.text
        for v in r.json()["product"]["variants"]:
            if v["id"] in variants:
                found[v["id"]] = v["inventory_quantity"]
    return found


async def test_the_stock_per_location_comes_over_and_reads_through_the_admin_and_the_storefront(
        stocked_source, client, server_on):
    url, made = stocked_source
    first, second = made["variants"][:2]
    report = await move(url, progress=Progress(io.StringIO()))
    admin_inv = server_on
    await _sign_in(admin_inv)
    assert report.money_differences == [] and report.unknown_tables == [] and report.unknown_columns == []
    assert report.plugin_migrations == []  # the modules' migrations are Medusa's own
    assert not {"product_variant_inventory_item", "sales_channel_location"} & set(report.left_out)

    # the locations, live ones listed with their address and channels
    r = await admin_inv.get("/admin/stock-locations", params={"expand": "address,sales_channels"})
    assert r.status_code == 200, r.text
    locations = {loc["id"]: loc for loc in r.json()["stock_locations"]}
    assert set(locations) == {MAIN, SHOP}
    assert locations[MAIN]["address"]["city"] == "Aarhus"
    assert [c["id"] for c in locations[MAIN]["sales_channels"]] == [made["default_channel"]]
    assert [c["id"] for c in locations[SHOP]["sales_channels"]] == [made["other_channel"]]
    assert (await StockLocation.get(id=OLD)).deleted_at is not None
    assert (await Store.first()).default_location_id == MAIN

    # the items with their levels; the deleted item and level stay deleted
    r = await admin_inv.get("/admin/inventory-items", params={"limit": 100})
    assert r.status_code == 200, r.text
    items = {i["id"]: i for i in r.json()["inventory_items"]}
    assert set(items) == {ITEM_1, ITEM_2}
    assert {lv["location_id"]: (lv["stocked_quantity"], lv["reserved_quantity"]) for lv in items[ITEM_1]["location_levels"]} \
        == {MAIN: (10, 2), SHOP: (5, 0)}
    assert (await InventoryItem.get(id=ITEM_GONE)).deleted_at is not None
    assert await ProductVariantInventoryItem.filter(variant_id=second).values_list("required_quantity", flat=True) == [2]

    # the open reservation, for its order's line
    r = await admin_inv.get("/admin/reservations")
    assert r.status_code == 200, r.text
    assert made["line"] is not None
    assert [(x["id"], x["line_item_id"], x["quantity"]) for x in r.json()["reservations"]] == [(RESERVATION, made["line"], 2)]

    # the storefront (the store's default channel sells from the main warehouse): 10 - 2 of the
    # first; 7 units of the second item make 3 of its variant (2 each)
    assert await _storefront_quantities(admin_inv, [first, second]) == {first: 8, second: 3}
    inventory._enabled = False  # the setting is the process's: now the shared server's own (off)
    # and with the setting off, what every location has: 10 - 2 + 5, not Medusa's stale 999
    assert await _storefront_quantities(client, [first, second]) == {first: 13, second: 3}


async def test_switching_on_after_the_move_adds_no_default_location_and_no_item(stocked_source):
    url, made = stocked_source
    first = made["variants"][0]
    # Given a store where INVENTORY_LOCATIONS was already on when it was made (its own default location)
    inventory._enabled = True
    try:
        await switch_on()
        assert await StockLocation.filter(name=DEFAULT_LOCATION_NAME).count() == 1
        await move(url, progress=Progress(io.StringIO()))
        # When the setting's switch-on runs after the move
        done = await switch_on()
    finally:
        inventory._enabled = False
    # Then the shop's own default location is kept, no other is made, and the variants that had
    # items keep theirs with their levels
    assert done["location_id"] == MAIN
    assert set(await StockLocation.filter(deleted_at=None).values_list("id", flat=True)) == {MAIN, SHOP}
    assert await ProductVariantInventoryItem.filter(variant_id=first).values_list("inventory_item_id", flat=True) == [ITEM_1]
    assert dict(await InventoryLevel.filter(inventory_item_id=ITEM_1).values_list("location_id", "stocked_quantity")) \
        == {MAIN: 10, SHOP: 5}
    assert (await ProductVariant.get(id=first)).inventory_quantity == 13


async def test_a_changed_level_and_a_removed_link_arrive_on_the_next_run(stocked_source, client):
    url, made = stocked_source
    first = made["variants"][0]
    await move(url, progress=Progress(io.StringIO()))
    conn = await asyncpg.connect(url.replace("postgres://", "postgresql://", 1))
    try:
        # Given a recount at the main warehouse, a reservation released and a channel no longer
        # selling from the shop floor (Medusa deletes that link outright)
        await conn.execute("UPDATE inventory_level SET stocked_quantity = 20, reserved_quantity = 0, updated_at = now()"
                           " WHERE id = $1", LEVEL_1_MAIN)
        await conn.execute("UPDATE reservation_item SET deleted_at = now(), updated_at = now() WHERE id = $1", RESERVATION)
        await conn.execute("DELETE FROM sales_channel_location WHERE location_id = $1", SHOP)
        # When the move runs again
        report = await move(url, progress=Progress(io.StringIO()))
    finally:
        await conn.execute("UPDATE inventory_level SET stocked_quantity = 10, reserved_quantity = 2 WHERE id = $1",
                           LEVEL_1_MAIN)
        await conn.execute("UPDATE reservation_item SET deleted_at = NULL WHERE id = $1", RESERVATION)
        await conn.execute("INSERT INTO sales_channel_location (id, sales_channel_id, location_id)"
                           " VALUES ('scloc_01MOVESHOP00000000000000', $1, $2)", made["other_channel"], SHOP)
        await conn.close()
    # Then only the changed level was copied, the reservation and the link are gone
    assert report.entity("inventory levels").copied == 1 and report.entity("inventory levels").unchanged == 2
    assert report.entity("reservations").removed == 1 and report.entity("sales channel locations").removed == 1
    assert (await InventoryLevel.get(id=LEVEL_1_MAIN)).stocked_quantity == 20
    # and the variant counts what the levels now hold: 20 + 5
    assert await _storefront_quantities(client, [first]) == {first: 25}
    assert report.money_differences == []


async def _moved_and_switched_on(url: str) -> dict:
    """The move run, then the switch-on `commerce import` runs after it with the setting on."""
    inventory._enabled = True
    try:
        report = await move(url, progress=Progress(io.StringIO()))
        return {"report": report, **await switch_on()}
    finally:
        inventory._enabled = False


async def _stock_here() -> dict:
    return {
        "locations": sorted(await StockLocation.filter(deleted_at=None).values_list("id", flat=True)),
        "items": sorted(await InventoryItem.filter(deleted_at=None).values_list("id", flat=True)),
        "links": sorted(await ProductVariantInventoryItem.all().values_list("variant_id", "inventory_item_id")),
        "levels": sorted(await InventoryLevel.all().values_list("inventory_item_id", "location_id", "stocked_quantity")),
        "channels": sorted(await SalesChannelLocation.all().values_list("sales_channel_id", "location_id")),
    }


async def test_re_runs_with_the_setting_on_keep_what_switch_on_added_for_a_shop_without_the_modules(
        medusa_source, client):
    # Given a shop without the modules moved in with the setting on: switch-on made a default
    # location sold from by the shop's channels, and an item stocked there for each variant
    first = await _moved_and_switched_on(medusa_source)
    made = await _stock_here()
    assert [loc.name for loc in await StockLocation.all()] == [DEFAULT_LOCATION_NAME]
    assert first["items"] == len(made["items"]) > 0 and made["channels"]
    # When the move and its switch-on run again
    again = await _moved_and_switched_on(medusa_source)
    # Then nothing was taken away or made twice
    assert again["items"] == 0 and again["reconciled"] == 0 and again["location_id"] == first["location_id"]
    assert await _stock_here() == made


async def test_re_runs_with_the_setting_on_keep_the_item_switch_on_gave_a_variant_medusa_counted_none_for(
        stocked_source):
    url, made = stocked_source
    bare = made["variants"][2]  # manages its stock, has no inventory item in Medusa
    first = await _moved_and_switched_on(url)
    assert first["location_id"] == MAIN
    own = await ProductVariantInventoryItem.get(variant_id=bare)
    assert own.inventory_item_id not in (ITEM_1, ITEM_2)
    held = await _stock_here()
    assert (own.inventory_item_id, MAIN, (await ProductVariant.get(id=bare)).inventory_quantity) in held["levels"]
    # When the move and its switch-on run again
    again = await _moved_and_switched_on(url)
    # Then the shop's stock and what switch-on added are as they were, nothing made twice
    assert again["items"] == 0 and again["reconciled"] == 0
    assert await _stock_here() == held


async def test_module_tables_without_a_live_level_leave_the_variants_quantities_as_they_were(stocked_source):
    url, made = stocked_source
    first = made["variants"][0]
    conn = await asyncpg.connect(url.replace("postgres://", "postgresql://", 1))
    try:
        # Given a shop whose modules' tables hold items and links but no live level
        await conn.execute("UPDATE inventory_level SET deleted_at = now() WHERE deleted_at IS NULL AND id LIKE '%MOVE%'")
        await move(url, progress=Progress(io.StringIO()))
    finally:
        await conn.execute("UPDATE inventory_level SET deleted_at = NULL WHERE id <> 'ilev_01MOVE1OLD000000000000000'")
        await conn.close()
    # Then its variants' own quantities are taken as its stock
    assert (await ProductVariant.get(id=first)).inventory_quantity == 999

"""`commerce migrate` with INVENTORY_LOCATIONS on switches the shop on: each variant's quantity
moves into the default location, once."""

import json
import os
import subprocess
import sys

from models import InventoryLevel, ProductVariant, StockLocation
from services.store.defaults import get_store
from tests.conftest import SETTINGS
from tests.inventory_factories import item_of, variant


def _migrate(inventory_locations: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": SETTINGS.database_url, "INVENTORY_LOCATIONS": inventory_locations,
           "LOG_LEVEL": "INFO"}
    return subprocess.run([sys.executable, "-m", "workers.cli", "migrate"], env=env, capture_output=True,
                          text=True, timeout=300)


async def test_migrate_with_the_setting_on_stocks_each_variant_at_the_default_location_once():
    shirt = await variant("Shirt", quantity=5)
    assert _migrate("0").returncode == 0
    assert not await StockLocation.exists()  # off: nothing changes
    for _ in range(2):
        done = _migrate("1")
        assert done.returncode == 0, done.stderr
    location_id = (await get_store()).default_location_id
    assert [loc.id for loc in await StockLocation.all()] == [location_id]
    level = await InventoryLevel.get(inventory_item_id=(await item_of(shirt.id)).id)
    assert (level.location_id, level.stocked_quantity, level.reserved_quantity) == (location_id, 5, 0)


async def test_a_seed_loaded_with_the_setting_on_counts_its_variants_at_the_default_location(tmp_path):
    """`commerce start` migrates (switching on an empty shop), then seeds the demo store: the
    seeded variants must be counted by location too, or the dashboard's Inventory page is empty."""
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps({"products": [{
        "title": "Mug", "options": [{"title": "Colour", "values": ["White"]}],
        "variants": [{"title": "White", "sku": "MUG-W", "inventory_quantity": 7, "options": [{"value": "White"}],
                      "prices": [{"currency_code": "usd", "amount": 1200}]}]}]}))
    env = {**os.environ, "DATABASE_URL": SETTINGS.database_url, "INVENTORY_LOCATIONS": "1"}
    done = subprocess.run([sys.executable, "-m", "workers.cli", "seed", str(seed)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    mug = await ProductVariant.get(sku="MUG-W")
    level = await InventoryLevel.get(inventory_item_id=(await item_of(mug.id)).id)
    assert (level.location_id, level.stocked_quantity, level.reserved_quantity) == (
        (await get_store()).default_location_id, 7, 0)


async def test_switching_on_says_what_it_did_in_one_line_and_later_runs_that_nothing_was_needed():
    await variant("Shirt", quantity=5)
    await variant("Mug", quantity=2)
    first, again = _migrate("1"), _migrate("1")
    location_id = (await get_store()).default_location_id
    said = [line.split("commerce.cli: ", 1)[1] for line in first.stderr.splitlines() if "commerce.cli: " in line]
    assert said == [f"stock by location (INVENTORY_LOCATIONS): 2 inventory items made, a new default location, "
                    f"2 variants' stock set at {location_id}"], first.stderr
    said = [line.split("commerce.cli: ", 1)[1] for line in again.stderr.splitlines() if "commerce.cli: " in line]
    assert said == [f"stock by location (INVENTORY_LOCATIONS): 0 inventory items made, 0 variants' stock set at "
                    f"{location_id}"], again.stderr

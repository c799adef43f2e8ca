"""The README's way in: the first command fills the default database with the demo store, and
the move into that same database is refused (exit 7). The refusal says how to move into a new
one, and `--target` does it without touching DATABASE_URL."""

import os
import subprocess
import sys

from models import Customer, Product
from tests.conftest import PATIENCE, SETTINGS
from workers.preflight import createdb


def _import(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": SETTINGS.database_url, "LOG_LEVEL": "WARNING"}
    env.pop("REDIS_URL", None)
    return subprocess.run([sys.executable, "-m", "workers.cli", "import", "medusa-v1", *args], env=env,
                          capture_output=True, text=True, timeout=PATIENCE * 3)


async def test_a_store_with_a_shop_of_its_own_refuses_and_names_the_commands_that_move_into_a_new_one(
        medusa_source, tmp_path):
    # Given the store of DATABASE_URL holding a shop of its own (the demo store, say)
    await Product.create(title="Ours", handle="ours")
    # When the shop is moved into it
    refused = _import("--from", medusa_source)
    # I expect exit 7, the reason, then the commands to run instead
    assert refused.returncode == 7, refused.stderr
    lines = refused.stderr.splitlines()
    assert lines[0] == "commerce import: the target store already holds products of its own; move into a new database"
    if SETTINGS.is_postgres:
        target = SETTINGS.database_url.rsplit("/", 1)[0] + "/shop"
        create = createdb(SETTINGS.database_url, "shop") + " && "
    else:
        target, create = "sqlite://shop.sqlite3", ""
    assert lines[1:] == [
        f"  to move into a new database: {create}commerce import medusa-v1 --from {medusa_source} --target {target}",
        f"  then run the store on it with DATABASE_URL={target}",
    ]
    assert not await Customer.exists()
    # and when moved as it says, into a new database named by --target
    moved = _import("--from", medusa_source, "--target", f"sqlite://{tmp_path / 'shop.sqlite3'}")
    assert moved.returncode == 0, moved.stderr
    assert "customers: 184 of 184 rows" in moved.stderr
    assert await Product.all().values_list("title", flat=True) == ["Ours"]  # DATABASE_URL's store untouched

"""`commerce import medusa-v1`: what it refuses, what it reports, and that it can run again."""

import io
import os
import subprocess
import sys

import asyncpg

from models import Customer, Product, Store
from services.migration.medusa_v1 import Progress, move
from tests.conftest import PG_ADMIN_URL, SETTINGS


def _cli(*args, database_url: str = SETTINGS.database_url) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": database_url}
    env.pop("REDIS_URL", None)
    return subprocess.run([sys.executable, "-m", "workers.cli", "import", "medusa-v1", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_an_unreachable_source_is_one_line_and_exit_3_and_writes_nothing(tmp_path):
    target = tmp_path / "never.sqlite3"
    done = _cli("--from", "postgres://postgres@127.0.0.1:1/shop", database_url=f"sqlite://{target}")
    assert done.returncode == 3
    assert done.stderr.strip().startswith("commerce import: cannot reach the source database")
    assert len(done.stderr.strip().splitlines()) == 1 and not target.exists()


def test_a_database_that_is_not_medusa_is_refused_with_exit_4(tmp_path):
    target = tmp_path / "never.sqlite3"
    done = _cli("--from", PG_ADMIN_URL, database_url=f"sqlite://{target}")
    assert done.returncode == 4, done.stderr
    assert "not a Medusa v1 database" in done.stderr and not target.exists()


async def test_a_medusa_older_than_1_8_is_refused_with_exit_5(tmp_path):
    admin = await asyncpg.connect(PG_ADMIN_URL.replace("postgres://", "postgresql://", 1))
    name = f"medusa_old_{os.getpid()}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
        old = await asyncpg.connect(url.replace("postgres://", "postgresql://", 1))
        try:  # a Medusa 1.7 shop: its last migration is multiLocationSoftDelete
            await old.execute(
                'CREATE TABLE migrations (id serial, "timestamp" bigint, name varchar);'
                "INSERT INTO migrations (\"timestamp\", name) VALUES (1611063162649, 'initialSchema1611063162649'),"
                " (1675689306130, 'multiLocationSoftDelete1675689306130');"
                'CREATE TABLE "order" (id varchar); CREATE TABLE product (id varchar); CREATE TABLE store (id varchar);'
            )
        finally:
            await old.close()
        done = _cli("--from", url, database_url=f"sqlite://{tmp_path / 'never.sqlite3'}")
        assert done.returncode == 5, done.stderr
        assert "older than 1.8" in done.stderr
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_a_dry_run_reads_and_counts_everything_and_writes_nothing(medusa_source):
    report = await move(medusa_source, dry_run=True, progress=Progress(io.StringIO()))
    assert report.entity("customers").copied == 184 and report.entity("products").copied == 43
    assert not await Product.exists() and not await Customer.exists()


async def test_the_move_reports_each_entity_and_what_it_leaves_out(imported):
    lines = "\n".join(imported.lines())
    assert imported.entity("customers").in_source == imported.entity("customers").copied == 184
    for table in ("idempotency_key", "staged_job", "batch_job", "analytics_config", "oauth", "migrations"):
        assert table in imported.left_out, table
    assert "invite.token" in imported.columns_not_kept
    assert imported.unknown_tables == [] and imported.unknown_columns == []  # the fixture has no plugin
    assert "customers" in lines and "idempotency_key" in lines


def test_a_dry_run_from_the_command_line_reads_everything_and_leaves_the_target_untouched(medusa_source, tmp_path):
    target = tmp_path / "never.sqlite3"
    done = _cli("--from", medusa_source, "--dry-run", database_url=f"sqlite://{target}")
    assert done.returncode == 0, done.stderr
    customers = next(line for line in done.stdout.splitlines() if line.startswith("customers "))
    assert customers.split()[1:3] == ["184", "184"] and "not written" not in done.stdout
    assert "unknown (plugins)" not in done.stdout  # our models' columns, foreign keys among them, were all mapped
    assert not target.exists()


async def test_progress_says_entity_rows_done_of_total_and_rate(medusa_source):
    out = io.StringIO()
    await move(medusa_source, dry_run=True, progress=Progress(out))
    assert any(line.strip().startswith("customers: 184 of 184 rows,") and line.endswith("rows/s")
               for line in out.getvalue().splitlines())


async def test_a_second_run_changes_nothing(imported, medusa_source):
    before = sorted(await Customer.all().values_list("id", "email", "updated_at", "password_hash"))
    store = await Store.all().values_list("id", flat=True)
    again = await move(medusa_source, progress=Progress(io.StringIO()))
    assert (again.entity("customers").copied, again.entity("customers").unchanged) == (0, 184)
    assert sorted(await Customer.all().values_list("id", "email", "updated_at", "password_hash")) == before
    assert await Store.all().values_list("id", flat=True) == store


async def test_the_command_moves_the_shop_into_the_database_url(medusa_source, tmp_path):
    target = tmp_path / "moved.sqlite3"
    done = _cli("--from", medusa_source, database_url=f"sqlite://{target}")
    assert done.returncode == 0, done.stderr
    assert any(line.startswith("customers") and "184" in line for line in done.stdout.splitlines())
    assert "customers: 184 of 184 rows" in done.stderr


async def test_a_store_holding_a_shop_of_its_own_is_refused_with_exit_7_and_keeps_it(medusa_source):
    import pytest

    from services.migration.medusa_v1.target import TargetNotEmpty

    await Product.create(title="Ours", handle="ours")
    with pytest.raises(TargetNotEmpty) as refused:
        await move(medusa_source, progress=Progress(io.StringIO()))
    assert refused.value.exit_code == 7 and "already holds products" in str(refused.value)
    assert await Product.all().values_list("title", flat=True) == ["Ours"] and not await Customer.exists()

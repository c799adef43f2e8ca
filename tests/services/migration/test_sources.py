"""Sources the move refuses before it writes anything, and Medusa's own optional columns it knows."""

import io

import pytest

from models import Currency, Customer, LineItem, MigrationMark, Order, PriceList, Product, Region, ShippingMethod
from models import ShippingOption
from services.migration.medusa_v1 import Progress, SourceError, move
from tests.services.migration.test_frame import _cli


async def _nothing_written() -> bool:
    return not any([await Customer.exists(), await Product.exists(), await Order.exists(), await MigrationMark.exists()])


@pytest.mark.parametrize("spoil,named", [
    ("DROP TABLE customer CASCADE", "customer"),
    ("DROP TABLE line_item CASCADE", "line_item"),
    ("ALTER TABLE line_item DROP COLUMN order_id CASCADE", "line_item.order_id"),
    ("ALTER TABLE payment DROP COLUMN amount", "payment.amount"),
])
async def test_a_medusa_database_missing_what_the_move_reads_is_refused_before_anything_is_written(medusa_copy, spoil, named):
    url, run = medusa_copy
    await run(spoil)
    with pytest.raises(SourceError) as refused:
        await move(url, progress=Progress(io.StringIO()))
    assert refused.value.exit_code == 4
    assert str(refused.value).endswith(f": {named}") and "\n" not in str(refused.value)
    assert await _nothing_written()


async def test_the_command_refuses_a_source_missing_a_table_in_one_line_with_exit_4(medusa_copy, tmp_path):
    url, run = medusa_copy
    await run("DROP TABLE line_item CASCADE")
    target = tmp_path / "never.sqlite3"
    done = _cli("--from", url, database_url=f"sqlite://{target}")
    assert done.returncode == 4, done.stderr
    assert done.stderr.strip().splitlines() == [
        "commerce import: this Medusa v1 database lacks what the move reads, so nothing was written: line_item"]
    assert not target.exists()


async def test_a_database_with_a_migrations_table_of_its_own_is_refused_with_exit_4(medusa_copy, tmp_path):
    url, run = medusa_copy
    await run("DROP TABLE migrations; CREATE TABLE migrations (id serial, version text, applied_at timestamptz);"
              " INSERT INTO migrations (version) VALUES ('20240101_init')")
    with pytest.raises(SourceError) as refused:
        await move(url, progress=Progress(io.StringIO()))
    assert refused.value.exit_code == 4 and "not a Medusa v1 database" in str(refused.value)
    assert await _nothing_written()
    target = tmp_path / "never.sqlite3"
    done = _cli("--from", url, database_url=f"sqlite://{target}")
    assert done.returncode == 4, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "not a Medusa v1 database" in done.stderr
    assert not target.exists()


async def test_the_tax_inclusive_flags_come_along_and_medusas_optional_columns_are_not_called_plugins(medusa_copy):
    url, run = medusa_copy
    # Given a shop that ran Medusa's tax-inclusive pricing migration (its feature flag on), with
    # the v2 flag's line product and a plugin's own column
    tables = ("currency", "region", "price_list", "shipping_option", "shipping_method", "line_item")
    await run("".join(f'ALTER TABLE "{t}" ADD "includes_tax" boolean NOT NULL DEFAULT false;' for t in tables)
              + "ALTER TABLE line_item ADD COLUMN product_id text; ALTER TABLE line_item ADD COLUMN loyalty_points int;"
              + "UPDATE currency SET includes_tax = true WHERE code = 'eur';"
              + "UPDATE region SET includes_tax = true WHERE id = (SELECT min(id) FROM region);"
              + "UPDATE price_list SET includes_tax = true WHERE id = (SELECT min(id) FROM price_list);"
              + "UPDATE shipping_option SET includes_tax = true WHERE id = (SELECT min(id) FROM shipping_option);"
              + "UPDATE shipping_method SET includes_tax = true WHERE id = (SELECT min(id) FROM shipping_method);"
              + "UPDATE line_item SET includes_tax = true WHERE id = (SELECT min(id) FROM line_item WHERE order_id IS NOT NULL);")
    # When it moves
    report = await move(url, progress=Progress(io.StringIO()))
    # Then each flag is here as it was there
    assert await Currency.filter(includes_tax=True).values_list("code", flat=True) == ["eur"]
    for model in (Region, PriceList, ShippingOption, ShippingMethod, LineItem):
        assert await model.filter(includes_tax=True).count() == 1, model
    assert report.unknown_columns == ["line_item.loyalty_points"]
    assert "line_item.product_id" in report.columns_not_kept and report.money_differences == []

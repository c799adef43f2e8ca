"""The real migrations build the schema the models describe (the session database is made by them),
and the partial unique indexes let a soft-deleted row free its value."""

import importlib
from datetime import datetime, timezone

import pytest
from tortoise import Tortoise, connections
from tortoise.exceptions import IntegrityError
from tortoise.fields import BigIntField
from tortoise.fields.relational import ManyToManyFieldInstance

from models import (
    Customer, CustomerGroup, Product, ProductCollection, ProductVariant, ReturnReason, User,
)
from tests.conftest import BACKEND, requires_postgres

INDEXES = importlib.import_module("models.migrations.0002_indexes")
RETURN_REASONS_NOTES = importlib.import_module("models.migrations.0011_return_reasons_notes")


async def _columns() -> dict[str, dict[str, bool]]:
    """Every table's columns and whether each accepts NULL, read from the database itself."""
    conn = connections.get("default")
    out: dict[str, dict[str, bool]] = {}
    if BACKEND == "postgres":
        rows = await conn.execute_query_dict(
            "SELECT table_name, column_name, is_nullable FROM information_schema.columns "
            "WHERE table_schema = current_schema()"
        )
        for r in rows:
            out.setdefault(r["table_name"], {})[r["column_name"]] = r["is_nullable"] == "YES"
        return out
    tables = await conn.execute_query_dict("SELECT name FROM sqlite_master WHERE type = 'table'")
    for t in tables:
        for r in await conn.execute_query_dict(f'PRAGMA table_info("{t["name"]}")'):
            out.setdefault(t["name"], {})[r["name"]] = not r["notnull"] and not r["pk"]
    return out


async def _index_names() -> set[str]:
    conn = connections.get("default")
    if BACKEND == "postgres":
        rows = await conn.execute_query_dict(
            "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()"
        )
    else:
        rows = await conn.execute_query_dict("SELECT name FROM sqlite_master WHERE type = 'index'")
    return {r["name"] for r in rows}


def _models():
    return list(Tortoise.apps["models"].values())


async def test_every_model_column_exists_in_the_database():
    columns = await _columns()
    missing = []
    for model in _models():
        table = model._meta.db_table
        for field_name, column in model._meta.fields_db_projection.items():
            if column not in columns.get(table, {}):
                missing.append(f"{table}.{column} ({model.__name__}.{field_name})")
    assert not missing, missing


async def test_every_many_to_many_through_table_has_both_key_columns():
    columns = await _columns()
    missing, checked = [], 0
    for model in _models():
        for field in model._meta.fields_map.values():
            if isinstance(field, ManyToManyFieldInstance):
                for column in (field.backward_key, field.forward_key):
                    checked += 1
                    if column not in columns.get(field.through, {}):
                        missing.append(f"{field.through}.{column} ({model.__name__}.{field.model_field_name})")
    assert checked >= 2 * 8  # tags, images, channels, groups, providers x2, currencies, tax rate links
    assert not missing, missing


async def test_required_columns_refuse_null_and_optional_ones_accept_it():
    columns = await _columns()
    wrong = []
    for model in _models():
        table = model._meta.db_table
        for field_name, column in model._meta.fields_db_projection.items():
            field = model._meta.fields_map[field_name]
            if field.pk or column not in columns.get(table, {}):
                continue
            if columns[table][column] != bool(field.null):
                wrong.append(f"{table}.{column}: model null={field.null}, database null={columns[table][column]}")
    assert not wrong, wrong


async def test_no_model_lacks_its_table_and_the_indexes_are_there():
    columns = await _columns()
    assert {m._meta.db_table for m in _models()} <= set(columns)
    names = await _index_names()
    expected = {name for name, _, _ in INDEXES.UNIQUE_LIVE}
    expected |= {f"ix_{table}_{column}" for table, column in INDEXES.FOREIGN_KEYS}
    expected |= {sql.split('"')[1] for sql in RETURN_REASONS_NOTES.INDEXES}
    assert expected <= names, expected - names


@requires_postgres("SQLite's INTEGER is 64-bit whatever the declared type")
async def test_every_64_bit_field_is_a_bigint_column():
    rows = await connections.get("default").execute_query_dict(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema()"
    )
    types = {(r["table_name"], r["column_name"]): r["data_type"] for r in rows}
    wrong, checked = [], 0
    for model in _models():
        for field_name, column in model._meta.fields_db_projection.items():
            if isinstance(model._meta.fields_map[field_name], BigIntField):
                checked += 1
                if types.get((model._meta.db_table, column)) != "bigint":
                    wrong.append(f"{model._meta.db_table}.{column}")
    assert checked >= 16  # every amount, price, total and balance
    assert not wrong, wrong


async def test_both_migrations_are_recorded():
    rows = await connections.get("default").execute_query_dict('SELECT * FROM "tortoise_migrations"')
    recorded = " ".join(str(v) for r in rows for v in r.values())
    assert "0001_initial" in recorded and "0002_indexes" in recorded
    assert "0011_return_reasons_notes" in recorded


async def _soft_delete(model, row) -> None:
    await model.filter(id=row.id).update(deleted_at=datetime.now(timezone.utc))


async def test_two_live_users_cannot_share_an_email_but_a_deleted_one_frees_it():
    first = await User.create(email="same@example.com")
    with pytest.raises(IntegrityError):
        await User.create(email="same@example.com")
    await _soft_delete(User, first)
    second = await User.create(email="same@example.com")
    with pytest.raises(IntegrityError):
        await User.create(email="same@example.com")
    await _soft_delete(User, second)
    await User.create(email="same@example.com")  # several deleted rows may share it
    assert await User.filter(email="same@example.com").count() == 3
    assert await User.filter(email="same@example.com", deleted_at=None).count() == 1


async def test_a_guest_and_an_account_may_share_an_email_but_not_two_of_either():
    account = await Customer.create(email="jane@example.com", has_account=True)
    await Customer.create(email="jane@example.com", has_account=False)
    for has_account in (True, False):
        with pytest.raises(IntegrityError):
            await Customer.create(email="jane@example.com", has_account=has_account)
    await _soft_delete(Customer, account)
    await Customer.create(email="jane@example.com", has_account=True)


@pytest.mark.parametrize("model,column", [
    (Product, "handle"), (ProductCollection, "handle"), (CustomerGroup, "name"), (ProductVariant, "sku"),
    (ReturnReason, "value"),
])
async def test_catalogue_keys_are_unique_among_live_rows_only(model, column):
    async def make():
        values = {column: "shared-key"}
        if model is Product:
            values["title"] = "T"
        if model is ProductCollection:
            values["title"] = "C"
        if model is ReturnReason:
            values["label"] = "R"
        if model is ProductVariant:
            product = await Product.create(title="P")
            values.update(title="V", product_id=product.id)
        return await model.create(**values)

    first = await make()
    with pytest.raises(IntegrityError):
        await make()
    await _soft_delete(model, first)
    await make()


async def test_many_rows_may_leave_an_optional_unique_key_empty():
    await Product.create(title="A")
    await Product.create(title="B")
    product = await Product.create(title="C")
    await ProductVariant.create(title="one", product_id=product.id)
    await ProductVariant.create(title="two", product_id=product.id)
    assert await Product.filter(handle=None).count() == 3


def test_only_operations_that_never_read_the_state_before_them_go_without_its_copy():
    from tortoise import fields
    from tortoise.migrations import operations as ops

    from models.migrations._base import _needs_old_state

    widen = importlib.import_module("models.migrations.0010_bigint_amounts")
    field = fields.IntField(null=True)
    without = [ops.CreateModel(name="M", fields=[("id", fields.IntField(primary_key=True))]),
               ops.AddField(model_name="M", name="f", field=field), ops.RunSQL("SELECT 1"),
               ops.RunPython(lambda apps, editor: None), widen.WidenColumns("SELECT 1"),
               widen.AlterFieldState(model_name="M", name="f", field=field)]
    assert not any(_needs_old_state(op) for op in without)
    needing = [ops.AlterField(model_name="M", name="f", field=field), ops.RemoveField(model_name="M", name="f"),
               ops.RenameField(model_name="M", old_name="f", new_name="g"), ops.DeleteModel(name="M"),
               ops.RenameModel(old_name="M", new_name="N")]
    assert all(_needs_old_state(op) for op in needing)


def test_the_migrations_form_one_line_each_after_the_one_before():
    # Two branches that each add the next number (or a rename that keeps the old parent) leave two
    # leaves, and which runs first is then up to the runner
    from pathlib import Path

    import models.migrations as package

    names = sorted(p.stem for p in Path(package.__file__).parent.glob("[0-9][0-9][0-9][0-9]_*.py"))
    assert [n[:4] for n in names] == [f"{i:04d}" for i in range(1, len(names) + 1)]
    for before, name in zip(names, names[1:]):
        migration = importlib.import_module(f"models.migrations.{name}").Migration
        assert migration.dependencies == [("models", before)], name

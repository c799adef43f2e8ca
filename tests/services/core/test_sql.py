"""The SQL toolkit (services/core/sql.py) on both backends: marks per dialect, instances built
from a statement's rows equal to the ORM's, and bulk writes that leave the rows the ORM reads,
through either of PostgreSQL's paths (column arrays, or COPY into a temporary table)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from tortoise import Tortoise
from tortoise.transactions import in_transaction

from models import Address, LineItem, ProductTag
from services.core.bulk_writes import bulk_update, bulk_upsert
from services.core.sql import (
    RowBuilder, aliased_columns, execute, insert, numbered, placeholders, question_marks, save, update,
)
from services.core.db import atomic

_COLUMNS = ["id", "value", "metadata", "created_at", "updated_at"]
_AT = datetime(2024, 5, 1, 12, 30, 15, 123456, tzinfo=timezone.utc)


def _row(tag_id: str, value: str, minutes: int = 0, metadata: str | None = None) -> list:
    at = _AT + timedelta(minutes=minutes)
    return [tag_id, value, metadata, at, at]


async def _tags() -> dict[str, tuple]:
    return {t.id: (t.value, t.metadata, t.created_at, t.updated_at) for t in await ProductTag.all()}


def test_marks_follow_the_dialect():
    assert placeholders("postgres", 3, 2) == ["$3", "$4"] and placeholders("sqlite", 3, 2) == ["?", "?"]
    text = f"SELECT 1 FROM t WHERE a = ? AND b IN ({question_marks(2)})"
    assert numbered("postgres", text) == "SELECT 1 FROM t WHERE a = $1 AND b IN ($2, $3)"
    assert numbered("sqlite", text) == text
    assert question_marks(0) == "NULL"


async def test_an_instance_built_from_a_row_is_the_one_the_orm_reads():
    # Given a tag with metadata and a deletion time
    tag = await ProductTag.create(value="blue", metadata={"a": [1, 2]}, deleted_at=_AT)
    # When its row is read by hand, its columns under an alias, and built
    db = ProductTag._meta.db
    rows = await execute(db, f'SELECT {aliased_columns(ProductTag, "t")} FROM "product_tag" "t" WHERE "t"."id" = ?',
                         [tag.id])
    mine = RowBuilder(ProductTag, lambda column: f"t.{column}").build(rows[0])
    # I expect the ORM's instance: every value, time zones included, loaded whole
    theirs = await ProductTag.get(id=tag.id)
    for name in ProductTag._meta.fields_db_projection:
        assert getattr(mine, name) == getattr(theirs, name), name
        if isinstance(getattr(theirs, name), datetime):
            assert getattr(mine, name).utcoffset() == getattr(theirs, name).utcoffset() == timedelta(0)
    assert (mine._partial, mine._saved_in_db) == (False, True)
    # and it saves as a queried one does
    mine.value = "navy"
    await mine.save()
    assert (await ProductTag.get(id=tag.id)).value == "navy"


def _models() -> list:
    return sorted((m for app in Tortoise.apps.values() for m in app.values()), key=lambda m: m.__name__)


async def test_every_model_is_built_with_the_state_the_orm_gives_a_loaded_instance():
    # Given, for every model, a row with its primary key and nothing else
    for model in _models():
        meta = model._meta
        row = {column: None for column in meta.db_fields} | {meta.db_pk_column: "x_1"}
        # When the builder builds it twice, and the ORM's own _init_from_db once
        builder = RowBuilder(model, lambda column: column)
        mine, again = builder.build(row), builder.build(row)
        theirs = model._init_from_db(**row)
        # I expect the same attributes and values, the ORM's loaded state among them
        assert vars(mine) == vars(theirs), model.__name__
        # and no instance sharing a mutable part of that state with another
        shared = [k for k, v in vars(mine).items() if isinstance(v, (dict, list, set)) and v is vars(again)[k]]
        assert shared == [], model.__name__


async def test_an_instance_inserted_is_the_row_and_the_instance_save_makes():
    # Given two new lines alike but for their ids, one saved by the ORM, one inserted
    values = dict(title="Shirt", description="M", thumbnail=None, is_giftcard=False,
                  should_merge=True, allow_discounts=True, has_shipping=None, unit_price=1999, quantity=2,
                  includes_tax=False, metadata={"gift": True})
    saved, inserted = LineItem(**values), LineItem(**values)
    await saved.save()
    await insert(inserted)
    # I expect the instances in the same state (timestamps stamped, saved) and the rows read alike
    mine, theirs = vars(inserted), vars(saved)
    differ = {k for k in mine if mine[k] != theirs[k]}
    assert differ <= {"id", "created_at", "updated_at"} and inserted._saved_in_db and inserted.created_at
    rows = {i.id: i for i in await LineItem.filter(id__in=[saved.id, inserted.id])}
    for field in LineItem._meta.db_fields - {"id", "created_at", "updated_at"}:
        assert getattr(rows[saved.id], field) == getattr(rows[inserted.id], field), field
    assert rows[inserted.id].created_at == inserted.created_at and rows[inserted.id].metadata == {"gift": True}


async def test_saving_inserts_a_new_instance_and_updates_a_read_one():
    # Given a new address saved, then changed and saved again
    address = Address(country_code="us", city="Boston")
    await save(address)
    address.city = "Salem"
    await save(address)
    # I expect one row, as changed
    assert [(a.id, a.city) for a in await Address.all()] == [(address.id, "Salem")]


async def test_an_instance_updated_is_the_row_and_the_instance_save_makes():
    # Given two lines alike but for their ids, read back, changed alike, one saved by the ORM and
    # one written by update() (and a new address saved by save() put off to a unit's end)
    values = dict(title="Shirt", description="M", should_merge=True, allow_discounts=True, unit_price=1999,
                  quantity=2, includes_tax=False, metadata={"gift": True})
    saved, updated = LineItem(**values), LineItem(**values)
    await insert(saved)
    await insert(updated)
    saved, updated = await LineItem.get(id=saved.id), await LineItem.get(id=updated.id)
    for line in (saved, updated):
        line.title, line.quantity, line.has_shipping, line.metadata = "Coat", 3, True, {"gift": False}
    await saved.save()
    await update(updated)
    async with atomic():
        address = Address(country_code="us", city="Boston")
        await save(address, at_end=True)
    # I expect the instances in the same state (updated_at stamped) and the rows read alike
    assert vars(updated)["updated_at"] > vars(updated)["created_at"]
    rows = {i.id: i for i in await LineItem.filter(id__in=[saved.id, updated.id])}
    for field in LineItem._meta.db_fields - {"id", "created_at", "updated_at"}:
        assert getattr(rows[saved.id], field) == getattr(rows[updated.id], field), field
    assert (rows[updated.id].title, rows[updated.id].quantity, rows[updated.id].metadata) == ("Coat", 3, {"gift": False})
    assert rows[updated.id].updated_at == updated.updated_at
    assert [(a.id, a.city) for a in await Address.all()] == [(address.id, "Boston")]


@pytest.mark.parametrize("copy_from", [10**9, 0], ids=["arrays", "copy"])
async def test_a_bulk_upsert_writes_new_and_changed_rows_only(copy_from):
    # Given three tags written in bulk
    async with in_transaction() as connection:
        rows = [_row("ptag_a", "red"), _row("ptag_b", "green", 1), _row("ptag_c", "blue", 2, '{"x": 1}')]
        assert await bulk_upsert(connection, "product_tag", _COLUMNS, rows, key=("id",), copy_from=copy_from) == 3
    assert await _tags() == {
        "ptag_a": ("red", None, _AT, _AT),
        "ptag_b": ("green", None, _AT + timedelta(minutes=1), _AT + timedelta(minutes=1)),
        "ptag_c": ("blue", {"x": 1}, _AT + timedelta(minutes=2), _AT + timedelta(minutes=2)),
    }
    # When the same rows come again, one changed, one new given twice (the last one kept), and
    # created_at written only with a new row
    async with in_transaction() as connection:
        again = [_row("ptag_a", "red"), _row("ptag_b", "lime", 5), _row("ptag_c", "blue", 2, '{"x": 1}'),
                 _row("ptag_d", "grey", 3), _row("ptag_d", "black", 4)]
        written = await bulk_upsert(connection, "product_tag", _COLUMNS, again, key=("id",),
                                    insert_only={"created_at"}, copy_from=copy_from)
    # I expect the changed and the new rows written, the others left as they were
    assert written == 2
    tags = await _tags()
    assert tags["ptag_a"] == ("red", None, _AT, _AT)
    assert tags["ptag_b"] == ("lime", None, _AT + timedelta(minutes=1), _AT + timedelta(minutes=5))
    assert tags["ptag_d"] == ("black", None, _AT + timedelta(minutes=4), _AT + timedelta(minutes=4))


@pytest.mark.parametrize("copy_from", [10**9, 0], ids=["arrays", "copy"])
async def test_a_bulk_insert_without_a_key_inserts_every_row(copy_from):
    # Given more rows than SQLite takes parameters for in one statement
    rows = [_row(f"ptag_{n:04d}", f"tag {n}", n) for n in range(450)]
    # When they are inserted in bulk, twice in one transaction
    async with in_transaction() as connection:
        assert await bulk_upsert(connection, "product_tag", _COLUMNS, rows[:300], copy_from=copy_from) == 300
        assert await bulk_upsert(connection, "product_tag", _COLUMNS, rows[300:], copy_from=copy_from) == 150
    # I expect each of them as it was given
    tags = await _tags()
    assert len(tags) == 450 and tags["ptag_0449"] == ("tag 449", None, *[_AT + timedelta(minutes=449)] * 2)


async def test_a_bulk_update_writes_the_rows_found_by_key():
    async with in_transaction() as connection:
        await bulk_upsert(connection, "product_tag", _COLUMNS, [_row("ptag_a", "red"), _row("ptag_b", "green")])
    later = _AT + timedelta(hours=1)
    async with in_transaction() as connection:
        changes = [["red", later, "ptag_a"], ["teal", later, "ptag_b"], ["pink", later, "ptag_zz"]]
        # Only what differs is written (ptag_a's value is the same, but not its updated_at) ...
        assert await bulk_update(connection, "product_tag", ["value", "updated_at", "id"], changes) == 2
        # ... or, asked, every row found, changed or not
        assert await bulk_update(connection, "product_tag", ["value", "id"], [["red", "ptag_a"], ["teal", "ptag_b"]],
                                 changed_only=False) == 2
        assert await bulk_update(connection, "product_tag", ["value", "id"], [["red", "ptag_a"]]) == 0
    assert await _tags() == {"ptag_a": ("red", None, _AT, later), "ptag_b": ("teal", None, _AT, later)}

"""Writes put off to a unit of work's end (services/core/db.py `write_at_end`), on both backends:
sent before the commit, in the order asked for, as one statement on PostgreSQL; gone with a
rollback; failing the unit when one fails; written at once when no unit is open."""

from __future__ import annotations

import pytest
from tortoise.exceptions import IntegrityError

from models import Address, ProductTag
from services.core.db import atomic, write_now
from services.core.sql import insert, write
from tests.conftest import BACKEND, count_queries


class _Abort(Exception):
    pass


async def test_writes_put_off_are_sent_at_the_end_together_and_commit():
    # Given a row written before, and a unit that inserts two rows and renames the first row, each
    # write put off to its end
    before = ProductTag(value="before")
    await insert(before)
    async with count_queries() as statements:
        async with atomic():
            first, second = ProductTag(value="first"), ProductTag(value="second")
            await insert(first, at_end=True)
            await insert(second, at_end=True)
            await write(ProductTag, 'UPDATE "product_tag" SET "value" = ? WHERE "id" = ?', ["renamed", before.id],
                        at_end=True)
            # nothing is sent while the unit runs
            assert statements == []
    # I expect all of them written, in one statement on PostgreSQL (SQLite's two INSERTs as one
    # executemany, then the UPDATE), the instances saved as insert() leaves them
    assert {t.id: t.value for t in await ProductTag.all()} == {
        before.id: "renamed", first.id: "first", second.id: "second"}
    assert len(statements) == (1 if BACKEND == "postgres" else 2), statements
    assert first._saved_in_db and second._saved_in_db


async def test_a_rolled_back_unit_writes_nothing_it_put_off():
    with pytest.raises(_Abort):
        async with atomic():
            await insert(ProductTag(value="never"), at_end=True)
            raise _Abort()
    assert await ProductTag.all().count() == 0


async def test_a_put_off_write_that_fails_fails_the_unit_and_nothing_commits():
    # Given a row that exists
    existing = ProductTag(value="there")
    await insert(existing)
    # When a unit writes a new row and, put off to its end, a second row with the same id
    with pytest.raises(IntegrityError):
        async with atomic():
            await insert(ProductTag(value="new"), at_end=True)
            await insert(ProductTag(id=existing.id, value="clash"), at_end=True)
    # I expect neither of its rows
    assert [t.value for t in await ProductTag.all()] == ["there"]


async def test_write_now_sends_what_was_put_off_so_a_read_sees_it():
    async with atomic():
        tag = ProductTag(value="soon")
        await insert(tag, at_end=True)
        assert not await ProductTag.filter(id=tag.id).exists()
        await write_now()
        assert await ProductTag.filter(id=tag.id).exists()


async def test_without_a_unit_a_write_asked_for_at_the_end_is_written_at_once():
    tag = ProductTag(value="alone")
    await insert(tag, at_end=True)
    assert await write(ProductTag, 'UPDATE "product_tag" SET "value" = ? WHERE "id" = ?', ["now", tag.id],
                       at_end=True)
    assert (await ProductTag.get(id=tag.id)).value == "now"


async def test_rows_of_several_tables_put_off_together_keep_their_values():
    # Given an address and a tag written at the end of one unit, each with its own marks
    async with atomic():
        address = Address(first_name="Ada", city="Boston", country_code="us", postal_code="02110")
        tag = ProductTag(value="tagged", metadata={"k": 1})
        await insert(address, at_end=True)
        await insert(tag, at_end=True)
    # I expect each row as the ORM reads it back
    read = await Address.get(id=address.id)
    assert (read.first_name, read.city, read.country_code, read.postal_code) == ("Ada", "Boston", "us", "02110")
    assert (await ProductTag.get(id=tag.id)).metadata == {"k": 1}

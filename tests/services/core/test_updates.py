"""A partial update of one row: only what is given and different changes, metadata merges, and a
unique value taken meanwhile is the area's duplicate error."""

import pytest
from tortoise.exceptions import IntegrityError

from models import ReturnReason
from services.core.errors import Duplicate
from services.core.updates import UNSET, apply_changes, save_changes


def _reason(**columns) -> ReturnReason:
    return ReturnReason(**{"value": "wrong_size", "label": "Wrong size", "description": "Too small",
                           "metadata": {"a": 1}, **columns})


def test_only_given_columns_that_differ_change():
    # Given a reason
    reason = _reason()
    # When an update gives a new label, the same value, and leaves the description out
    changed = apply_changes(reason, {"value": "wrong_size", "label": "Too big", "description": None})
    # I expect only the label changed
    assert changed == ["label"]
    assert (reason.value, reason.label, reason.description) == ("wrong_size", "Too big", "Too small")


def test_none_clears_a_clearable_column_and_unset_leaves_it():
    reason = _reason()
    assert apply_changes(reason, {"description": UNSET}, clearable={"description"}) == []
    assert reason.description == "Too small"
    assert apply_changes(reason, {"description": None}, clearable={"description"}) == ["description"]
    assert reason.description is None


def test_metadata_is_merged_and_always_counts_as_changed():
    reason = _reason()
    changed = apply_changes(reason, {"label": "Wrong size"}, metadata={"b": 2, "a": ""})
    # An empty string removes a key, as Medusa v1 merges metadata.
    assert changed == ["metadata"] and reason.metadata == {"b": 2}
    assert apply_changes(reason, {}, metadata={}) == ["metadata"]


async def test_changed_columns_are_written_with_updated_at_and_nothing_is_written_without_changes():
    # Given a stored reason
    reason = _reason()
    await reason.save()
    before = reason.updated_at
    # When nothing changed, I expect no write
    assert await save_changes(reason, []) is False
    # When the label changed, I expect it stored and the row stamped
    reason.label = "Too big"
    reason.description = "not written: not named as changed"
    assert await save_changes(reason, ["label"]) is True
    stored = await ReturnReason.get(id=reason.id)
    assert (stored.label, stored.description) == ("Too big", "Too small") and stored.updated_at >= before


async def test_a_unique_value_taken_meanwhile_is_the_duplicate_given():
    # Given two live reasons
    await _reason().save()
    other = _reason(value="damaged")
    await other.save()
    # When one takes the other's value past the checks
    other.value = "wrong_size"
    # I expect the duplicate error given, or the database's own error when none is given
    with pytest.raises(Duplicate, match="taken"):
        await save_changes(other, ["value"], duplicate=Duplicate("taken"))
    with pytest.raises(IntegrityError):
        await save_changes(other, ["value"])
    assert (await ReturnReason.get(id=other.id)).value == "damaged"

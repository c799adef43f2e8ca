"""What the tests of hand-written reads compare: an instance's columns, as its model names them,
so a read by hand and the ORM's read of the same rows can be held equal."""

from __future__ import annotations

__all__ = ["column_values", "all_column_values"]


def column_values(obj, *, loaded: bool = True) -> dict | None:
    """Every column's value of an instance (None for no instance); with `loaded`, it must also be
    a whole instance as the ORM loads one (not partial, saved in the database)."""
    if obj is None:
        return None
    if loaded:
        assert not obj._partial and obj._saved_in_db
    return {name: getattr(obj, name) for name in obj._meta.fields_db_projection}


def all_column_values(objs) -> list:
    return [column_values(o) for o in objs]

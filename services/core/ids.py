"""Whether a value a client sent could be held by its column at all (an id, mostly): one longer
than the column names no row, so the look-up is skipped and the caller answers "not found"
(the ORM refuses to compare such a value rather than find nothing)."""

from __future__ import annotations

from collections.abc import Iterable

from tortoise.models import Model

__all__ = ["fits", "fitting"]


def fits(model: type[Model], value: str, field: str = "id") -> bool:
    return len(value) <= model._meta.fields_map[field].max_length


def fitting(model: type[Model], values: Iterable[str], field: str = "id") -> list[str]:
    """The values that fit, each once, in the order first given."""
    return [v for v in dict.fromkeys(values) if fits(model, v, field)]

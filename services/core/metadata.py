"""The metadata rules of every entity that has `metadata` (products, variants, orders, carts,
customers, addresses, line items …): the merge of an update, as Medusa v1 merges it, and the
bound on what one entity's metadata may hold, which Medusa v1 does not have.

The bound (METADATA_MAX_BYTES, 64 KiB of compact JSON by default) is far beyond what shops keep
there (a few ids and flags, translations of a title, a CMS reference: rarely over 1 KiB; Stripe
allows 50 keys of 500 characters, about 25 KiB) and keeps every read of the entity, and of a
page of 100 of them, cheap: without it a product grown to 16 MB through repeated merges cost
every reader the better part of a second. It is checked on what is stored: a body's metadata,
and the result of merging an update into the current value (so repeated updates cannot grow it
past the bound either). Metadata moved in over the bound stays readable and may be shrunk, not
grown."""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from services.core.errors import InvalidData

__all__ = [
    "DEFAULT_MAX_BYTES", "configure", "max_bytes", "merge_metadata", "oversized", "check_size", "check_shared",
]

DEFAULT_MAX_BYTES = 64 * 1024
_max_bytes = DEFAULT_MAX_BYTES


def configure(settings) -> int:
    """Take the process's bound from its settings (every process at start-up: services/setup.py)."""
    global _max_bytes
    _max_bytes = settings.metadata_max_bytes
    return _max_bytes


def max_bytes() -> int:
    return _max_bytes


def _size(metadata: dict | None) -> int:
    return len(orjson.dumps(metadata)) if metadata else 0


def oversized(metadata: dict | None) -> str | None:
    """Why `metadata` may not be stored (its encoded size past the bound), or None."""
    size = _size(metadata)
    if size <= _max_bytes:
        return None
    return f"must hold at most {_max_bytes} bytes of JSON (METADATA_MAX_BYTES); this holds {size}"


def check_size(metadata: dict | None, current: dict | None = None) -> None:
    """InvalidData when `metadata` is over the bound, unless it is no larger than `current`."""
    message = oversized(metadata)
    if message and _size(metadata) > _size(current):
        raise InvalidData(f"metadata {message}")


def check_shared(metadata: dict | None, current: dict | None, others: Iterable[dict | None], holder: str) -> None:
    """InvalidData when a line's metadata grows from `current` to `metadata` and the lines of its
    `holder` ("cart"), `others` being the rest, would then hold more than the bound together:
    a cart's answer carries every line's metadata, so 500 lines each at the bound would make
    every read of it a 32 MB answer."""
    size = _size(metadata)
    if size > _size(current) and size + sum(map(_size, others)) > _max_bytes:
        raise InvalidData(
            f"The lines of a {holder} must hold at most {_max_bytes} bytes of JSON metadata together "
            "(METADATA_MAX_BYTES)")


def merge_metadata(current: dict | None, changes: dict | None) -> dict | None:
    """New keys are merged over the old; an empty string deletes a key; null is kept as null.
    InvalidData when the result grows past the bound."""
    if changes is None:
        return current
    merged = dict(current or {})
    for key, value in changes.items():
        if value == "":
            merged.pop(key, None)
        else:
            merged[key] = value
    check_size(merged, current)
    return merged

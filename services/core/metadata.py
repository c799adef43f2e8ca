"""The metadata merge rule of every update (reference admin §1.6)."""

__all__ = ["merge_metadata"]


def merge_metadata(current: dict | None, changes: dict | None) -> dict | None:
    """New keys are merged over the old; an empty string deletes a key; null is kept as null."""
    if changes is None:
        return current
    merged = dict(current or {})
    for key, value in changes.items():
        if value == "":
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged

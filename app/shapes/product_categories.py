"""Product categories as both interfaces show them: the columns, `parent_category` (its columns)
and `category_children` when loaded, children nested to any depth for a descendants tree.

The admin shows every column; the store only Medusa v1's store columns, on every node. Built
without recursion, so the depth of a tree costs no stack.
"""

from __future__ import annotations

from app.web.serialize import COLUMNS
from models import ProductCategory
from services.catalog.categories import CategoryNode

__all__ = ["ADMIN_COLUMNS", "STORE_COLUMNS", "dump_categories"]

ADMIN_COLUMNS = COLUMNS[ProductCategory]
STORE_COLUMNS = ("id", "name", "description", "handle", "parent_category_id", "created_at", "updated_at", "rank")


def _columns(category: ProductCategory, columns) -> dict:
    data = category.__dict__
    return {c: data.get(c) for c in columns}


def dump_categories(
    nodes: list[CategoryNode], relations: tuple[str, ...], *, columns: tuple[str, ...] = ADMIN_COLUMNS,
    fields: frozenset[str] | None = None,
) -> list[dict]:
    """`nodes` as JSON-ready dicts. `fields` picks the top-level columns (the nested ones show
    `columns`); `relations` says which of `parent_category`, `category_children` to show."""
    top = tuple(c for c in columns if fields is None or c in fields)
    out = []
    pending: list[tuple[dict, CategoryNode]] = []
    for node in nodes:
        item = _columns(node.category, top)
        if "parent_category" in relations:
            item["parent_category"] = _columns(node.parent, columns) if node.parent is not None else None
        if "category_children" in relations:
            pending.append((item, node))
        out.append(item)
    while pending:
        item, node = pending.pop()
        children = []
        for child in node.children or []:
            shown = _columns(child.category, columns)
            if child.children is not None:
                pending.append((shown, child))
            children.append(shown)
        item["category_children"] = children
    return out

"""The category tree's recursive queries, each one SQL statement whatever the tree's size or
depth: a category's descendants, its ancestors, the height of its subtree, and the categories a
shopper may see (active and public, under active and public ancestors only).

The table has a parent pointer and no materialised path, so these walk it with `WITH RECURSIVE`,
which SQLite and PostgreSQL both run. Every walk stops at MAX_DEPTH levels: the writes keep the
tree within it (services/catalog/category_edits.py) and never let it hold a cycle, and the bound
makes sure a walk ends even over rows written some other way.
"""

from __future__ import annotations

from tortoise.expressions import RawSQL

from models import ProductCategory
from services.core.sql import placeholders

__all__ = ["MAX_DEPTH", "descendants", "ancestor_ids", "subtree_height", "visible_ids", "category_ids_with_descendants"]

# Levels a tree may have (a root is level 1). A tree answer nests two JSON levels per category
# level, and the JSON encoder stops at 255.
MAX_DEPTH = 64

_TABLE = '"product_category"'
_SHOWN = ' AND c."is_active" AND NOT c."is_internal"'

# The categories a shopper may see, as a recursive CTE named "shown" (no parameters).
_SHOWN_CTE = (
    f'"shown"("id", "depth") AS ('
    f'SELECT c."id", 1 FROM {_TABLE} c WHERE c."parent_category_id" IS NULL{_SHOWN} '
    f'UNION ALL SELECT c."id", s."depth" + 1 FROM {_TABLE} c JOIN "shown" s ON c."parent_category_id" = s."id" '
    f'WHERE s."depth" < {MAX_DEPTH}{_SHOWN})'
)
_VISIBLE = f'(WITH RECURSIVE {_SHOWN_CTE} SELECT "id" FROM "shown")'


def visible_ids() -> RawSQL:
    """A subquery of the ids of every category the store shows: `filter(id__in=visible_ids())`."""
    return RawSQL(_VISIBLE)


def _db():
    return ProductCategory._meta.db


def _marks(count: int) -> str:
    return ", ".join(placeholders(_db().capabilities.dialect, 1, count))


def _down(root_ids: list[str], shown_only: bool) -> str:
    """The ids under `root_ids` (not the roots themselves), as a recursive CTE named "down"."""
    scope = _SHOWN if shown_only else ""
    return (
        f'WITH RECURSIVE "down"("id", "depth") AS ('
        f'SELECT c."id", 1 FROM {_TABLE} c WHERE c."parent_category_id" IN ({_marks(len(root_ids))}){scope} '
        f'UNION ALL SELECT c."id", d."depth" + 1 FROM {_TABLE} c JOIN "down" d ON c."parent_category_id" = d."id" '
        f'WHERE d."depth" < {MAX_DEPTH}{scope}) '
    )


async def descendants(root_ids: list[str], *, shown_only: bool = False) -> list[ProductCategory]:
    """Every category below `root_ids`, at any depth, in no particular order. `shown_only`: only
    active, public ones, and nothing below a hidden one."""
    if not root_ids:
        return []
    sql = _down(root_ids, shown_only) + f'SELECT * FROM {_TABLE} WHERE "id" IN (SELECT "id" FROM "down")'
    rows = await _db().execute_query_dict(sql, list(root_ids))
    return [ProductCategory._init_from_db(**row) for row in rows]


async def category_ids_with_descendants(category_ids: list[str], *, shown_only: bool = False) -> list[str]:
    """The ids among `category_ids` that exist (that a shopper may see, with `shown_only`) and
    those of every category below them: what a product filter such as `category_id[]` with
    `include_category_children` matches. One statement, with one parameter per id: keep the
    list to a few thousand (PostgreSQL takes at most 32,767 parameters)."""
    ids = list(dict.fromkeys(category_ids))
    if not ids:
        return []
    shown = f'{_SHOWN_CTE}, ' if shown_only else ""
    anchor = ' AND c."id" IN (SELECT "id" FROM "shown")' if shown_only else ""
    scope = _SHOWN if shown_only else ""
    sql = (
        f'WITH RECURSIVE {shown}"down"("id", "depth") AS ('
        f'SELECT c."id", 1 FROM {_TABLE} c WHERE c."id" IN ({_marks(len(ids))}){anchor} '
        f'UNION ALL SELECT c."id", d."depth" + 1 FROM {_TABLE} c JOIN "down" d ON c."parent_category_id" = d."id" '
        f'WHERE d."depth" < {MAX_DEPTH}{scope}) '
        f'SELECT "id", MIN("depth") AS "depth" FROM "down" GROUP BY "id" ORDER BY MIN("depth"), "id"'
    )
    return [row["id"] for row in await _db().execute_query_dict(sql, ids)]


async def ancestor_ids(category_id: str) -> list[str]:
    """The ids from `category_id` itself up to its root, in that order."""
    sql = (
        f'WITH RECURSIVE "up"("id", "parent_id", "depth") AS ('
        f'SELECT c."id", c."parent_category_id", 0 FROM {_TABLE} c WHERE c."id" = {_marks(1)} '
        f'UNION ALL SELECT c."id", c."parent_category_id", u."depth" + 1 FROM {_TABLE} c '
        f'JOIN "up" u ON c."id" = u."parent_id" WHERE u."depth" < {MAX_DEPTH}) '
        f'SELECT "id" FROM "up" ORDER BY "depth"'
    )
    return [row["id"] for row in await _db().execute_query_dict(sql, [category_id])]


async def subtree_height(category_id: str) -> int:
    """The levels of the subtree under `category_id`, counting it: 1 for a leaf."""
    sql = _down([category_id], False) + 'SELECT MAX("depth") AS "height" FROM "down"'
    rows = await _db().execute_query_dict(sql, [category_id])
    return 1 + int((rows[0]["height"] if rows else None) or 0)

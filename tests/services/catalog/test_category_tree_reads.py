"""The category tree's hand-written recursive reads (services/catalog/category_tree_reads.py) answer
what walking the tree level by level through the ORM answers, on both backends."""

from __future__ import annotations

from models import ProductCategory
from services.catalog.category_tree_reads import (
    ancestor_ids, category_ids_with_descendants, descendants, subtree_height, visible_ids,
)
from tests.row_values import column_values as _values


async def _below(root_ids: list[str], shown_only: bool) -> list[ProductCategory]:
    """The ORM's walk: each level's children, a hidden one's subtree left out with `shown_only`."""
    found, level = [], list(root_ids)
    while level:
        qs = ProductCategory.filter(parent_category_id__in=level)
        if shown_only:
            qs = qs.filter(is_active=True, is_internal=False)
        children = list(await qs)
        found += children
        level = [c.id for c in children]
    return found


async def test_the_tree_read_by_hand_is_the_tree_the_orm_walks():
    # Given a tree: a root over a shown branch three deep, a hidden branch with a shown child,
    # and a second root
    async def category(name: str, parent: ProductCategory | None = None, shown: bool = True) -> ProductCategory:
        return await ProductCategory.create(name=name, handle=name, is_active=shown, is_internal=False,
                                            parent_category=parent, metadata={"name": name})

    root = await category("root")
    shown = await category("shown", root)
    deep = await category("deep", await category("middle", shown))
    hidden = await category("hidden", root, shown=False)
    await category("under-hidden", hidden)
    other = await category("other")
    for shown_only in (False, True):
        # When the descendants of the roots are read by hand
        mine = await descendants([root.id, other.id], shown_only=shown_only)
        # I expect the ORM's categories, level by level
        theirs = await _below([root.id, other.id], shown_only)
        assert sorted(map(_values, mine), key=lambda v: v["id"]) == sorted(map(_values, theirs), key=lambda v: v["id"])
        assert len(theirs) == (3 if shown_only else 5)
        # and the ids with the asked ones themselves, nearest first
        asked = [c.id for c in (root, other)]
        ids = await category_ids_with_descendants([*asked, "pcat_nope"], shown_only=shown_only)
        assert sorted(ids) == sorted([*asked, *(c.id for c in theirs)])
    assert set(await ProductCategory.filter(id__in=visible_ids()).values_list("id", flat=True)) >= {
        root.id, shown.id, deep.id, other.id}
    # I expect a category's ancestors, itself first, and its subtree's height
    ancestors, node = [], deep
    while node is not None:
        ancestors.append(node.id)
        node = await ProductCategory.get_or_none(id=node.parent_category_id) if node.parent_category_id else None
    assert await ancestor_ids(deep.id) == ancestors and len(ancestors) == 4
    assert (await subtree_height(root.id), await subtree_height(deep.id)) == (4, 1)

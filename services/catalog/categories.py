"""Reading product categories: pages of them and single ones, each with its parent and its
children, or the whole tree below it.

The admin sees every category. The store (`storefront=True`) sees a category only when it and
all its ancestors are active and public: a hidden category hides its subtree too (Medusa v1
still lists the active, public children of a hidden parent). Siblings come in `rank` order,
ties by handle. A page takes a constant number of statements: the page, its count, the parents,
and the children or the whole tree below the page in one recursive query.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tortoise.expressions import Q
from tortoise.queryset import QuerySet

from models import ProductCategory
from services.catalog.category_tree_reads import descendants, visible_ids
from services.core.errors import NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, find_page

__all__ = [
    "CategoryFilter", "CategoryNode", "RELATIONS", "not_found", "list_categories", "get_category",
]

RELATIONS = ("parent_category", "category_children")


@dataclass
class CategoryNode:
    """A category as answered: its parent and its children (direct ones, or the whole subtree
    when `deep`), each when asked for; None: not asked for, or no parent."""

    category: ProductCategory
    parent: ProductCategory | None = None
    children: list["CategoryNode"] | None = None
    deep: bool = False


@dataclass
class CategoryFilter:
    q: str | None = None  # case-insensitive, over name or handle
    handle: str | None = None  # exact
    is_internal: bool | None = None
    is_active: bool | None = None
    parent_category_id: str | None = None  # the children of this category
    roots_only: bool = False  # only top-level categories (Medusa's `parent_category_id=null`)
    storefront: bool = False  # only what a shopper may see
    ids: list[str] = field(default_factory=list)  # any of these


def not_found(category_id: str) -> NotFound:
    return NotFound(f"ProductCategory with id: {category_id} was not found")


def _scope(storefront: bool) -> QuerySet:
    qs = ProductCategory.all()
    return qs.filter(id__in=visible_ids()) if storefront else qs


def _filtered(f: CategoryFilter) -> QuerySet:
    qs = _scope(f.storefront)
    if f.q:
        qs = qs.filter(Q(name__icontains=f.q) | Q(handle__icontains=f.q))
    if f.handle is not None:
        qs = qs.filter(handle=f.handle)
    if f.is_internal is not None:
        qs = qs.filter(is_internal=f.is_internal)
    if f.is_active is not None:
        qs = qs.filter(is_active=f.is_active)
    if f.roots_only:
        qs = qs.filter(parent_category_id=None)
    elif f.parent_category_id is not None:
        qs = qs.filter(parent_category_id=f.parent_category_id)
    if f.ids:
        qs = qs.filter(id__in=f.ids)
    return qs


def _sibling_order(category: ProductCategory) -> tuple:
    return (category.rank, category.handle, category.id)


async def _with_relations(
    rows: list[ProductCategory], relations: tuple[str, ...], *, deep: bool, storefront: bool
) -> list[CategoryNode]:
    nodes = [CategoryNode(row) for row in rows]
    if not nodes:
        return nodes
    if "parent_category" in relations:
        parent_ids = {n.category.parent_category_id for n in nodes} - {None}
        parents = {p.id: p for p in await ProductCategory.filter(id__in=parent_ids)} if parent_ids else {}
        for node in nodes:
            node.parent = parents.get(node.category.parent_category_id)
    if "category_children" in relations:
        ids = [n.category.id for n in nodes]
        if deep:
            below = await descendants(ids, shown_only=storefront)
        else:
            children = ProductCategory.filter(parent_category_id__in=ids)
            below = await (children.filter(is_active=True, is_internal=False) if storefront else children)
        _attach(nodes, below, deep)
    return nodes


def _attach(nodes: list[CategoryNode], below: list[ProductCategory], deep: bool) -> None:
    """Hang `below` under `nodes` by their parent pointers, each level in sibling order; without
    building recursively, so a deep tree costs no stack."""
    by_parent: dict[str, list[CategoryNode]] = {}
    for category in sorted(below, key=_sibling_order):
        by_parent.setdefault(category.parent_category_id, []).append(CategoryNode(category, deep=deep))
    for node in nodes:
        node.deep = deep
        node.children = by_parent.get(node.category.id, [])
    if deep:
        for siblings in list(by_parent.values()):
            for child in siblings:
                child.children = by_parent.get(child.category.id, [])


async def list_categories(
    f: CategoryFilter, config: FindConfig, *, descendants_tree: bool = False
) -> tuple[list[CategoryNode], int]:
    """One page of categories, by `config.order` then handle, and how many match. Relations:
    `parent_category`, `category_children` (with `descendants_tree`, the whole subtree)."""
    order = config.order
    if "handle" not in (name for name, _ in order):
        order = (*order, ("handle", False))
    rows, count = await find_page(_filtered(f), FindConfig(limit=config.limit, offset=config.offset, order=order))
    nodes = await _with_relations(rows, config.relations, deep=descendants_tree, storefront=f.storefront)
    return nodes, count


async def get_category(
    category_id: str, relations: tuple[str, ...] = RELATIONS, *, descendants_tree: bool = True,
    storefront: bool = False,
) -> CategoryNode:
    """The category with the relations asked for (by default its parent and its whole subtree,
    as Medusa v1 answers one category)."""
    row = fits(ProductCategory, category_id) and await _scope(storefront).filter(id=category_id).first()
    if not row:
        raise not_found(category_id)
    return (await _with_relations([row], relations, deep=descendants_tree, storefront=storefront))[0]

"""Changing product categories: create, update (a move to another parent or another rank
included), delete, and the products a category holds.

The ranks of each set of siblings stay 0..n-1: every change that adds, moves or removes a
category renumbers the siblings it touches, in one statement, in the transaction of the change.
Changes to the tree run one at a time (on PostgreSQL a transaction-wide advisory lock; SQLite
runs one transaction at a time anyway), so two moves never both read the same siblings. A
category can never move under itself or its own descendants, and the tree keeps to MAX_DEPTH
levels. A category with children cannot be deleted (as in Medusa v1), so nothing is orphaned.
"""

from __future__ import annotations

from tortoise.exceptions import IntegrityError

from models import Product, ProductCategory
from services.catalog.categories import RELATIONS, CategoryNode, get_category, not_found
from services.catalog.category_tree_reads import MAX_DEPTH, ancestor_ids, subtree_height
from services.core.db import UnitOfWork, atomic
from services.core.errors import Duplicate, InvalidData, NotAllowed
from services.core.handles import kebab_case
from services.core.ids import fits, fitting
from services.core.updates import UNSET, apply_changes, save_changes

__all__ = [
    "MAX_HANDLE", "create_category", "update_category", "delete_category", "add_products", "remove_products",
]

MAX_HANDLE = 255  # the column's length: a handle derived from a long name is cut to it
_TREE_LOCK = 0x7063_6174  # "pcat": the advisory lock key that serializes changes to the tree


def _duplicate(handle: str | None) -> Duplicate:
    return Duplicate(f"Product_category with handle {handle} already exists.")


def _parent_id(value: str | None) -> str | None:
    # Medusa reads the string "null" (and, in effect, "") as "no parent": a root category.
    return None if value in (None, "", "null") else value


async def _lock_tree(unit: UnitOfWork) -> None:
    if unit.connection.capabilities.dialect == "postgres":
        await unit.connection.execute_query(f"SELECT pg_advisory_xact_lock({_TREE_LOCK})")


async def _ensure_handle_free(handle: str, exclude_id: str | None = None) -> None:
    qs = ProductCategory.filter(handle=handle)
    if exclude_id is not None:
        qs = qs.exclude(id=exclude_id)
    if await qs.exists():
        raise _duplicate(handle)


async def _existing_parent(parent_id: str) -> ProductCategory:
    parent = fits(ProductCategory, parent_id) and await ProductCategory.get_or_none(id=parent_id)
    if not parent:
        raise not_found(parent_id)
    return parent


def _too_deep() -> InvalidData:
    return InvalidData(f"Product categories can be nested at most {MAX_DEPTH} levels deep")


async def _siblings(parent_id: str | None, exclude_id: str | None = None) -> list[ProductCategory]:
    """The children of `parent_id` (the roots for None) in rank order, ties by handle."""
    qs = ProductCategory.filter(parent_category_id=parent_id)
    if exclude_id is not None:
        qs = qs.exclude(id=exclude_id)
    return sorted(await qs, key=lambda c: (c.rank, c.handle, c.id))


async def _renumber(siblings: list[ProductCategory], skip: ProductCategory | None = None) -> None:
    """Give `siblings` the ranks 0..n-1 in their order, in one statement; `skip` is saved by the
    caller with the rest of its changes."""
    changed = []
    for rank, sibling in enumerate(siblings):
        if sibling.rank != rank:
            sibling.rank = rank
            if sibling is not skip:
                changed.append(sibling)
    if changed:
        await ProductCategory.bulk_update(changed, fields=["rank"])


def _derived_handle(name: str) -> str:
    handle = kebab_case(name)[:MAX_HANDLE].rstrip("-")
    if not handle:
        raise InvalidData("handle should not be empty: the name has no letter or digit to make one from")
    return handle


async def create_category(
    *, name: str, handle: str | None = None, description: str = "", is_active: bool = False,
    is_internal: bool = False, parent_category_id: str | None = None, rank: int | None = None,
    metadata: dict | None = None, relations: tuple[str, ...] = RELATIONS, descendants_tree: bool = True,
) -> CategoryNode:
    """A new category, last among its siblings, or at `rank` (clamped to their count) with the
    siblings from there on moved one down. Without a handle, the kebab-cased name."""
    handle = handle or _derived_handle(name)
    parent_id = _parent_id(parent_category_id)
    try:
        async with atomic() as unit:
            await _lock_tree(unit)
            if parent_id is not None:
                await _existing_parent(parent_id)
                if len(await ancestor_ids(parent_id)) >= MAX_DEPTH:
                    raise _too_deep()
            await _ensure_handle_free(handle)
            siblings = await _siblings(parent_id)
            position = len(siblings) if rank is None else min(rank, len(siblings))
            category = ProductCategory(
                name=name, handle=handle, description=description, is_active=is_active, is_internal=is_internal,
                parent_category_id=parent_id, rank=position, metadata=metadata,
            )
            siblings.insert(position, category)
            await _renumber(siblings, skip=category)
            await category.save()
    except IntegrityError:  # a handle taken between the check and the insert
        raise _duplicate(handle) from None
    return await get_category(category.id, relations, descendants_tree=descendants_tree)


async def _move(category: ProductCategory, parent_id: str | None, rank: int | None) -> None:
    """Take `category` out of its siblings (closing the gap) and put it among the children of
    `parent_id` at `rank` (last when None or beyond them), renumbering both sets."""
    moving = parent_id != category.parent_category_id
    if moving and parent_id is not None:
        await _existing_parent(parent_id)
        above = await ancestor_ids(parent_id)
        if category.id in above:
            raise InvalidData(
                f"ProductCategory {category.id} cannot be moved under itself or one of its descendants"
            )
        if len(above) + await subtree_height(category.id) > MAX_DEPTH:
            raise _too_deep()
    old = await _siblings(category.parent_category_id, exclude_id=category.id)
    new = await _siblings(parent_id, exclude_id=category.id) if moving else old
    if moving:
        await _renumber(old)
    position = len(new) if rank is None else min(rank, len(new))
    new.insert(position, category)
    await _renumber(new, skip=category)
    category.parent_category_id = parent_id


async def update_category(
    category_id: str, relations: tuple[str, ...] = RELATIONS, *, descendants_tree: bool = True,
    name: str | None = None, description: str | None = None, handle: str | None = None,
    is_active: bool | None = None, is_internal: bool | None = None,
    parent_category_id: str | None | object = UNSET, rank: int | None = None, metadata: dict | None = None,
) -> CategoryNode:
    """Change the given fields (metadata is merged). A new `parent_category_id` (None or "null":
    a root) moves the category with its subtree, last among its new siblings unless `rank` says
    where; `rank` alone moves it among its siblings. Either way the ranks stay 0..n-1."""
    async with atomic() as unit:
        await _lock_tree(unit)
        category = fits(ProductCategory, category_id) and await ProductCategory.get_or_none(id=category_id)
        if not category:
            raise not_found(category_id)
        if handle is not None and handle != category.handle:
            await _ensure_handle_free(handle, exclude_id=category.id)
        changed = apply_changes(category, {
            "name": name, "description": description, "is_active": is_active, "is_internal": is_internal,
            "handle": handle,
        })
        parent_id = category.parent_category_id if parent_category_id is UNSET else _parent_id(parent_category_id)
        if parent_id != category.parent_category_id or (rank is not None and rank != category.rank):
            await _move(category, parent_id, rank)
            changed += ["parent_category_id", "rank"]
        changed += apply_changes(category, {}, metadata=metadata)
        await save_changes(category, changed, duplicate=_duplicate(handle))
    return await get_category(category_id, relations, descendants_tree=descendants_tree)


async def delete_category(category_id: str) -> None:
    """A hard delete (its product links go with it); its later siblings move up a rank. One with
    children is refused. Deleting one that does not exist is no error."""
    if not fits(ProductCategory, category_id):
        return
    async with atomic() as unit:
        await _lock_tree(unit)
        category = await ProductCategory.get_or_none(id=category_id)
        if category is None:
            return
        if await ProductCategory.filter(parent_category_id=category_id).exists():
            raise NotAllowed(f"Deleting ProductCategory ({category_id}) with category children is not allowed")
        await ProductCategory.filter(id=category_id).delete()
        await _renumber(await _siblings(category.parent_category_id))


async def _products_of(category_id: str, product_ids: list[str]) -> tuple[ProductCategory, list[Product]]:
    """The category, its row locked (a concurrent delete waits or has happened), and the live
    products named; any unknown product refuses the whole batch."""
    category = fits(ProductCategory, category_id) and await (
        ProductCategory.filter(id=category_id).select_for_update().first()
    )
    if not category:
        raise not_found(category_id)
    wanted = list(dict.fromkeys(product_ids))
    found = await Product.filter(id__in=fitting(Product, wanted), deleted_at=None) if wanted else []
    known = {p.id for p in found}
    missing = [p for p in wanted if p not in known]
    if missing:
        raise InvalidData(f"Products {', '.join(missing)} do not exist")
    return category, found


async def add_products(
    category_id: str, product_ids: list[str], relations: tuple[str, ...] = RELATIONS, *,
    descendants_tree: bool = True,
) -> CategoryNode:
    """Put the products in the category; those already in it stay as they are. All or nothing."""
    async with atomic():
        category, products = await _products_of(category_id, product_ids)
        if products:
            await category.products.add(*products)
    return await get_category(category_id, relations, descendants_tree=descendants_tree)


async def remove_products(
    category_id: str, product_ids: list[str], relations: tuple[str, ...] = RELATIONS, *,
    descendants_tree: bool = True,
) -> CategoryNode:
    """Take the products out of the category; those not in it are left alone. All or nothing."""
    async with atomic():
        category, products = await _products_of(category_id, product_ids)
        if products:
            await category.products.remove(*products)
    return await get_category(category_id, relations, descendants_tree=descendants_tree)

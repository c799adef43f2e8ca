"""Product collections: named groups of products with a handle used in storefront slugs."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from tortoise.exceptions import IntegrityError
from tortoise.expressions import Q
from tortoise.queryset import QuerySet

from models import Product, ProductCollection
from services.core.db import atomic
from services.core.errors import Duplicate, NotFound
from services.core.handles import kebab_case
from services.core.listing import FindConfig, date_filters, find_one, find_page
from services.core.updates import UNSET, apply_changes, save_changes
from services.catalog.products import PRODUCT_ALIASES

__all__ = [
    "CollectionFilter", "list_collections", "get_collection", "create_collection",
    "update_collection", "delete_collection", "add_products", "remove_products",
]


MAX_HANDLE = 255  # the column's length: a handle derived from a long title is cut to it


@dataclass
class CollectionFilter:
    q: str | None = None  # case-insensitive, over title or handle
    title: str | None = None  # exact
    handle: str | None = None  # exact
    handles: list[str] = field(default_factory=list)  # any of these (the store's `handle[]`)
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None
    deleted_at: dict[str, datetime | None] | None = None  # given: soft-deleted ones can match, as in Medusa
    discount_condition_id: str | None = None  # only those a discount condition names


def _live() -> QuerySet:
    return ProductCollection.filter(deleted_at=None)


def _not_found(collection_id: str) -> NotFound:
    return NotFound(f"Product collection with id: {collection_id} was not found")


def _duplicate(handle: str | None) -> Duplicate:
    return Duplicate(f"Product_collection with handle {handle} already exists.")


def _filtered(f: CollectionFilter) -> QuerySet:
    dates = date_filters(created_at=f.created_at, updated_at=f.updated_at, deleted_at=f.deleted_at)
    qs = ProductCollection.filter(**dates)
    if not any(key.startswith("deleted_at") for key in dates):
        qs = qs.filter(deleted_at=None)
    # Unlike Medusa v1, `q` narrows the other filters instead of silently dropping them.
    if f.q:
        qs = qs.filter(Q(title__icontains=f.q) | Q(handle__icontains=f.q))
    if f.title is not None:
        qs = qs.filter(title=f.title)
    if f.handle is not None:
        qs = qs.filter(handle=f.handle)
    if f.handles:
        qs = qs.filter(handle__in=f.handles)
    if f.discount_condition_id is not None:
        qs = qs.filter(discount_conditions__id=f.discount_condition_id)
    return qs


async def list_collections(f: CollectionFilter, config: FindConfig) -> tuple[list[ProductCollection], int]:
    """One page of collections; `config.relations` may load `products` and `products.profiles`."""
    return await find_page(_filtered(f), config, PRODUCT_ALIASES)


async def get_collection(collection_id: str, relations: tuple[str, ...] = ()) -> ProductCollection:
    collection = await find_one(_live().filter(id=collection_id), relations, PRODUCT_ALIASES)
    if collection is None:
        raise _not_found(collection_id)
    return collection


async def create_collection(
    *, title: str, handle: str | None = None, metadata: dict | None = None, relations: tuple[str, ...] = ()
) -> ProductCollection:
    """A new collection; without a handle, the kebab-cased title (none when the title has no word)."""
    handle = handle or kebab_case(title)[:MAX_HANDLE].rstrip("-") or None
    try:
        async with atomic():
            if handle is not None and await _live().filter(handle=handle).exists():
                raise _duplicate(handle)
            collection = await ProductCollection.create(title=title, handle=handle, metadata=metadata)
    except IntegrityError:  # a concurrent request took the handle between the check and the insert
        raise _duplicate(handle) from None
    return await get_collection(collection.id, relations)


async def update_collection(
    collection_id: str, relations: tuple[str, ...] = (), *, title: str | None = None,
    handle: str | None | object = UNSET, metadata: dict | None = None,
) -> ProductCollection:
    """Change title, handle (an empty or null handle clears it; never derived again from the title)
    or metadata (merged)."""
    if handle is not UNSET:
        handle = handle or None
    async with atomic():
        collection = await _live().select_for_update().get_or_none(id=collection_id)
        if collection is None:
            raise _not_found(collection_id)
        if handle not in (UNSET, None, collection.handle) and await _live().filter(handle=handle).exclude(
            id=collection_id,
        ).exists():
            raise _duplicate(handle)
        changed = apply_changes(collection, {"title": title, "handle": handle}, clearable={"handle"}, metadata=metadata)
        await save_changes(collection, changed, duplicate=_duplicate(handle))
    return await get_collection(collection_id, relations)


async def delete_collection(collection_id: str) -> None:
    """A soft delete, which frees the handle. Its products keep their `collection_id`, as in Medusa."""
    now = datetime.now(timezone.utc)
    if not await _live().filter(id=collection_id).update(deleted_at=now, updated_at=now):
        raise _not_found(collection_id)


async def _locked(collection_id: str) -> ProductCollection:
    # The row lock makes a batch wait for a concurrent delete of its collection (PostgreSQL).
    collection = await _live().select_for_update().get_or_none(id=collection_id)
    if collection is None:
        raise _not_found(collection_id)
    return collection


async def _ensure_products(product_ids: list[str]) -> None:
    found = set(await Product.filter(id__in=product_ids, deleted_at=None).values_list("id", flat=True))
    missing = [p for p in product_ids if p not in found]
    if len(missing) == 1:
        raise NotFound(f"Product with id: {missing[0]} was not found")
    if missing:
        raise NotFound(f"Products with ids: {', '.join(missing)} were not found")


async def add_products(
    collection_id: str, product_ids: list[str], relations: tuple[str, ...] = ()
) -> ProductCollection:
    """Move the products into the collection (out of any other), in one UPDATE. All or nothing:
    an unknown product id changes nothing."""
    wanted = list(dict.fromkeys(product_ids))
    async with atomic():
        await _locked(collection_id)
        await _ensure_products(wanted)
        await Product.filter(id__in=wanted, deleted_at=None).update(
            collection_id=collection_id, updated_at=datetime.now(timezone.utc)
        )
    return await get_collection(collection_id, relations)


async def remove_products(collection_id: str, product_ids: list[str]) -> list[str]:
    """Take the products out of this collection; those in another collection or in none are left
    alone. All or nothing: an unknown product id changes nothing. The ids as sent, without repeats."""
    wanted = list(dict.fromkeys(product_ids))
    async with atomic():
        await _locked(collection_id)
        await _ensure_products(wanted)
        await Product.filter(id__in=wanted, collection_id=collection_id, deleted_at=None).update(
            collection_id=None, updated_at=datetime.now(timezone.utc)
        )
    return wanted

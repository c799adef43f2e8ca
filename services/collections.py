"""Product collections: named groups of products with a handle used in storefront slugs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from tortoise.exceptions import IntegrityError
from tortoise.expressions import Q
from tortoise.queryset import QuerySet

from models import Product, ProductCollection
from services.db import atomic
from services.errors import Duplicate, NotFound
from services.listing import FindConfig, date_filters, find_one, find_page
from services.metadata import merge_metadata
from services.products import PRODUCT_ALIASES

__all__ = [
    "kebab_case", "CollectionFilter", "list_collections", "get_collection", "create_collection",
    "update_collection", "delete_collection", "add_products", "remove_products",
]


# ---------------------------------------------------------------- handles: lodash's kebabCase

_DEBURRED = str.maketrans({ch: plain for plain, chars in (
    ("A", "ÀÁÂÃÄÅĀĂĄ"), ("Ae", "Æ"), ("C", "ÇĆĈĊČ"), ("D", "ÐĎĐ"), ("E", "ÈÉÊËĒĔĖĘĚ"),
    ("G", "ĜĞĠĢ"), ("H", "ĤĦ"), ("I", "ÌÍÎÏĨĪĬĮİ"), ("IJ", "Ĳ"), ("J", "Ĵ"), ("K", "Ķ"),
    ("L", "ĹĻĽĿŁ"), ("N", "ÑŃŅŇŊ"), ("O", "ÒÓÔÕÖØŌŎŐ"), ("Oe", "Œ"), ("R", "ŔŖŘ"), ("S", "ŚŜŞŠ"),
    ("T", "ŢŤŦ"), ("Th", "Þ"), ("U", "ÙÚÛÜŨŪŬŮŰŲ"), ("W", "Ŵ"), ("Y", "ÝŶŸ"), ("Z", "ŹŻŽ"),
    ("a", "àáâãäåāăą"), ("ae", "æ"), ("c", "çćĉċč"), ("d", "ðďđ"), ("e", "èéêëēĕėęě"),
    ("g", "ĝğġģ"), ("h", "ĥħ"), ("i", "ìíîïĩīĭįı"), ("ij", "ĳ"), ("j", "ĵ"), ("k", "ķĸ"),
    ("l", "ĺļľŀł"), ("'n", "ŉ"), ("n", "ñńņňŋ"), ("o", "òóôõöøōŏő"), ("oe", "œ"), ("r", "ŕŗř"),
    ("s", "śŝşšſ"), ("ss", "ß"), ("t", "ţťŧ"), ("th", "þ"), ("u", "ùúûüũūŭůűų"), ("w", "ŵ"),
    ("y", "ýÿŷ"),
) for ch in chars})
_COMBO_RANGE = r"\u0300-\u036f\ufe20-\ufe2f\u20d0-\u20ff"
_COMBO_MARK = re.compile(f"[{_COMBO_RANGE}]")
_APOS = re.compile("['\u2019]")
_HAS_UNICODE_WORD = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]|[0-9][a-zA-Z]|[a-zA-Z][0-9]|[^a-zA-Z0-9 ]")
_ASCII_WORD = re.compile(r"[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")


def _unicode_word() -> re.Pattern:
    # lodash 4.17's reUnicodeWord, piece for piece. It reads UTF-16 code units (no `u` flag), so
    # kebab_case hands it a string whose astral characters are split into surrogate pairs.
    astral, dingbat = r"\ud800-\udfff", r"\u2700-\u27bf"
    lower, upper = r"a-z\xdf-\xf6\xf8-\xff", r"A-Z\xc0-\xd6\xd8-\xde"
    space = (r" \t\x0b\f\xa0\ufeff\n\r\u2028\u2029\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005"
             r"\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000")
    brk_range = r"\xac\xb1\xd7\xf7" + r"\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\xbf" + r"\u2000-\u206f" + space
    apos, brk, digits = "['\u2019]", f"[{brk_range}]", r"\d+"
    r_lower, r_upper = f"[{lower}]", f"[{upper}]"
    misc = f"[^{astral}{brk_range}{digits}{dingbat}{lower}{upper}]"
    fitz, regional = r"\ud83c[\udffb-\udfff]", r"(?:\ud83c[\udde6-\uddff]){2}"
    surr_pair = r"[\ud800-\udbff][\udc00-\udfff]"
    modifier = f"(?:[{_COMBO_RANGE}]|{fitz})"
    misc_lower, misc_upper = f"(?:{r_lower}|{misc})", f"(?:{r_upper}|{misc})"
    contr_lower, contr_upper = f"(?:{apos}(?:d|ll|m|re|s|t|ve))?", f"(?:{apos}(?:D|LL|M|RE|S|T|VE))?"
    opt_var = r"[\ufe0e\ufe0f]?"
    opt_join = f"(?:\\u200d(?:[^{astral}]|{regional}|{surr_pair}){opt_var}{modifier}?)*"
    ord_lower = r"\d*(?:1st|2nd|3rd|(?![123])\dth)(?=\b|[A-Z_])"
    ord_upper = r"\d*(?:1ST|2ND|3RD|(?![123])\dTH)(?=\b|[a-z_])"
    emoji = f"(?:[{dingbat}]|{regional}|{surr_pair}){opt_var}{modifier}?{opt_join}"
    end = r"\Z"  # JavaScript's `$` without the m flag; Python's would also match before a final newline
    return re.compile("|".join([
        f"{r_upper}?{r_lower}+{contr_lower}(?={brk}|{r_upper}|{end})",
        f"{misc_upper}+{contr_upper}(?={brk}|{r_upper}{misc_lower}|{end})",
        f"{r_upper}?{misc_lower}+{contr_lower}",
        f"{r_upper}+{contr_upper}",
        ord_upper, ord_lower, digits, emoji,
    ]), re.ASCII)  # ASCII: `\d` and `\b` as JavaScript reads them


_UNICODE_WORD = _unicode_word()


def _utf16_units(text: str) -> str:
    return "".join(
        c if ord(c) < 0x10000 else chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF))
        for c in text
    )


def _from_units(units: str) -> str:
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def kebab_case(text: str) -> str:
    """lodash's `kebabCase`, as Medusa v1 derives a handle from a title: accents dropped, words
    split on spaces, punctuation, camelCase and letter/digit boundaries (`fooBar baz` -> `foo-bar-baz`,
    `abc123def` -> `abc-123-def`, `Café` -> `cafe`), lower-cased and joined by `-`."""
    plain = _APOS.sub("", _COMBO_MARK.sub("", text.translate(_DEBURRED)))
    if _HAS_UNICODE_WORD.search(plain):
        words = [_from_units(m.group()) for m in _UNICODE_WORD.finditer(_utf16_units(plain))]
    else:
        words = _ASCII_WORD.findall(plain)
    return "-".join(w.lower() for w in words)


# ---------------------------------------------------------------- collections

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


_UNSET = object()


async def update_collection(
    collection_id: str, relations: tuple[str, ...] = (), *, title: str | None = None,
    handle: str | None | object = _UNSET, metadata: dict | None = None,
) -> ProductCollection:
    """Change title, handle (an empty or null handle clears it; never derived again from the title)
    or metadata (merged)."""
    try:
        async with atomic():
            collection = await _live().select_for_update().get_or_none(id=collection_id)
            if collection is None:
                raise _not_found(collection_id)
            changed = []
            if title is not None and title != collection.title:
                collection.title = title
                changed.append("title")
            if handle is not _UNSET and (handle or None) != collection.handle:
                handle = handle or None
                if handle is not None and await _live().filter(handle=handle).exclude(id=collection_id).exists():
                    raise _duplicate(handle)
                collection.handle = handle
                changed.append("handle")
            if metadata is not None:
                collection.metadata = merge_metadata(collection.metadata, metadata)
                changed.append("metadata")
            if changed:
                await collection.save(update_fields=[*changed, "updated_at"])
    except IntegrityError:
        raise _duplicate(handle) from None
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
